import DataMediator
import DataMediatorSQL
import DataMediatorTesting
import Foundation
import PostgresNIO
import Testing

@testable import DataMediatorPostgres

/// `NaN` and the infinities in a `real`, `double precision` or `numeric` sort key (written
/// by another program: JSON holds none of them). A page shows them as null, but a cursor
/// carries them and they sort where PostgreSQL sorts them: -Infinity first, then every
/// number, Infinity, NaN. Before, a numeric NaN was read as null and its position compared
/// as null (a walk stopped at it, `around` it was empty), and a real NaN's position never
/// equalled itself: a write to its row asked the same reads for ever, holding its
/// transaction and a core (probes 41 and this session's).
@Suite struct PostgresNonFiniteKeyTests {
    static let fields: [String: FieldType] = [
        "id": .integer, "r": .number, "d": .number, "n": .number, "label": .string,
    ]

    static let views: [(name: String, column: String, descending: Bool)] = [
        ("by_r", "r", false), ("by_d_desc", "d", true), ("by_n", "n", false), ("by_n_desc", "n", true),
    ]

    static let definition = ListDefinition(
        name: "readings",
        title: "Readings",
        idField: "id",
        revisionField: "rev",
        views: views.enumerated().map { index, view in
            View(
                name: view.name,
                isDefault: index == 0,
                sort: [SortKey(view.column, view.descending ? .descending : .ascending)],
                idField: "id",
                cellType: .fixed("reading"),
                fields: ["r", "d", "n", "label"]
            )
        },
        isWritable: true,
        rules: FieldRules(types: fields.filter { $0.key != "id" })
    )

    /// The ids of a walk of `view` from its start, `limit` items a page, following `next`
    /// (or from its end following `prev`, given the last page's `prev`, in walk order).
    static func walk(_ adapter: ListAdapter, view: String, limit: Int) async throws -> [String] {
        var ids: [String] = []
        var cursor: String?
        repeat {
            let page = try await adapter.page(view: view, limit: String(limit), cursor: cursor)
            ids += page.items.map(\.id)
            cursor = page.next
        } while cursor != nil && ids.count < 100
        return ids
    }

    @Test func aWalkPassesNaNAndTheInfinitiesAndAWriteToTheirRowEnds() async throws {
        let fixture = try await PostgresFixture()
        try await fixture.store.primary.query(
            "CREATE TABLE readings (id bigint PRIMARY KEY, r real, d double precision, n numeric, label text, rev bigint)"
        )
        let values = ["'NaN'", "'Infinity'", "'-Infinity'", "NULL", "0", "1.5", "-2", "1e30", "'NaN'", "3"]
        let rows = values.enumerated().map { index, value in
            // Each column a different turn of the values, so the views differ.
            let turn = { (by: Int) in values[(index + by) % values.count] }
            return "(\(index + 1), \(turn(0)), \(turn(3)), \(turn(7)), 'x', 1)"
        }
        try await fixture.store.primary.query(
            PostgresQuery(unsafeSQL: "INSERT INTO readings VALUES " + rows.joined(separator: ", "))
        )
        let adapter = try await fixture.store.adapter(
            for: Self.definition,
            source: StoreSource(kind: .table("readings"), fieldTypes: Self.fields),
            signer: CursorSigner(secret: SampleList.secret)
        )
        for view in Self.views {
            // PostgreSQL's own order, nulls where the service puts them (first ascending).
            let direction = view.descending ? "DESC NULLS LAST" : "ASC NULLS FIRST"
            let ordered = try await fixture.store.primary.query(
                PostgresQuery(
                    unsafeSQL:
                        "SELECT id FROM readings ORDER BY \(view.column) \(direction), id \(view.descending ? "DESC" : "ASC")"
                )
            )
            var expected: [String] = []
            for try await id in ordered.decode(Int64.self) { expected.append(String(id)) }
            for limit in [1, 3] {
                let walked = try await Self.walk(adapter, view: view.name, limit: limit)
                #expect(walked == expected, "\(view.name), limit \(limit)")
            }
            // Backward from the last page: the same items, in the same order.
            var last = try await adapter.page(view: view.name, limit: "2", cursor: nil, around: expected.last)
            var backward = last.items.map(\.id)
            while let prev = last.prev, backward.count < 100 {
                last = try await adapter.page(view: view.name, limit: "2", cursor: prev)
                backward = last.items.map(\.id) + backward
            }
            #expect(backward == expected, "\(view.name) backward")
            for id in expected {
                let page = try await adapter.page(view: view.name, limit: "3", cursor: nil, around: id)
                #expect(page.items.contains { $0.id == id }, "\(view.name) around \(id)")
            }
        }
        // A write to a row whose keys are NaN ends, is stored and logged.
        let before = try await adapter.currentVersion()
        let patched = try await adapter.patch(id: "1", body: .object(["data": .object(["label": .string("y")])]))
        #expect(patched.cell.data.objectValue?["label"] == .string("y"))
        let changes = try await adapter.changes(view: "by_n", since: String(before), limit: nil)
        #expect(changes.entries.map(\.id) == ["1"], "\(changes.entries)")
    }
}
