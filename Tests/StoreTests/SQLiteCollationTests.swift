import DataMediator
import DataMediatorSQL
import DataMediatorSQLite
import DataMediatorTesting
import Foundation
import GRDB
import Testing

/// Tables other programs made on SQLite: a text column that declares `COLLATE NOCASE` or
/// `RTRIM` is compared, ordered, grouped and indexed bytewise, as the core and cursors
/// compare (SQLite used the column's collation: a walk at limit 1 of `b, A, a, B, c` served
/// three items, `/sections` counted `a` and `A` as one, and the slice `city=paris` held
/// `"paris "`); an id column that is not unique is refused at start (its items repeated).
@Suite struct SQLiteCollationTests {
    static let fields: [String: FieldType] = ["id": .integer, "name": .string, "city": .string]

    static let definition = ListDefinition(
        name: "people",
        title: "People",
        idField: "id",
        views: [
            View(
                name: "by_name",
                isDefault: true,
                sort: [SortKey("name"), SortKey("id")],
                idField: "id",
                section: SectionRule(field: "name", grouping: .value),
                cellType: .fixed("person"),
                fields: ["name", "city"],
                parameters: [ViewParameter(name: "city", field: "city", type: .string, isRequired: false)]
            )
        ]
    )

    static func database(_ statements: [String]) async throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("dm-collate-\(UUID()).sqlite").path
        try await DatabaseQueue(path: path).write { db in
            for statement in statements { try db.execute(sql: statement) }
        }
        return path
    }

    @Test func aColumnOfAnotherCollationIsComparedBytewise() async throws {
        let names = ["b", "A", "a", "B", "c", "a ", "ä", "A"]
        let cities = ["paris", "paris ", "PARIS", "rome"]
        let rows = (1...40).map { (id: $0, name: names[$0 % names.count], city: cities[$0 % cities.count]) }
        let path = try await Self.database(
            [
                "CREATE TABLE people (id INTEGER PRIMARY KEY, name TEXT COLLATE NOCASE NOT NULL, city TEXT COLLATE RTRIM)"
            ] + rows.map { "INSERT INTO people VALUES (\($0.id), '\($0.name)', '\($0.city)')" }
        )
        let store = try SQLiteStore(path: path)
        let adapter = try store.adapter(
            for: Self.definition,
            source: StoreSource(kind: .table("people"), fieldTypes: Self.fields),
            signer: CursorSigner(secret: SampleList.secret)
        )
        // Bytewise, as Swift compares these texts' UTF-8.
        let expected = rows.sorted {
            $0.name == $1.name ? $0.id < $1.id : $0.name.utf8.lexicographicallyPrecedes($1.name.utf8)
        }
        .map { "\($0.id)" }
        try await expectWalksAndOpens(adapter, view: "by_name", expected: expected)

        let sections = try await adapter.sectionInfo(view: "by_name").sections
        #expect(sections.map(\.id) == ["A", "B", "a", "a ", "b", "c", "ä"])
        #expect(sections.map(\.count).reduce(0, +) == rows.count)
        let paris = try await adapter.page(
            view: "by_name",
            limit: "50",
            cursor: nil,
            slice: SliceRequest(parameters: ["city": ["paris"]])
        )
        #expect(paris.items.map(\.id).sorted() == rows.filter { $0.city == "paris" }.map { "\($0.id)" }.sorted())
    }

    @Test func anIdColumnThatIsNotUniqueIsRefusedAtStart() async throws {
        let path = try await Self.database([
            "CREATE TABLE people (id INTEGER, name TEXT, city TEXT)",
            "INSERT INTO people VALUES (1, 'a', 'x'), (1, 'b', 'y')",
        ])
        let store = try SQLiteStore(path: path)
        #expect {
            _ = try store.provider(
                for: Self.definition,
                source: StoreSource(kind: .table("people"), fieldTypes: Self.fields)
            )
        } throws: { error in
            "\(error)".contains("its id column 'id' is not unique in table 'people'")
        }
        // A unique index on it is enough (at the next start).
        try await DatabaseQueue(path: path).write { db in
            try db.execute(sql: "DELETE FROM people WHERE name = 'b'")
            try db.execute(sql: "CREATE UNIQUE INDEX people_id ON people (id)")
        }
        _ = try SQLiteStore(path: path).provider(
            for: Self.definition,
            source: StoreSource(kind: .table("people"), fieldTypes: Self.fields)
        )
    }
}

extension SQLiteCollationTests {
    /// A CHECK without a name that refuses a write is told without its SQL (SQLite's
    /// message holds the check's expression: the table's definition, not the client's);
    /// a named one is told by its name.
    @Test func anUnnamedCheckIsToldWithoutItsSQL() async throws {
        let path = try await Self.database([
            "CREATE TABLE stock (id TEXT PRIMARY KEY NOT NULL, rev INTEGER, qty INTEGER CHECK (qty >= 0), "
                + "cap INTEGER CONSTRAINT cap_small CHECK (cap < 10))"
        ])
        let fields: [String: FieldType] = ["id": .string, "qty": .integer, "cap": .integer]
        let adapter = try SQLiteStore(path: path).adapter(
            for: ListDefinition(
                name: "stock",
                title: "Stock",
                idField: "id",
                revisionField: "rev",
                views: [
                    View(name: "all", sort: [SortKey("id")], idField: "id", cellType: .fixed("s"), fields: ["qty"])
                ],
                isWritable: true,
                rules: FieldRules(types: fields.filter { $0.key != "id" })
            ),
            source: StoreSource(kind: .table("stock"), fieldTypes: fields),
            signer: CursorSigner(secret: SampleList.secret)
        )
        for (data, told) in [("qty", "a check of the table without a name"), ("cap", "cap_small")] {
            let refused = await #expect(throws: DataMediatorError.self) {
                _ = try await adapter.create(
                    body: .object(["data": .object([data: .integer(20 * (data == "qty" ? -1 : 1))])])
                )
            }
            #expect(
                refused?.code == .invalidItem && refused?.message.contains(told) == true,
                "\(String(describing: refused))"
            )
            #expect(refused?.message.contains(">=") == false, "\(String(describing: refused))")
        }
    }
}

extension SQLiteCollationTests {
    /// A table named otherwise than the store spells it (`People` for `people`) is refused
    /// at start, naming both spellings: SQLite's names ignore case, the service's counters
    /// do not, and the second spelling's triggers were never made (its lists never saw a
    /// change). A query's `versions` are held to the same spelling.
    @Test func aTableSpeltInAnotherCaseIsRefusedAtStart() async throws {
        let path = try await Self.database(["CREATE TABLE people (id INTEGER PRIMARY KEY, name TEXT, city TEXT)"])
        let store = try SQLiteStore(path: path)
        _ = try store.provider(
            for: Self.definition,
            source: StoreSource(kind: .table("people"), fieldTypes: Self.fields)
        )
        for source in [
            StoreSource(kind: .table("People"), fieldTypes: Self.fields),
            StoreSource(kind: .query("SELECT * FROM people"), fieldTypes: Self.fields, versionTables: ["PEOPLE"]),
        ] {
            #expect {
                _ = try store.provider(for: Self.definition, source: source)
            } throws: { error in
                "\(error)".contains("is spelt 'people' in the store")
            }
        }
    }
}
