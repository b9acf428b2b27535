import DataMediator
import Synchronization

/// The statements that read a view's windows, built once per view and shape of position
/// and kept (views times patterns of `NULL`s: a handful).
public final class WindowQueries: Sendable {
    private let selectList: String
    private let from: String
    private let keyset: KeysetSQL
    private let built = Mutex<[Shape: Statements]>([:])

    /// Creates the window statements of `columns` read from `from` (a quoted table or a
    /// subquery with an alias); `trailingColumn`, when given, is an expression selected
    /// after the columns in every row (the store's version, read by the same statement).
    public init(columns: [String], from: String, keyset: KeysetSQL, trailingColumn: String? = nil) {
        self.selectList = (columns.map(SQL.quote) + (trailingColumn.map { [$0] } ?? [])).joined(separator: ", ")
        self.from = from
        self.keyset = keyset
    }

    /// The statements of a window, one per index range in view order, each with `?`
    /// placeholders and ending in `LIMIT ?`; each comes with the values of its placeholders
    /// but the limit.
    public func queries(
        of view: View,
        from start: Position?,
        inclusive: Bool
    ) -> [(
        sql: String, arguments: [JSONValue]
    )] {
        let nulls = start.map { $0.values.map { $0 == .null } }
        let shape = Shape(view: view.name, slice: view.slice.keys.sorted(), nulls: nulls, inclusive: inclusive)
        let statements =
            built.withLock { $0[shape] }
            ?? {
                let made = make(view: view, nulls: nulls, inclusive: inclusive)
                built.withLock { $0[shape] = made }
                return made
            }()
        // A slice's values differ from request to request; its statements do not.
        let filterArguments = view.slice.isEmpty ? statements.filterArguments : keyset.filterArguments(view)
        return statements.statements.map { statement in
            (statement.sql, filterArguments + statement.values.map { start?.values[$0] ?? .null })
        }
    }

    private func make(view: View, nulls: [Bool]?, inclusive: Bool) -> Statements {
        let (conditions, arguments) = keyset.filter(view)
        let order = " ORDER BY \(keyset.orderBy(view)) LIMIT ?"
        let ranges: [Bound?] = nulls.map { keyset.segments(nulls: $0, in: view, inclusive: inclusive) } ?? [nil]
        let statements = ranges.map { range in
            Bound(
                sql: "SELECT \(selectList) FROM \(from)\(SQL.whereClause(conditions + (range.map { [$0.sql] } ?? [])))"
                    + order,
                values: range?.values ?? []
            )
        }
        return Statements(statements: statements, filterArguments: arguments)
    }

    /// What a window's SQL depends on: the view, the fields its slice fixes, which position
    /// values are `NULL` (nil for the first page), and whether the position's own row is
    /// included.
    private struct Shape: Hashable, Sendable {
        let view: String
        let slice: [String]
        let nulls: [Bool]?
        let inclusive: Bool
    }

    /// A window's statements in order, and the filter's arguments each starts with.
    private struct Statements: Sendable {
        let statements: [Bound]
        let filterArguments: [JSONValue]
    }
}
