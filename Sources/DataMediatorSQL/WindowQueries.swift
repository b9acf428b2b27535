import DataMediator
import Synchronization

/// The statements that read a view's windows, built once per view and shape of position
/// and kept (views times patterns of `NULL`s: a handful).
public final class WindowQueries: Sendable {
    private let selectList: String
    private let from: String
    private let keyset: KeysetSQL
    private let built = Mutex<[Shape: Statements]>([:])
    private let builtAround = Mutex<[AroundShape: [String]?]>([:])

    /// Creates the window statements of `columns` read from `from` (a quoted table or a
    /// subquery with an alias); `trailingColumn`, when given, is an expression selected
    /// after the columns in every row (the store's version, read by the same statement).
    public init(columns: [String], from: String, keyset: KeysetSQL, trailingColumn: String? = nil) {
        self.selectList = (columns.map(keyset.selected) + (trailingColumn.map { [$0] } ?? [])).joined(separator: ", ")
        self.from = from
        self.keyset = keyset
    }

    /// The window statements both SQL stores read pages with: each row reads, after the
    /// item's columns, the store's version in the same snapshot (a subquery the database
    /// runs once per statement), so a page and its version are one statement.
    public static func versioned(columns: [String], from: String, keyset: KeysetSQL) -> WindowQueries {
        WindowQueries(
            columns: columns,
            from: from,
            keyset: keyset,
            trailingColumn: "(\(StoreVersion.currentSQL(keyset.dialect)))"
        )
    }

    /// What a window's statements select.
    public enum Selection: Sendable, Hashable {
        /// The items' columns (and the trailing column, when there is one).
        case items
        /// The view's sort keys alone, which its index holds: rows to count, not to read
        /// (the index is read alone, no table row).
        case sortKeys
    }

    /// The statements of a window, one per index range in view order, each with `?`
    /// placeholders and ending in `LIMIT ?`; each comes with the values of its placeholders
    /// but the limit.
    public func queries(
        of view: View,
        from start: Position?,
        inclusive: Bool,
        selecting selection: Selection = .items
    ) -> [(
        sql: String, arguments: [JSONValue]
    )] {
        let nulls = start.map { $0.values.map { $0 == .null } }
        let shape = Shape(
            view: view.name,
            slice: Self.sliceShape(of: view),
            nulls: nulls,
            inclusive: inclusive,
            selection: selection
        )
        let statements =
            built.withLock { $0[shape] }
            ?? {
                let made = make(view: view, nulls: nulls, inclusive: inclusive, selection: selection)
                built.withLock { $0[shape] = made }
                return made
            }()
        // A slice's values differ from request to request; its statements do not.
        let filterArguments = view.slice.isEmpty ? statements.filterArguments : keyset.filterArguments(view)
        return statements.statements.map { statement in
            (
                statement.sql,
                filterArguments
                    + statement.values.map { keyset.bound(start?.values[$0] ?? .null, against: view.sort[$0].field) }
            )
        }
    }

    /// How each statement of ``queries(of:from:inclusive:)`` ends, its limit to be given.
    static let limitPlaceholder = "LIMIT ?"

    /// A statement of ``queries(of:from:inclusive:)`` reading up to `limit` rows, the limit
    /// written into its SQL: for a store that prepares statements and plans a known limit
    /// once (PostgreSQL cannot price a generic plan for a bound one, so plans it again on
    /// every run).
    public static func limited(
        _ query: (sql: String, arguments: [JSONValue]),
        limit: Int
    ) -> (sql: String, arguments: [JSONValue]) {
        precondition(query.sql.hasSuffix(limitPlaceholder), "a window statement ends in its limit")
        return (String(query.sql.dropLast(limitPlaceholder.count)) + "LIMIT \(max(0, limit))", query.arguments)
    }

    /// `limit` rounded up to a power of two (0 stays 0), for a limit written into a
    /// statement's SQL that varies from read to read: PostgreSQL plans a statement with a
    /// bound limit anew on every run, and a few texts a view keep the prepared statements
    /// few. The reader drops the rows past the limit it wanted.
    public static func roundedLimit(_ limit: Int) -> Int {
        limit <= 1 ? max(0, limit) : 1 << (Int.bitWidth - (limit - 1).leadingZeroBitCount)
    }

