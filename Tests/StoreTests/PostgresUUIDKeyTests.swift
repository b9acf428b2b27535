import DataMediator
import DataMediatorPostgres
import DataMediatorSQL
import DataMediatorTesting
import Foundation
import PostgresNIO
import Testing

/// A table whose ids are PostgreSQL uuids, with a uuid column a view sorts and slices by:
/// it serves, pages, opens at an item and takes writes (it was refused at start); an id is
/// taken in the spelling PostgreSQL shows only, and the views' indexes serve their reads.
@Suite struct PostgresUUIDKeyTests {
    static let fields: [String: FieldType] = ["id": .string, "owner": .string, "name": .string, "rank": .integer]

    static let definition = definition(views: [
        View(
            name: "by_id",
            isDefault: true,
            sort: [SortKey("id", .descending)],
            idField: "id",
            cellType: .fixed("thing"),
            fields: ["owner", "name", "rank"]
        ),
        View(
            name: "by_owner",
            sort: [SortKey("owner"), SortKey("rank", .descending)],
            idField: "id",
            cellType: .fixed("thing"),
            fields: ["owner", "name", "rank"],
            parameters: [ViewParameter(name: "owner", field: "owner", type: .string, isRequired: false)]
        ),
    ])

    /// The list over the table with `views`.
    static func definition(views: [View]) -> ListDefinition {
        ListDefinition(
            name: "things",
            title: "Things",
            idField: "id",
            revisionField: "rev",
            views: views,
            isWritable: true,
            rules: FieldRules(types: fields.filter { $0.key != "id" })
        )
    }

    /// A store with a new uuid-keyed table `things` (its owner a uuid too).
    static func table() async throws -> PostgresFixture {
        let fixture = try await PostgresFixture()
        try await fixture.store.primary.query(
            "CREATE TABLE things (id uuid PRIMARY KEY, owner uuid, name text, rank bigint, rev bigint)"
        )
        return fixture
    }

    /// The adapter of `definition` over `fixture`'s table.
    static func adapter(_ definition: ListDefinition, over fixture: PostgresFixture) async throws -> ListAdapter {
        try await fixture.store.adapter(
            for: definition,
            source: StoreSource(kind: .table("things"), fieldTypes: fields),
            signer: CursorSigner(secret: SampleList.secret)
        )
    }

    /// A store over a new uuid-keyed table, and the adapter of `definition` over it.
    static func subject(_ definition: ListDefinition = definition) async throws -> (PostgresFixture, ListAdapter) {
        let fixture = try await table()
        return (fixture, try await adapter(definition, over: fixture))
    }

    /// The field `name` of a cell's data.
    static func field(_ name: String, of cell: Cell) -> JSONValue? {
        guard case .object(let data) = cell.data else { return nil }
        return data[name]
    }

    /// `text` with its letters in capitals.
    static func shouted(_ text: String) -> String { text.uppercased() }

    @Test func aUUIDKeyedListPagesOpensAtAnItemAndTakesWrites() async throws {
        let (fixture, adapter) = try await Self.subject()
        _ = fixture
        let owners = (0..<3).map { _ in UUID().uuidString.lowercased() }
        var items: [Item] = []
        for index in 0..<40 {
            let id = UUID().uuidString.lowercased()
            let owner = owners[index % owners.count]
            let data: JSONValue = .object([
                "owner": .string(owner), "name": .string("n\(index)"), "rank": .integer(Int64(index % 7)),
            ])
            _ = try await adapter.replace(id: id, body: .object(["data": data]))
            items.append(
                Item([
                    "id": .string(id), "owner": .string(owner), "name": .string("n\(index)"),
                    "rank": .integer(Int64(index % 7)),
                ])
            )
        }
        // A new item without an id gets a random (version 4) uuid, as PostgreSQL writes one.
        let created = try await adapter.create(
            body: .object(["data": .object(["owner": .string(owners[0]), "name": .string("new"), "rank": .integer(3)])])
        )
        let newID = created.cell.id
        #expect(UUIDText.isCanonical(newID), "\(newID)")
        #expect(Array(newID)[14] == "4" && "89ab".contains(Array(newID)[19]), "\(newID)")
        items.append(
            Item([
                "id": .string(newID), "owner": .string(owners[0]), "name": .string("new"), "rank": .integer(3),
            ])
        )
        for name in ["by_id", "by_owner"] {
            let view = try Self.definition.view(named: name)
            let expected = SampleList.expectedOrder(items, view: view).map { $0["id"].idString }
            try await expectWalksAndOpens(adapter, view: name, expected: expected)
        }
        // A slice by a uuid column: its items alone, in order.
        let sliced = try Self.definition.view(named: "by_owner")
        let slice = SliceRequest(parameters: ["owner": [owners[1]]])
        var check = try await SampleList.walk(adapter, view: "by_owner", limit: 4, slice: slice)
        check.expectOrder(
            SampleList.expectedOrder(items.filter { $0["owner"] == .string(owners[1]) }, view: sliced).map {
                $0["id"].idString
            }
        )
        #expect(check.violations == [])
        let nobody = try await adapter.page(
            view: "by_owner",
            limit: "5",
            cursor: nil,
            slice: SliceRequest(parameters: ["owner": ["not-a-uuid"]])
        )
        #expect(nobody.items.isEmpty)

        // Writes by id: a patch, a delete.
        let target = items[5]["id"].idString
        _ = try await adapter.patch(id: target, body: .object(["data": .object(["name": .string("patched")])]))
        #expect(Self.field("name", of: try await adapter.locate(id: target, view: nil).item) == .string("patched"))
        _ = try await adapter.delete(id: target)
        await #expect(throws: DataMediatorError.self) { _ = try await adapter.locate(id: target, view: nil) }
    }

