import DataMediator
import DataMediatorSQL
import DataMediatorTesting
import Testing

/// The values a slice binds per request are exactly those its filter's SQL takes.
@Suite struct KeysetFilterTests {
    @Test func filterArgumentsAreTheFiltersArgumentsForEveryOperatorAndNull() {
        let keyset = KeysetSQL(dialect: .postgres, notNullColumns: [])
        let conditions = FilterCondition.Operator.allCases.flatMap { op in
            [
                FilterCondition(field: "score", op: op, value: .integer(3)),
                FilterCondition(field: "g", op: op, value: .null),
            ]
        }
        let views =
            SampleList.views.map { $0.sliced(["kind": .string("big")]) }
            + [
                View(
                    name: "all",
                    sort: [SortKey("score")],
                    idField: "id",
                    filter: conditions,
                    cellType: .fixed("x"),
                    fields: []
                )
            ]
        for view in views {
            #expect(keyset.filterArguments(view) == keyset.filter(view).arguments, "\(view.name)")
        }
    }
}