    /// The one statement that reads a window of several index ranges (the statements of
    /// ``queries(of:from:inclusive:)`` for `view`) at once: each range's first `limit` rows,
    /// joined by `UNION ALL`, in one snapshot without a transaction and in one round trip,
    /// and the values of its placeholders; on PostgreSQL the database keeps the first
    /// `limit` of them in view order (``sideSQL(_:of:limit:)``). The rows need not come in
    /// that order: the reader puts them in view order (``View/ordered(_:)``) and keeps the
    /// first `limit`.
    public func union(
        _ queries: [(sql: String, arguments: [JSONValue])],
        of view: View,
        limit: Int
    ) -> (sql: String, arguments: [JSONValue]) {
        let parts = queries.map { Self.limited($0, limit: limit) }
        return (sideSQL(parts.map(\.sql), of: view, limit: max(0, limit)), parts.flatMap(\.arguments))
    }

    /// The ranges `ranges` of one side of a window (in `view`'s order from its start),
    /// each read up to the side's limit, joined by `UNION ALL`; on PostgreSQL, of those the
    /// first `limit` in view order: a view of several ranges (keys in both directions,
    /// nullable keys) would otherwise send up to the limit's rows of every range over the
    /// connection, each decoded by the service, for one range's worth kept. SQLite's rows
    /// are the process's own, and its plan would sort them in a temporary tree: its ranges
    /// are read as they are, as is one range. The statement is one `SELECT` that a
    /// `UNION ALL` may join to another; its own limit is written in.
    func sideSQL(_ ranges: [String], of view: View, limit: Int) -> String {
        let parts = ranges.enumerated().map { index, part in "SELECT * FROM (\(part)) AS dm_range_\(index)" }
        guard parts.count > 1, keyset.dialect == .postgres else { return parts.joined(separator: " UNION ALL ") }
        return "SELECT * FROM (SELECT * FROM (\(parts.joined(separator: " UNION ALL "))) AS dm_ranges "
            + "ORDER BY \(keyset.orderBySelected(view)) LIMIT \(limit)) AS dm_side"
    }

    /// The one statement that reads the window on both sides of `start`
    /// (``DataProvider/window(of:at:inclusive:before:from:)``): the ranges of the view
    /// reversed from `start` (up to `before` rows, the rows the other side leaves out)
    /// and the ranges of the view from it (up to `from` rows), each side as
    /// ``union(_:of:limit:)`` reads its ranges, joined by `UNION ALL`, with the values of
    /// its placeholders. The limits are bound (`bindingLimits`: one text for every limit,
    /// for a store that caches statements by text) or written in (``limited(_:limit:)``).
    /// The rows come in no promised order; the reader sorts them out by position
    /// (``SQLListReader/split(_:at:inclusive:in:before:from:version:)``).
    public func both(
        of view: View,
        at start: Position,
        inclusive: Bool,
        before: Int,
        from: Int,
        bindingLimits: Bool
    ) -> (sql: String, arguments: [JSONValue]) {
        var sides: [String] = []
        var arguments: [JSONValue] = []
        for (side, queries, limit) in [
            (view.reversed, queries(of: view.reversed, from: start, inclusive: !inclusive), max(0, before)),
            (view, queries(of: view, from: start, inclusive: inclusive), max(0, from)),
        ] where !queries.isEmpty {
            let parts = queries.map { query in
                bindingLimits
                    ? (sql: query.sql, arguments: query.arguments + [.integer(Int64(limit))])
                    : Self.limited(query, limit: limit)
            }
            sides.append(sideSQL(parts.map(\.sql), of: side, limit: limit))
            arguments += parts.flatMap(\.arguments)
        }
        return (sides.joined(separator: " UNION ALL "), arguments)
    }

    /// The one statement that reads the items around the row `item` selects (a condition
    /// on the id, and its arguments): the rows before it, nearest first, then the rows from
    /// it in view order, each side a row-value range of the view's index beyond the row's
    /// own sort keys, read by a subquery. Nil when the view's windows are not one range.
    ///
    /// The row itself is the first row of the second side when it is in the view; a caller
    /// finds it there, since the statement reads the same rows whether or not it is.
    public func around(of view: View, item: (sql: String, arguments: [JSONValue])) -> AroundStatement? {
        let key = AroundShape(view: view.name, slice: Self.sliceShape(of: view), item: item.sql)
        let pieces: [String]?
        if let kept = builtAround.withLock({ $0[key] }) {
            pieces = kept
        } else {
            pieces = makeAround(view: view, item: item.sql)
            builtAround.withLock { $0[key] = .some(pieces) }
        }
        guard let pieces else { return nil }
        let filterArguments = keyset.filterArguments(view)
        // PostgreSQL reads the item once per sort key (see `anchor`), SQLite once.
        let itemReads = keyset.dialect == .postgres ? view.sort.count : 1
        let itemArguments = Array(Array(repeating: item.arguments, count: itemReads).joined())
        return AroundStatement(pieces: pieces, sideArguments: filterArguments + itemArguments)
    }

