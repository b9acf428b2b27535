import DataMediator
import DataMediatorSQL
import DataMediatorTesting
import Foundation
import GRDB
import Testing

@testable import DataMediatorSQLite

/// The indexes a table's list gets: one per order its views and slices read, none that
/// another already serves (every write keeps each index), and every page still one index
/// range with no sort.
@Suite struct ViewIndexTests {
    /// Two views of one order, a view led by its own parameter's field, and parameters that
    /// lead (or not) an order another view already has.
    static let list = ListDefinition(
        name: "indexed",
        title: "Indexed",
        idField: "id",
        views: [
            View(
                name: "newest",
                sort: [SortKey("created", .descending)],
                idField: "id",
                cellType: .fixed("row"),
                fields: ["title"],
                parameters: [ViewParameter(name: "kind", field: "kind", type: .string, isRequired: false)]
            ),
            View(
                name: "latest",
                sort: [SortKey("created", .descending)],
                idField: "id",
                cellType: .fixed("row"),
                fields: ["title"]
            ),
            View(
                name: "in_group",
                sort: [SortKey("group"), SortKey("created", .descending)],
                idField: "id",
                cellType: .fixed("row"),
                fields: ["title"],
                parameters: [
                    ViewParameter(name: "group", field: "group", type: .string, isRequired: false),
                    ViewParameter(name: "kind", field: "kind", type: .string, isRequired: false),
                ]
            ),
            View(
                name: "top_of_kind",
                sort: [SortKey("score", .descending)],
                idField: "id",
                cellType: .fixed("row"),
                fields: ["title"],
                parameters: [ViewParameter(name: "kind", field: "kind", type: .string, isRequired: true)]
            ),
        ]
    )