    @Test func anIDInAnotherSpellingNamesNoItemAndIsNoNewOne() async throws {
        let (fixture, adapter) = try await Self.subject()
        _ = fixture
        let id = UUID().uuidString.lowercased()
        let data: JSONValue = .object(["data": .object(["name": .string("a"), "rank": .integer(1)])])
        _ = try await adapter.replace(id: id, body: data)
        let start = try await adapter.currentVersion()
        // PostgreSQL reads these as the same uuid; the service shows one spelling, and takes it alone.
        for other in [Self.shouted(id), "{\(id)}", id.replacingOccurrences(of: "-", with: ""), "not-a-uuid", "1"] {
            let located = await #expect(throws: DataMediatorError.self) {
                _ = try await adapter.locate(id: other, view: nil)
            }
            #expect(located?.code == .unknownItem, "\(other)")
            let around = await #expect(throws: DataMediatorError.self) {
                _ = try await adapter.page(view: nil, limit: "5", cursor: nil, around: other)
            }
            #expect(around?.code == .unknownItem, "\(other)")
            let replaced = await #expect(throws: DataMediatorError.self) {
                _ = try await adapter.replace(id: other, body: data)
            }
            #expect(replaced?.code == .invalidItem, "\(other)")
            let patched = await #expect(throws: DataMediatorError.self) {
                _ = try await adapter.patch(id: other, body: .object(["data": .object(["rank": .integer(2)])]))
            }
            #expect(patched?.code == .unknownItem, "\(other)")
            let deleted = await #expect(throws: DataMediatorError.self) { _ = try await adapter.delete(id: other) }
            #expect(deleted?.code == .unknownItem, "\(other)")
        }
        #expect(try await adapter.currentVersion() == start, "nothing was written")
        #expect(Self.field("rank", of: try await adapter.locate(id: id, view: nil).item) == .integer(1))
    }

    @Test func theViewsIndexesServeTheirReadsAndIDsSeekThePrimaryKey() async throws {
        let (fixture, _) = try await Self.subject()
        let definitions = try await fixture.indexDefinitions(of: "things")
        // The view's index holds the uuids as their text, in the "C" collation.
        #expect(
            definitions.contains { $0.contains("((id)::text) COLLATE \"C\" DESC") },
            "\(definitions)"
        )
        #expect(definitions.contains { $0.contains("((owner)::text) COLLATE \"C\"") }, "\(definitions)")
        for (sql, index) in [
            (
                "SELECT id FROM things WHERE (CAST(id AS text)) COLLATE \"C\" < 'm' "
                    + "ORDER BY (CAST(id AS text)) COLLATE \"C\" DESC LIMIT 5", "dm_"
            ),
            ("SELECT id FROM things WHERE id = CAST('\(UUID().uuidString.lowercased())' AS uuid)", "things_pkey"),
        ] {
            let plan = try await fixture.plan(sql)
            #expect(plan.contains("Index") && plan.contains(index), "\(sql): \(plan)")
        }
    }
}

extension PostgresUUIDKeyTests {
    /// A view that sections by a uuid column (a section an item) is refused at start with
    /// the way out.
    @Test func aViewThatSectionsByAUUIDIsRefusedAtStart() async throws {
        let fixture = try await Self.table()
        let definition = Self.definition(views: [
            View(
                name: "by_owner",
                isDefault: true,
                sort: [SortKey("owner")],
                idField: "id",
                section: SectionRule(field: "owner", grouping: .value),
                cellType: .fixed("thing"),
                fields: ["owner", "name", "rank"]
            )
        ])
        let error = await #expect(throws: StoreError.self) {
            _ = try await Self.adapter(definition, over: fixture)
        }
        let message = error.map { "\($0)" } ?? ""
        #expect(message.contains("sections by column 'owner', a uuid"), "\(message)")
    }
}

