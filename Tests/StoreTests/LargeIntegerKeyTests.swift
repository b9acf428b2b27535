import DataMediator
import DataMediatorSQL
import DataMediatorSQLite
import DataMediatorTesting
import Foundation
import GRDB
import PostgresNIO
import Testing

@testable import DataMediatorPostgres

/// A `number` sort key over an integer column holding whole numbers past 2^53 (epoch
/// nanoseconds, snowflake ids): each is shown, and a cursor holds it, as the column does.
/// As doubles, 2^53 and 2^53 + 1 were one value: a walk at limit 1 served ids 1-5 and 10,
/// then ended, never serving the distinct values after them (review 107 #2).
@Suite struct LargeIntegerKeyTests {
    static let fields: [String: FieldType] = ["id": .integer, "x": .number]

    static let definition = ListDefinition(
        name: "big",
        title: "Big",
        idField: "id",
        revisionField: "rev",
        views: [
            View(
                name: "x",
                isDefault: true,
                sort: [SortKey("x")],
                idField: "id",
                cellType: .fixed("big"),
                fields: ["x"],
                parameters: [ViewParameter(name: "x", field: "x", type: .number, isRequired: false)]
            ),
            View(name: "xd", sort: [SortKey("x", .descending)], idField: "id", cellType: .fixed("big"), fields: ["x"]),
        ],
        isWritable: true,
        rules: FieldRules(types: ["x": .number])
    )

    static let base: Int64 = 9_007_199_254_740_992

    /// Review 107's rows: (id, x).
    static let rows: [(Int64, Int64)] = [
        (1, 0), (2, base), (3, base + 1), (4, base), (5, base + 1), (10, base),
        (6, base + 8), (7, base + 1008), (8, base + 2008), (9, base + 3008),
    ]

    /// The ids in the database's order of `view`: by `x`, then by id, both one way.
    static func expected(_ view: String) -> [String] {
        let ascending = rows.sorted { $0.1 == $1.1 ? $0.0 < $1.0 : $0.1 < $1.1 }.map { String($0.0) }
        return view == "x" ? ascending : ascending.reversed()
    }

    static func expectServed(_ adapter: ListAdapter) async throws {
        for view in ["x", "xd"] {
            try await expectWalksAndOpens(adapter, view: view, expected: Self.expected(view))
        }
        let page = try await adapter.page(view: "x", limit: "20", cursor: nil)
        let shown = page.items.first { $0.id == "3" }?.data.objectValue?["x"]
        #expect(shown == .integer(Self.base + 1))
        // A slice of the value takes its items alone, and a write keeps the value it is given.
        let slice = try await adapter.page(
            view: "x",
            limit: "20",
            cursor: nil,
            slice: SliceRequest(parameters: ["x": [String(Self.base + 1)]])
        )
        #expect(slice.items.map(\.id) == ["3", "5"])
        let written = try await adapter.create(
            body: .object(["id": .integer(11), "data": .object(["x": .integer(Self.base + 3)])])
        )
        #expect(written.cell.data.objectValue?["x"] == .integer(Self.base + 3))
        let read = try await adapter.page(view: "x", limit: "20", cursor: nil).items.first { $0.id == "11" }
        #expect(read?.data.objectValue?["x"] == .integer(Self.base + 3))
    }

    @Test func sqliteWalksEveryItemInTheColumnsOrder() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("dm-big-\(UUID()).sqlite").path
        try await DatabaseQueue(path: path).write { db in
            try db.execute(sql: "CREATE TABLE big (id INTEGER PRIMARY KEY, x INTEGER, rev INTEGER NOT NULL DEFAULT 1)")
            for (id, x) in Self.rows {
                try db.execute(sql: "INSERT INTO big (id, x) VALUES (?, ?)", arguments: [id, x])
            }
        }
        let adapter = try SQLiteStore(path: path).adapter(
            for: Self.definition,
            source: StoreSource(kind: .table("big"), fieldTypes: Self.fields),
            signer: CursorSigner(secret: SampleList.secret)
        )
        try await Self.expectServed(adapter)
    }

    @Test func postgresWalksEveryItemInTheColumnsOrder() async throws {
        let fixture = try await PostgresFixture()
        try await fixture.store.primary.query(
            "CREATE TABLE big (id bigint PRIMARY KEY, x bigint, rev bigint NOT NULL DEFAULT 1)"
        )
        let values = Self.rows.map { "(\($0.0), \($0.1))" }.joined(separator: ", ")
        try await fixture.store.primary.query(PostgresQuery(unsafeSQL: "INSERT INTO big (id, x) VALUES " + values))
        let adapter = try await fixture.store.adapter(
            for: Self.definition,
            source: StoreSource(kind: .table("big"), fieldTypes: Self.fields),
            signer: CursorSigner(secret: SampleList.secret)
        )
        try await Self.expectServed(adapter)
    }
}