    /// The item's sort keys as a row value. SQLite compares a row with a subquery's row on
    /// the view's index; PostgreSQL uses its index for a row of values only, so there each
    /// key is a scalar subquery of its own (each run once, before the range is read).
    private func anchor(of view: View, item: String) -> String {
        let read = { (columns: String) in "(SELECT \(columns) FROM \(self.from) WHERE \(item) LIMIT 1)" }
        switch keyset.dialect {
        case .sqlite:
            return read(view.sort.map { SQL.quote($0.field) }.joined(separator: ", "))
        case .postgres:
            // As the range compares them (a uuid as its text).
            return "(" + view.sort.map { read(keyset.column($0.field)) }.joined(separator: ", ") + ")"
        }
    }

    /// The around statement's SQL in three pieces, a side's limit between each two.
    private func makeAround(view: View, item: String) -> [String]? {
        let anchor = anchor(of: view, item: item)
        let conditions = keyset.filter(view).sql
        func side(_ view: View, inclusive: Bool) -> String? {
            guard let range = keyset.rowValueRange(in: view, inclusive: inclusive, beyond: anchor) else { return nil }
            let select = "SELECT \(selectList) FROM \(from)\(SQL.whereClause(conditions + [range]))"
            return "SELECT * FROM (\(select) ORDER BY \(keyset.orderBy(view)) LIMIT "
        }
        guard let before = side(view.reversed, inclusive: false), let from = side(view, inclusive: true)
        else { return nil }
        return [before, ") AS before_item UNION ALL " + from, ") AS from_item"]
    }

    private func make(view: View, nulls: [Bool]?, inclusive: Bool, selection: Selection) -> Statements {
        let (conditions, arguments) = keyset.filter(view)
        var seen = Set<String>()
        let selectList =
            selection == .items
            ? self.selectList
            : view.sort.map(\.field).filter { seen.insert($0).inserted }.map(SQL.quote).joined(separator: ", ")
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
    /// values are `NULL` (nil for the first page), whether the position's own row is
    /// included, and what it selects.
    /// What a statement's SQL takes from a view's slice: the fields it fixes, and which of
    /// them it fixes to null (`IS NULL`, which binds no value; a write's item can have one).
    private static func sliceShape(of view: View) -> [String] {
        view.slice.keys.sorted().map { view.slice[$0] == .null ? $0 + " IS NULL" : $0 }
    }

    private struct Shape: Hashable, Sendable {
        let view: String
        let slice: [String]
        let nulls: [Bool]?
        let inclusive: Bool
        let selection: Selection
    }

    /// What an around statement's SQL depends on: the view, the fields its slice fixes,
    /// and the condition that selects the item.
    private struct AroundShape: Hashable, Sendable {
        let view: String
        let slice: [String]
        let item: String
    }

    /// A window's statements in order, and the filter's arguments each starts with.
    private struct Statements: Sendable {
        let statements: [Bound]
        let filterArguments: [JSONValue]
    }
}

/// The statement ``WindowQueries/around(of:item:)`` builds, with what it binds.
public struct AroundStatement: Sendable {
    /// The SQL: the rows before the item, nearest first, `UNION ALL` the rows from it, each
    /// side's limit a placeholder.
    public let sql: String
    /// The SQL around the sides' limits.
    let pieces: [String]
    /// What each side binds before its limit: the filter's values, then the item's.
    let sideArguments: [JSONValue]

    init(pieces: [String], sideArguments: [JSONValue]) {
        self.pieces = pieces
        self.sideArguments = sideArguments
        sql = pieces.joined(separator: "?")
    }

    /// The values of the placeholders of ``sql``, reading up to `before` rows before the
    /// item and `from` rows from it.
    public func arguments(before: Int, from: Int) -> [JSONValue] {
        sideArguments + [.integer(Int64(before))] + sideArguments + [.integer(Int64(from))]
    }

    /// The statement reading up to `before` rows before the item and `from` rows from it
    /// with those limits written in, and the values of its placeholders: for a store that
    /// prepares statements and plans a known limit once (PostgreSQL), where a bound limit
    /// would be planned again on every read.
    public func limited(before: Int, from: Int) -> (sql: String, arguments: [JSONValue]) {
        (pieces[0] + "\(max(0, before))" + pieces[1] + "\(max(0, from))" + pieces[2], sideArguments + sideArguments)
    }
}
