import DataMediator
import DataMediatorSQL
import DataMediatorTesting
import Testing

/// Ids and section keys are compared byte for byte by every provider, as the stores keep
/// them: "é" as U+00E9 and as "e" + U+0301 (one string to Swift's `==`) are two items and
/// two sections, read, counted, located, written and placed by changes apart.
@Suite struct ExactIDConformanceTests {
    static let composed = "\u{E9}"
    static let decomposed = "e\u{301}"

    /// Eight items, their groups alternating the two spellings (so the two sections are
    /// neighbours in byte order), two of their ids the two spellings of "éq".
    static func items() -> [Item] {
        SampleList.items(count: 8).enumerated().map { index, item in
            var item = item
            item["group"] = .string(index % 2 == 0 ? composed : decomposed)
            item["score"] = .integer(Int64(index))
            if index == 2 { item["id"] = .string(composed + "q") }
            if index == 5 { item["id"] = .string(decomposed + "q") }
            return item
        }
    }

    static func bytes(_ texts: [String]) -> [[UInt8]] { texts.map { Array($0.utf8) } }

    @Test(
        "ids and section keys that differ only in their Unicode form are read apart",
        arguments: ProviderKind.allCases
    )
    func readsKeepThemApart(kind: ProviderKind) async throws {
        let items = Self.items()
        let subject = try await ProviderConformanceTests.Subject(kind, items: items)
        let adapter = subject.adapter
        for name in ["by_group", "flat"] {
            let view = try SampleList.definition.view(named: name)
            let expected = SampleList.expectedOrder(items, view: view).map { $0["id"].idString }
            for limit in [1, 2, 3] {
                var check = try await SampleList.walk(adapter, view: name, limit: limit)
                check.expectOrder(expected)
                check.expectSections(try await adapter.sectionInfo(view: name).sections)
                #expect(check.violations == [], "\(name) limit \(limit)")
            }
            for (position, id) in expected.enumerated() {
                let location = try await adapter.locate(id: id, view: name)
                #expect(location.position == position && location.item.id.utf8.elementsEqual(id.utf8), "\(name) \(id)")
                let around = try await adapter.page(view: name, limit: "3", cursor: nil, around: id)
                #expect(
                    Self.bytes(around.items.map(\.id))
                        == Self.bytes(Array(expected[max(0, position - 1)...].prefix(3))),
                    "\(name) around \(id)"
                )
            }
        }
        // The two sections are counted apart though they are neighbours (NULL and "" are merged).
        let sections = try await adapter.sectionInfo(view: "by_group").sections
        #expect(Self.bytes(sections.map(\.id)) == Self.bytes([Self.decomposed, Self.composed]))
        #expect(sections.map(\.count) == [4, 4])
    }

    @Test(
        "writes keep ids that differ only in their Unicode form apart, and changes place them",
        arguments: WritableKind.allCases
    )
    func writesKeepThemApart(kind: WritableKind) async throws {
        let subject = try await WritableSubject(kind)
        defer { withExtendedLifetime(subject) {} }
        let adapter = subject.adapter
        @discardableResult
        func put(_ id: String, group: String, score: Int64) async throws -> WrittenItem {
            let data: JSONValue = .object([
                "group": .string(group), "score": .integer(score), "title": .string("t " + id),
                "created": .string("2026-11-01T10:00:00Z"), "kind": .string("big"),
            ])
            return try await adapter.replace(id: id, body: .object(["data": data]))
        }
        try await put("a", group: Self.decomposed, score: 2)
        try await put(Self.decomposed + "q", group: Self.decomposed, score: 1)
        var replica = try await ChangeReplayTests.replica(of: adapter, view: "by_group", limit: 10)
        // Counts read now are kept and carried over the writes (a store's outline).
        _ = try await adapter.sectionInfo(view: "by_group")
        let since = try await adapter.currentVersion()
        // The first item of a section "é" follows the last of "e" + U+0301 in byte order:
        // its change names that section as the one before, not the item as its neighbour.
        let created = try await put(Self.composed + "q", group: Self.composed, score: 1)
        #expect(created.created && created.cell.rev == "1", "a new item, not the other spelling's")
        try await put("b", group: Self.composed, score: 0)
        try await put(Self.composed + "q", group: Self.composed, score: 3)
        try await put("b", group: Self.composed, score: 5)
        let changes = try await adapter.changes(view: "by_group", since: String(since), limit: nil)
        for entry in changes.entries { replica.apply(entry) }
        let fresh = try await ChangeReplayTests.replica(of: adapter, view: "by_group", limit: 10)
        #expect(Self.bytes(replica.outline) == Self.bytes(fresh.outline))
        #expect(replica.unknownNeighbours == 0)
        #expect(fresh.sections.map(\.cells.count) == [2, 2])
        // The counts carried over the writes, and the places they give, are the walk's.
        var walk = try await SampleList.walk(adapter, view: "by_group", limit: 3)
        walk.expectSections(try await adapter.sectionInfo(view: "by_group").sections)
        #expect(walk.violations == [])
        for (position, cell) in walk.items.enumerated() {
            let location = try await adapter.locate(id: cell.id, view: "by_group")
            #expect(
                [location.position, location.sectionIndex, location.itemIndex] == [
                    position, position / 2, position % 2,
                ],
                "\(cell.id)"
            )
        }

        for (id, title) in [(Self.composed + "q", "t \u{E9}q"), (Self.decomposed + "q", "t e\u{301}q")] {
            let location = try await adapter.locate(id: id, view: "by_group")
            #expect(location.item.id.utf8.elementsEqual(id.utf8))
            #expect(location.item.data.objectValue?["title"] == .string(title), "\(id)")
        }
        // Deleting one spelling leaves the other.
        _ = try await adapter.delete(id: Self.decomposed + "q")
        let left = try await SampleList.walk(adapter, view: "flat", limit: 10).items.map(\.id)
        #expect(
            Self.bytes(left).sorted { $0.lexicographicallyPrecedes($1) } == Self.bytes(["a", "b", Self.composed + "q"])
        )
    }

    /// An import told a new id from an existing one of the other spelling by the ids the
    /// statement stored: taken for one, the existing record passed as stored and the new
    /// one was reported as existing.
    @Test(arguments: [WritableKind.sqlite, .postgres])
    func anImportTellsAnExistingIdFromANewOneOfTheOtherForm(kind: WritableKind) async throws {
        let subject = try await WritableSubject(kind)
        defer { withExtendedLifetime(subject) {} }
        let data: JSONValue = .object(["title": .string("first"), "score": .integer(1), "group": .string("g")])
        _ = try await subject.adapter.create(body: .object(["id": .string(Self.composed + "q"), "data": data]))
        func record(_ line: Int, _ id: String) -> ImportRecord {
            ImportRecord(
                line: line,
                fields: ["id": .string(id), "title": .string("t"), "score": .integer(2), "group": .string("g")]
            )
        }
        let summary = try await subject.importer().run(
            [record(1, Self.composed + "q"), record(2, Self.decomposed + "q")],
            skipBad: true,
            batch: 10
        )
        #expect(summary.imported == 1, "\(summary.rejections)")
        #expect(summary.rejections.map(\.line) == [1], "\(summary.rejections)")
        #expect(summary.rejections.first?.reason.contains("exists already") == true, "\(summary.rejections)")
        let stored = try await subject.adapter.locate(id: Self.decomposed + "q", view: "flat")
        #expect(stored.item.data.objectValue?["title"] == .string("t"))
    }
}
