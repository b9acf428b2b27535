import DataMediator
import DataMediatorPostgres
import DataMediatorSQL
import DataMediatorSQLite
import DataMediatorTesting
import Foundation
import GRDB
import PostgresNIO
import Testing

/// A field a created item's body does not give takes its column's default, as any other
/// insert into the table would (it was written as null: a `NOT NULL DEFAULT` column
/// refused the item); a field given as null is null, and a `PUT` that replaces an item
/// still empties the fields it does not give.
@Suite struct ColumnDefaultTests {
    static let fields: [String: FieldType] = ["id": .string, "title": .string, "kind": .string, "score": .integer]

    static let definition = ListDefinition(
        name: "notes",
        title: "Notes",
        idField: "id",
        revisionField: "rev",
        views: [
            View(
                name: "all",
                sort: [SortKey("title")],
                idField: "id",
                cellType: .fixed("note"),
                fields: ["title", "kind", "score"]
            )
        ],
        isWritable: true,
        rules: FieldRules(types: fields.filter { $0.key != "id" })
    )

    static let table = """
        CREATE TABLE notes (id text PRIMARY KEY NOT NULL, rev bigint, title text,
            kind text NOT NULL DEFAULT 'plain', score bigint DEFAULT 7)
        """

    /// The adapter over a `notes` table with column defaults, made before the store
    /// opens it, and what keeps the store open.
    static func subject(_ kind: WritableKind) async throws -> (ListAdapter, holds: Any) {
        let source = StoreSource(kind: .table("notes"), fieldTypes: fields)
        let signer = CursorSigner(secret: SampleList.secret)
        if kind == .postgres {
            let fixture = try await PostgresFixture()
            try await fixture.store.primary.query(PostgresQuery(unsafeSQL: table))
            return (try await fixture.store.adapter(for: definition, source: source, signer: signer), fixture)
        }
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("dm-defaults-\(UUID()).sqlite").path
        try await DatabaseQueue(path: path).write { try $0.execute(sql: table) }
        let store = try SQLiteStore(path: path)
        return (try store.adapter(for: definition, source: source, signer: signer), store)
    }

    @Test(arguments: [WritableKind.sqlite, .postgres])
    func aFieldACreateDoesNotGiveTakesItsColumnsDefault(kind: WritableKind) async throws {
        let (adapter, holds) = try await Self.subject(kind)
        defer { withExtendedLifetime(holds) {} }
        func data(_ cell: Cell) -> JSONValue { cell.data }

        let plain = try await adapter.create(
            body: .object(["id": .string("a"), "data": .object(["title": .string("a")])])
        )
        #expect(data(plain.cell) == .object(["title": .string("a"), "kind": .string("plain"), "score": .integer(7)]))
        // Given as null: null (here a NOT NULL column refuses it, and nothing is stored).
        let emptied = try await adapter.create(
            body: .object([
                "id": .string("b"), "data": .object(["title": .string("b"), "kind": .string("k"), "score": .null]),
            ])
        )
        #expect(data(emptied.cell) == .object(["title": .string("b"), "kind": .string("k"), "score": .null]))
        await #expect {
            try await adapter.create(body: .object(["id": .string("c"), "data": .object(["kind": .null])]))
        } throws: { error in
            // `errors` names the column the store refused a null for.
            guard let error = error as? DataMediatorError else { return false }
            return error.code == .invalidItem && error.fieldProblems.map(\.field) == ["kind"]
        }
        // A PUT that creates takes the defaults; one that replaces empties what it lacks.
        let created = try await adapter.replace(id: "p", body: .object(["data": .object(["title": .string("p")])]))
        #expect(data(created.cell) == .object(["title": .string("p"), "kind": .string("plain"), "score": .integer(7)]))
        let replaced = try await adapter.replace(id: "p", body: .object(["data": .object(["kind": .string("q")])]))
        #expect(data(replaced.cell) == .object(["title": .null, "kind": .string("q"), "score": .null]))
        // The change log holds the item as stored.
        let changes = try await adapter.changes(view: "all", since: "0", limit: nil)
        #expect(changes.entries.first?.cell?.data == data(plain.cell))
    }
}

extension ColumnDefaultTests {
    /// An imported record takes its columns' defaults for the fields it lacks, as a created
    /// item does, in one statement of many records (PostgreSQL) as alone (SQLite); a field
    /// given as null is null.
    @Test(arguments: [WritableKind.sqlite, .postgres])
    func anImportedRecordTakesTheDefaultsOfWhatItLacks(kind: WritableKind) async throws {
        let (adapter, holds) = try await Self.subject(kind)
        defer { withExtendedLifetime(holds) {} }
        let source = StoreSource(kind: .table("notes"), fieldTypes: Self.fields)
        let reader: SQLListReader
        if let fixture = holds as? PostgresFixture {
            reader = try await fixture.store.provider(for: Self.definition, source: source).reader
        } else {
            reader =
                try (holds as? SQLiteStore)?.provider(for: Self.definition, source: source).reader
                ?? {
                    throw FixtureError("no store")
                }()
        }
        let importer = try SQLImporter(reader: reader, list: Self.definition, source: source)
        let records = [
            ImportRecord(line: 1, fields: ["id": .string("a"), "title": .string("a")]),
            ImportRecord(line: 2, fields: ["id": .string("b"), "title": .string("b"), "score": .null]),
            ImportRecord(line: 3, fields: ["id": .string("c"), "kind": .string("k"), "score": .integer(3)]),
        ]
        let summary = try await importer.run(records, skipBad: true, batch: 10)
        #expect(summary.imported == 3 && summary.rejections.isEmpty, "\(summary.rejections)")
        // Given as null, a NOT NULL column refuses it: a bad record.
        let refused = try await importer.run(
            [ImportRecord(line: 1, fields: ["id": .string("d"), "kind": .null])],
            skipBad: true,
            batch: 10
        )
        #expect(refused.imported == 0 && refused.rejections.map(\.line) == [1], "\(refused.rejections)")
        let page = try await adapter.page(view: "all", limit: "10", cursor: nil)
        // The revision column has no default: an imported item's is 1, as a created one's.
        #expect(page.items.map(\.rev) == ["1", "1", "1"])
        #expect(
            page.items.map(\.data) == [
                .object(["title": .null, "kind": .string("k"), "score": .integer(3)]),
                .object(["title": .string("a"), "kind": .string("plain"), "score": .integer(7)]),
                .object(["title": .string("b"), "kind": .string("plain"), "score": .null]),
            ]
        )
    }
}
