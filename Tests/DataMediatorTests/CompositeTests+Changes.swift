import DataMediator
import DataMediatorTesting
import Synchronization
import Testing

/// A composite's changes: its children's writes in its own ids and versions.
extension CompositeTests {
    /// A writable in-memory list of notes sorted by title.
    static func notes() -> ListAdapter {
        let (definition, store) = notesStore()
        return ListAdapter(definition: definition, provider: store, signer: signer, writer: store, changeLog: store)
    }

    /// The definition and the in-memory store of ``notes()``.
    static func notesStore() -> (ListDefinition, InMemoryDataProvider) {
        let definition = ListDefinition(
            name: "notes",
            title: "Notes",
            idField: "id",
            revisionField: "rev",
            views: [
                View(name: "all", sort: [SortKey("title")], idField: "id", cellType: .fixed("note"), fields: ["title"])
            ],
            isWritable: true,
            rules: FieldRules(types: ["title": .string])
        )
        return (definition, InMemoryDataProvider(definition: definition, columns: ["title"]))
    }

    /// A child that keeps no change log (a file list: its items were read at start) adds
    /// nothing to the composite's changes, capped or not. Its version is 0 for good: it
    /// answered `410` to every `since` past 0 (uncapped), or a `reload` to every read
    /// (capped), and no write to the other children reached a follower.
    @Test(arguments: [nil, 2] as [Int?])
    func aChildWithoutAChangeLogAddsNothingToTheChanges(cap: Int?) async throws {
        let notes = Self.notes()
        let view = try notes.definition.view(named: nil)
        let fileView = try Self.sample.definition.view(named: nil)
        let screen = ListAdapter.composite(
            name: "s",
            title: "S",
            children: [
                CompositeChild(name: "faq", content: .list(Self.sample, view: fileView), cap: cap, more: cap != nil),
                CompositeChild(name: "one", content: .list(notes, view: view)),
            ],
            signer: Self.signer
        )
        for title in ["a", "b"] {
            _ = try await notes.create(
                body: .object(["id": .string(title), "data": .object(["title": .string(title)])])
            )
        }
        let none = try await screen.changes(view: nil, since: "2", limit: nil)
        #expect(none.version == 2 && none.entries.isEmpty, "\(none.entries)")
        let one = try await screen.changes(view: nil, since: "1", limit: nil)
        #expect(one.entries.map { "\($0.operation.rawValue) \($0.id) \($0.version)" } == ["insert one/b 2"])
    }