extension PostgresUUIDKeyTests {
    /// An import into a uuid-keyed table takes ids in the shown spelling; another spelling
    /// is a bad record (PostgreSQL would store it as the uuid, under another id than the
    /// record's, and the import told it "exists already" though it was stored).
    @Test func anImportTakesUUIDIdsInTheShownSpellingOnly() async throws {
        let (fixture, _) = try await Self.subject()
        let source = StoreSource(kind: .table("things"), fieldTypes: Self.fields)
        let provider = try await fixture.store.provider(for: Self.definition, source: source)
        let importer = try SQLImporter(reader: provider.reader, list: Self.definition, source: source)
        let ids = (0..<4).map { _ in UUID().uuidString.lowercased() }
        let records = [
            ImportRecord(line: 1, fields: ["id": .string(ids[0]), "rank": .integer(1)]),
            ImportRecord(line: 2, fields: ["id": .string(Self.shouted(ids[1])), "rank": .integer(2)]),
            ImportRecord(line: 3, fields: ["id": .string("not-a-uuid"), "rank": .integer(3)]),
            ImportRecord(line: 4, fields: ["id": .string(ids[3]), "rank": .integer(4)]),
        ]
        let summary = try await importer.run(records, skipBad: true, batch: 10)
        #expect(summary.imported == 2 && summary.rejections.map(\.line) == [2, 3], "\(summary.rejections)")
        #expect(
            summary.rejections.first?.reason.contains("must be a uuid in small letters") == true,
            "\(summary.rejections)"
        )
        let stored = try await fixture.store.primary.query("SELECT CAST(id AS text) FROM things")
        var found: Set<String> = []
        for try await id in stored.decode(String.self) { found.insert(id) }
        #expect(found == [ids[0], ids[3]])
    }
}

extension PostgresUUIDKeyTests {
    /// A list scoped by a uuid column: a caller whose claim is a uuid reads and writes their
    /// slice; a claim that is no uuid reads an empty slice, and its write is the item's
    /// refusal (the column cannot hold the claim), with nothing stored.
    @Test func aListScopedByAUUIDColumnServesEachCallersSlice() async throws {
        let base = Self.definition
        let definition = ListDefinition(
            name: base.name,
            title: base.title,
            idField: base.idField,
            revisionField: base.revisionField,
            views: [try base.view(named: "by_id")],
            isWritable: true,
            rules: base.rules,
            scope: ListScope(field: "owner", claim: "sub")
        )
        let (fixture, adapter) = try await Self.subject(definition)
        _ = fixture
        let (ana, ben) = (UUID().uuidString.lowercased(), UUID().uuidString.lowercased())
        let body: JSONValue = .object(["data": .object(["name": .string("n"), "rank": .integer(1)])])
        for owner in [ana, ana, ben] {
            _ = try await adapter.create(body: body, scope: WriteScope(field: "owner", value: .string(owner)))
        }
        func ids(_ sub: String) async throws -> [String] {
            let page = try await adapter.page(
                view: nil,
                limit: "10",
                cursor: nil,
                slice: SliceRequest(claims: ["sub": .string(sub)])
            )
            return page.items.map(\.id)
        }
        #expect(try await ids(ana).count == 2)
        #expect(try await ids(ben).count == 1)
        #expect(try await ids("bob").isEmpty)
        let start = try await adapter.currentVersion()
        let refused = await #expect(throws: DataMediatorError.self) {
            _ = try await adapter.create(body: body, scope: WriteScope(field: "owner", value: .string("bob")))
        }
        #expect(refused?.code == .invalidItem, "\(String(describing: refused))")
        // A claim that spells ana's uuid otherwise (capitals, no hyphens) is another caller:
        // it reads an empty slice, and may not write into ana's (PostgreSQL would store its
        // spelling as ana's uuid).
        for other in [ana.uppercased(), ana.replacingOccurrences(of: "-", with: "")] {
            #expect(try await ids(other).isEmpty)
            let intruded = await #expect(throws: DataMediatorError.self) {
                _ = try await adapter.create(body: body, scope: WriteScope(field: "owner", value: .string(other)))
            }
            #expect(intruded?.fieldProblems.map(\.field) == ["owner"], "\(String(describing: intruded))")
        }
        #expect(try await adapter.currentVersion() == start)
        #expect(try await ids(ana).count == 2)
    }
}
