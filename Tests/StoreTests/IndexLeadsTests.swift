import DataMediator
import Testing

@testable import DataMediatorSQL

/// What leads a view's indexes, and their names: an `eq` filter on a `json` field leads
/// none (PostgreSQL's `json` has no btree order: the index, and the list, were refused at
/// start), a view made in code with more parameters than a configuration takes gets no
/// 2^n indexes, and a name keeps its digest within PostgreSQL's 63 bytes.
@Suite struct IndexLeadsTests {
    static func view(filter: [FilterCondition] = [], parameters: [String] = []) -> View {
        View(
            name: "by_created",
            sort: [SortKey("created")],
            idField: "id",
            filter: filter,
            cellType: .fixed("row"),
            fields: [],
            parameters: parameters.map { ViewParameter(name: $0, field: $0, type: .string, isRequired: false) }
        )
    }

    @Test func anEqFilterLeadsUnlessItsFieldIsJSON() {
        let filter = [
            FilterCondition(field: "meta", op: .eq, value: .null),
            FilterCondition(field: "kind", op: .eq, value: .string("a")),
        ]
        let leads = TableSchema.indexLeads(
            of: Self.view(filter: filter),
            scope: nil,
            types: ["meta": .json, "kind": .string]
        )
        #expect(leads == [["kind"]])
    }

    @Test func aViewOfManyParametersGetsOneIndexEachAndOneForAll() {
        let leads = TableSchema.indexLeads(of: Self.view(parameters: ["a", "b", "c", "d"]), scope: nil)
        #expect(leads == [[], ["a"], ["b"], ["c"], ["d"], ["a", "b", "c", "d"]])
        #expect(TableSchema.indexLeads(of: Self.view(parameters: ["a", "b", "c"]), scope: nil).count == 8)
    }

    @Test func aNameKeepsItsDigestWithinSixtyThreeBytes() throws {
        let keyset = KeysetSQL(dialect: .postgres, notNullColumns: [])
        func name(_ table: String, _ leading: [String]) throws -> String {
            let statement = keyset.indexStatement(for: Self.view(), on: table, leading: leading)
            return try #require(statement.split(separator: "\"").dropFirst().first.map(String.init))
        }
        // Past the cut these differed only in the last leading field (and the digest).
        let two = try name("customer_orders", ["tenant_id", "customer", "warehouse"])
        let three = try name("customer_orders", ["tenant_id", "customer", "warehouse", "product"])
        #expect(two != three && two.utf8.count <= 63 && three.utf8.count <= 63, "\(two) \(three)")
        // A name within the bound is as it was: no index is made again on an upgrade.
        #expect(try name("t", ["a"]).hasPrefix("dm_t_by_created_a_"))
    }
}