    @Test func aChildsWritesAreTheCompositesChangesInItsIds() async throws {
        let notes = Self.notes()
        let view = try notes.definition.view(named: nil)
        for title in ["a", "c"] {
            _ = try await notes.create(
                body: .object(["id": .string(title), "data": .object(["title": .string(title)])])
            )
        }
        let screen = ListAdapter.composite(
            name: "s",
            title: "S",
            children: [Self.welcome(1), CompositeChild(name: "one", content: .list(notes, view: view))],
            signer: Self.signer
        )
        let capped = ListAdapter.composite(
            name: "c",
            title: "C",
            children: [CompositeChild(name: "top", content: .list(notes, view: view), cap: 1)],
            signer: Self.signer
        )
        #expect(try await screen.page(view: nil, limit: nil, cursor: nil).version == 2)
        _ = try await notes.create(body: .object(["id": .string("b"), "data": .object(["title": .string("b")])]))
        _ = try await notes.delete(id: "c")
        let changes = try await screen.changes(view: nil, since: "2", limit: nil)
        #expect(changes.version == 4 && changes.entries.map(\.version) == [3, 4])
        let insert = try #require(changes.entries.first)
        #expect(insert.operation == .insert && insert.cell?.id == "one/b" && insert.cell?.type == "note")
        #expect(insert.placement == Placement(section: "one/all", sectionAfter: "welcome/hello", after: "one/a"))
        #expect(changes.entries.last.map { [$0.operation.rawValue, $0.id] } == ["delete", "one/c"])
        // A new first section of a child comes after the last section of the child before it.
        _ = try await notes.delete(id: "a")
        _ = try await notes.delete(id: "b")
        _ = try await notes.create(body: .object(["id": .string("d"), "data": .object(["title": .string("d")])]))
        let placed = try await screen.changes(view: nil, since: "6", limit: nil).entries
        #expect(placed.first?.placement == Placement(section: "one/all", sectionAfter: "welcome/hello", after: nil))
        // A capped child's changes are what its first item went through: "a" until "a" was
        // deleted (5), then "b" until it was deleted (6), then "d"; the rest never showed.
        let capped7 = try await capped.changes(view: nil, since: "2", limit: nil)
        #expect(
            capped7.entries.map { "\($0.operation.rawValue) \($0.id) \($0.version)" } == [
                "delete top/a 5", "insert top/b 5", "delete top/b 6", "insert top/d 7",
            ]
        )
        // Composites are read-only.
        let refused = await #expect(throws: DataMediatorError.self) {
            _ = try await screen.create(body: .object(["data": .object([:])]))
        }
        #expect(refused?.code == .readOnly)
    }

    @Test func anAnswerNeverEndsInsideOneWritesChanges() async throws {
        let notes = Self.notes()
        let view = try notes.definition.view(named: nil)
        // The same list twice: every write changes the composite in two places.
        let twice = ListAdapter.composite(
            name: "twice",
            title: "Twice",
            children: [
                CompositeChild(name: "a", content: .list(notes, view: view)),
                CompositeChild(name: "b", content: .list(notes, view: view)),
            ],
            signer: Self.signer
        )
        for title in ["x", "y", "z"] {
            _ = try await notes.create(body: .object(["data": .object(["title": .string(title)])]))
        }
        var since = "0"
        var answers: [[String]] = []
        while true {
            let answer = try await twice.changes(view: nil, since: since, limit: "3")
            answers.append(answer.entries.map { "\($0.version) \($0.cell?.id.prefix(2) ?? "")" })
            guard let next = answer.next else { break }
            since = String(next)
        }
        #expect(answers == [["1 a/", "1 b/"], ["2 a/", "2 b/"], ["3 a/", "3 b/"]])
        // A limit smaller than one write's changes still answers them all.
        let one = try await twice.changes(view: nil, since: "0", limit: "1")
        #expect(one.entries.map(\.version) == [1, 1] && one.next == 1)
    }

    /// A change log that answers one fixed window, whatever is asked.
    struct FixedChangeLog: ChangeLog {
        let window: ChangeWindow
        func changes(of view: View, since: Int64, limit: Int) async throws -> ChangeWindow { window }
    }

    @Test func aCompositesChangesStopAtTheVersionItReadBeforeItsChildren() async throws {
        // The child's source said version 1 when the composite read its version; a write
        // landed before the composite read the child's log, which so holds version 2 too.
        let deletes = (1...2).map {
            Change(operation: .delete, version: Int64($0), id: "item-0\($0)", item: nil, placement: nil)
        }
        let child = ListAdapter(
            definition: SampleList.definition,
            provider: ArrayDataProvider(items: SampleList.items(), idField: "id", views: SampleList.views, version: 1),
            signer: Self.signer,
            changeLog: FixedChangeLog(window: ChangeWindow(changes: deletes, version: 2))
        )
        let composite = ListAdapter.composite(
            name: "screen",
            title: "Screen",
            children: [CompositeChild(name: "s", content: .list(child, view: try Self.view("flat")))],
            signer: Self.signer
        )
        let view = try composite.definition.view(named: nil)
        // Version 2 waits for the next read: a reader resuming from version 1 gets it once.
        let first = try await composite.changes(of: view, since: 0, limit: 10)
        #expect(first.version == 1 && first.entries.map(\.version) == [1])
    }

    /// A capped child that no write reached since is not read for the composite's changes
    /// (its first items were read for every capped child, so a composite of 100 of them
    /// read 100 times its cap for one write to one, on every `/changes` and every event).
    @Test func aCappedChildWithoutChangesIsNotRead() async throws {
        let providers = (0..<2).map { _ in CountedProvider() }
        let gone = SampleList.items()[1]
        let deletes = [
            Change(operation: .delete, version: 0, id: gone["id"].idString, item: nil, placement: nil, old: gone)
        ]
        let logs = [ChangeWindow(changes: [], version: 0), ChangeWindow(changes: deletes, version: 0)]
        let children = try ["quiet", "written"].enumerated().map { index, name in
            CompositeChild(
                name: name,
                content: .list(
                    ListAdapter(
                        definition: SampleList.definition,
                        provider: providers[index],
                        signer: Self.signer,
                        changeLog: FixedChangeLog(window: logs[index])
                    ),
                    view: try Self.view("flat")
                ),
                cap: 3,
                more: true
            )
        }
        let composite = ListAdapter.composite(name: "screen", title: "Screen", children: children, signer: Self.signer)
        let view = try composite.definition.view(named: nil)
        let before = providers.map { $0.windows.withLock { $0 } }
        _ = try await composite.changes(of: view, since: 0, limit: 10)
        let reads = zip(providers, before).map { provider, start in provider.windows.withLock { $0 } - start }
        #expect(reads[0] == 0, "the quiet child was read \(reads[0]) times")
        #expect(reads[1] > 0)
    }
}
