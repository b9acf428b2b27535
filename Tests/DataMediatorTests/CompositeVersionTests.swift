import DataMediator
import DataMediatorTesting
import Testing

/// A composite's page, lookup and sections read their children one after another, not in
/// one snapshot: their version is the least that the reads of changing children carried,
/// so a client that follows the changes from it applies a write that came between two
/// reads (again, in order) instead of skipping it for good. Children that never change
/// (static sections, files) take no part; a page of them alone has the composite's version.
@Suite struct CompositeVersionTests {
    /// A list of the sample items that says it was read at `version`, with a change feed.
    static func list(at version: Int64) -> ListAdapter {
        ListAdapter(
            definition: SampleList.definition,
            provider: ArrayDataProvider(
                items: SampleList.items(),
                idField: "id",
                views: SampleList.views,
                version: version
            ),
            signer: CompositeTests.signer,
            changeLog: ReloadLog(lastChange: { (0, version) })
        )
    }

    static func screen() throws -> ListAdapter {
        let flat = try CompositeTests.view("flat")
        return ListAdapter.composite(
            name: "screen",
            title: "Screen",
            children: [
                CompositeTests.welcome(2),
                CompositeChild(name: "newer", content: .list(list(at: 9), view: flat), cap: 2),
                CompositeChild(name: "older", content: .list(list(at: 3), view: flat), cap: 2),
                CompositeChild(name: "file", content: .list(CompositeTests.sample, view: flat), cap: 2),
            ],
            signer: CompositeTests.signer
        )
    }

    @Test func aPageHasTheLeastVersionOfTheChangingChildrenItRead() async throws {
        let screen = try Self.screen()
        let welcome = try await screen.page(view: nil, limit: "2", cursor: nil)
        #expect(welcome.items.map(\.id) == ["welcome/w0", "welcome/w1"])
        #expect(welcome.version == 9, "static sections alone: the composite's version now")
        let next = try #require(welcome.next)
        let both = try await screen.page(view: nil, limit: "4", cursor: next)
        #expect(
            both.items.map { $0.id.split(separator: "/").first.map(String.init) } == [
                "newer", "newer", "older", "older",
            ]
        )
        #expect(both.version == 3)
        // (A page reads one item past its limit, to know whether there is more.)
        let newer = try await screen.page(view: nil, limit: "1", cursor: next)
        #expect(newer.version == 9, "only the newer child was read")
        let afterNewer = try #require(newer.next)
        let last = try await screen.page(view: nil, limit: "4", cursor: afterNewer)
        #expect(last.version == 3, "the older child and the file")
        #expect(try await screen.sectionInfo(view: nil).version == 3)
        let lastOlder = try #require(both.items.last?.id)
        let located = try await screen.locate(id: lastOlder, view: nil)
        #expect(located.version == 3)
    }

    /// A composite of files only (its version stays 0) beside a changing child takes no
    /// part either: it made the outer composite's pages version 0 (probe 85).
    @Test func aCompositeOfUnchangingChildrenTakesNoPart() async throws {
        let flat = try CompositeTests.view("flat")
        let files = ListAdapter.composite(
            name: "files",
            title: "Files",
            children: [CompositeChild(name: "file", content: .list(CompositeTests.sample, view: flat), cap: 2)],
            signer: CompositeTests.signer
        )
        let nest = ListAdapter.composite(
            name: "nest",
            title: "Nest",
            children: [
                CompositeChild(name: "files", content: .list(files, view: try files.definition.view(named: nil))),
                CompositeChild(name: "store", content: .list(Self.list(at: 13), view: flat), cap: 2),
            ],
            signer: CompositeTests.signer
        )
        #expect(try await nest.page(view: nil, limit: "10", cursor: nil).version == 13)
        #expect(try await nest.sectionInfo(view: nil).version == 13)
    }
}

/// A composite's cursor is bound to its children (their names, lists, views with their
/// order and slice, caps and `more`): after a change of them, an old cursor is refused as
/// a plain view's is after its order changed, not read as a place among other children.
@Suite struct CompositeCursorBindingTests {
    static func screen(_ children: [(String, String, Int?)]) throws -> ListAdapter {
        ListAdapter.composite(
            name: "home",
            title: "Home",
            children: try children.map { name, view, cap in
                CompositeChild(
                    name: name,
                    content: .list(CompositeTests.sample, view: try CompositeTests.view(view)),
                    cap: cap
                )
            },
            signer: CompositeTests.signer
        )
    }

    @Test func aCursorOfOtherChildrenIsRefused() async throws {
        let before = try Self.screen([("first", "flat", nil), ("second", "flat", nil)])
        let cursor = try #require(try await before.page(view: nil, limit: "3", cursor: nil).next)
        // The same children: the cursor goes on.
        let same = try Self.screen([("first", "flat", nil), ("second", "flat", nil)])
        #expect(try await same.page(view: nil, limit: "3", cursor: cursor).items.count == 3)
        for changed in [
            [("second", "flat", nil), ("first", "flat", nil)], [("first", "by_day", nil), ("second", "flat", nil)],
            [("first", "flat", 5), ("second", "flat", nil)], [("first", "flat", nil)],
        ] as [[(String, String, Int?)]] {
            let after = try Self.screen(changed)
            let refused = await #expect(throws: DataMediatorError.self, "\(changed.map(\.0))") {
                _ = try await after.page(view: nil, limit: "3", cursor: cursor)
            }
            #expect(refused?.code == .cursorMismatch, "\(String(describing: refused))")
        }
    }
}