    /// The key columns of the `dm_` indexes a store of `list` alone makes on the sample
    /// table (the fixture's store has the sample list's too), each with `DESC` where so.
    static func indexes(of list: ListDefinition) throws -> [[String]] {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("dm-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try SQLiteStore(path: directory.appendingPathComponent("store.sqlite").path)
        _ = try store.provider(for: list, source: SQLiteFixture.source)
        return try store.database.read { db in
            try String.fetchAll(
                db,
                sql: "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'sample' AND name LIKE 'dm_%'"
            ).map { name in
                try Row.fetchAll(db, sql: "SELECT name, \"desc\", key FROM pragma_index_xinfo(?)", arguments: [name])
                    .filter { $0["key"] as Int == 1 }
                    .map { row in (row["name"] as String) + ((row["desc"] as Int) == 1 ? " DESC" : "") }
            }
        }
    }

    @Test func eachOrderHasOneIndexAndNoIndexHoldsAColumnTwice() throws {
        let indexes = try Self.indexes(of: Self.list)
        // newest (and latest), newest by kind, in_group (and by its group), in_group by
        // kind, top_of_kind by kind.
        #expect(
            Set(indexes) == [
                ["created DESC", "id DESC"],
                ["kind", "created DESC", "id DESC"],
                ["group", "created DESC", "id DESC"],
                ["kind", "group", "created DESC", "id DESC"],
                ["kind", "score DESC", "id DESC"],
            ]
        )
        #expect(indexes.count == 5)
        for index in indexes { #expect(Set(index.map { $0.prefix { $0 != " " } }).count == index.count, "\(index)") }
    }

    /// A parameter on the field a list is scoped by fixes it once: its index leads with it
    /// once, and is the scope's own.
    @Test func aParameterOnTheScopesFieldLeadsItsIndexOnce() throws {
        let scoped = ListDefinition(
            name: "scoped",
            title: "Scoped",
            idField: "id",
            // `newest`, whose parameter `kind` filters on the scope's field.
            views: [try Self.list.view(named: "newest")],
            scope: ListScope(field: "kind", claim: "sub")
        )
        #expect(try Self.indexes(of: scoped) == [["kind", "created DESC", "id DESC"]])
    }

    /// A second list over the table gets only the indexes the first one's do not serve.
    @Test func aListGetsNoIndexAnotherListsServes() throws {
        let fixture = try SQLiteFixture()
        _ = try fixture.provider(definition: Self.list)
        let other = ListDefinition(
            name: "other",
            title: "Other",
            idField: "id",
            views: [
                View(
                    name: "of_kind",
                    sort: [SortKey("created", .descending)],
                    idField: "id",
                    cellType: .fixed("row"),
                    fields: ["title"],
                    parameters: [ViewParameter(name: "kind", field: "kind", type: .string, isRequired: true)]
                ),
                View(
                    name: "titled",
                    sort: [SortKey("title")],
                    idField: "id",
                    cellType: .fixed("row"),
                    fields: ["title"]
                ),
            ]
        )
        _ = try fixture.provider(definition: other)
        let names = try fixture.store.database.read { db in
            try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'sample'")
        }
        #expect(!names.contains { $0.hasPrefix("dm_sample_of_kind_") }, "\(names)")
        #expect(names.contains { $0.hasPrefix("dm_sample_titled_") }, "\(names)")
    }

    @Test(
        "every page of every view and slice reads one of the indexes, with no sort",
        arguments: [
            ("newest", [:]), ("newest", ["kind": "b"]), ("latest", [:]), ("in_group", [:]),
            ("in_group", ["group": "beta"]), ("in_group", ["kind": "a"]), ("in_group", ["group": "beta", "kind": "a"]),
            ("top_of_kind", ["kind": "a"]),
        ] as [(String, [String: String])]
    )
    func everyPageSeeksAnIndex(name: String, slice: [String: String]) throws {
        try Self.expectEveryPageSeeks(Self.list, view: name, slice: slice)
    }

    /// A view whose filter fixes a field (`eq`) and whose two parameters a request may give
    /// together: an index was led by each parameter alone, so a request giving both walked
    /// the first one's whole slice testing the second, and the filter's field led none, so
    /// a rare filter's every page walked the table (review 90: 0.5 s a page at 1,000,000
    /// rows on SQLite).
    static let filtered = ListDefinition(
        name: "filtered",
        title: "Filtered",
        idField: "id",
        views: [
            View(
                name: "mixed",
                sort: [SortKey("created", .descending)],
                idField: "id",
                filter: [FilterCondition(field: "title", op: .eq, value: .string("t"))],
                cellType: .fixed("row"),
                fields: ["title"],
                parameters: [
                    ViewParameter(name: "kind", field: "kind", type: .string, isRequired: false),
                    ViewParameter(name: "group", field: "group", type: .string, isRequired: false),
                ]
            )
        ]
    )

    @Test(
        "the filter's field and each set of parameters a request gives lead an index",
        arguments: [[:], ["kind": "a"], ["group": "beta"], ["kind": "a", "group": "beta"]] as [[String: String]]
    )
    func everySetOfParametersAndTheFilterSeekAnIndex(slice: [String: String]) throws {
        try Self.expectEveryPageSeeks(Self.filtered, view: "mixed", slice: slice)
        #expect(try Self.indexes(of: Self.filtered).count == 4)
    }

    /// Every page of `list`'s view `name` in `slice` reads one index range with no sort:
    /// the plan searches an index by each field the slice or the view's filter fixes.
    static func expectEveryPageSeeks(_ list: ListDefinition, view name: String, slice: [String: String]) throws {
        let fixture = try SQLiteFixture()
        let provider = try fixture.provider(definition: list)
        let view = try list.view(named: name).sliced(slice.mapValues { .string($0) })
        let fixed = slice.keys.sorted() + view.filter.filter { $0.op == .eq }.map(\.field)
        for start in [nil] + SampleList.items().prefix(3).map(view.position(of:)) {
            for query in provider.reader.windows.queries(of: view, from: start, inclusive: false) {
                let plan = try fixture.store.queryPlan(query.sql, query.arguments + [.integer(5)])
                    .filter { !$0.contains("SCALAR SUBQUERY") && !$0.contains(ServiceTables.versions) }
                    .joined(separator: "; ")
                #expect(plan.contains(" INDEX dm_sample_") && !plan.contains("TEMP B-TREE"), "\(query.sql): \(plan)")
                for field in Set(fixed) { #expect(plan.contains("\(field)=?"), "\(field) in \(query.sql): \(plan)") }
            }
        }
    }
}
