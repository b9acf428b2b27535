import DataMediator
import GRDB

/// Builds the SQL that selects, orders and counts a view's rows by keyset.
///
/// `NULL` sorts first ascending and last descending, as SQLite orders it and as
/// ``JSONValue/compare(_:_:)`` does, so the predicates below treat it as the smallest value.
struct KeysetSQL: Sendable {
    /// Columns known never to hold `NULL`; their predicates skip the `IS NULL` cases.
    let notNullColumns: Set<String>

    /// `ORDER BY` for the view.
    func orderBy(_ view: View) -> String {
        view.sort.map { SQL.quote($0.field) + ($0.order == .ascending ? " ASC" : " DESC") }.joined(separator: ", ")
    }

    /// The view's filter as SQL conditions (empty when there is none).
    func filter(_ view: View) -> (sql: [String], arguments: [DatabaseValue]) {
        var conditions: [String] = []
        var arguments: [DatabaseValue] = []
        for condition in view.filter {
            let column = SQL.quote(condition.field)
            let value = condition.value.databaseValue
            switch (condition.op, condition.value) {
            case (.eq, .null): conditions.append("\(column) IS NULL")
            case (.ne, .null): conditions.append("\(column) IS NOT NULL")
            case (.eq, _):
                conditions.append("\(column) = ?")
                arguments.append(value)
            case (.ne, _):
                conditions.append("(\(column) IS NULL OR \(column) <> ?)")
                arguments.append(value)
            case (_, .null): conditions.append("0")
            case (.lt, _):
                conditions.append("\(column) < ?")
                arguments.append(value)
            case (.le, _):
                conditions.append("\(column) <= ?")
                arguments.append(value)
            case (.gt, _):
                conditions.append("\(column) > ?")
                arguments.append(value)
            case (.ge, _):
                conditions.append("\(column) >= ?")
                arguments.append(value)
            }
        }
        return (conditions, arguments)
    }

    /// The rows after a position in view order (and the row at it when `inclusive`), as
    /// disjoint ranges in view order, each one range of the view's index.
    ///
    /// A page reads the ranges in turn until it is full, so every read is an index seek
    /// and a page deep in the view costs what the first one does. When every key is
    /// `NOT NULL` and they share one direction, a single row-value range does it;
    /// otherwise the ranges are `k1 = a AND k2 > b`, then `k1 > a` (mixed directions and
    /// `NULL`s each get their own range, since one `OR` would defeat the index order).
    ///
    /// The SQL depends only on which position values are `NULL` (`nulls`), so it can be
    /// built once and cached; each `?` binds the position value whose index is listed.
    func segments(nulls: [Bool], in view: View, inclusive: Bool) -> [Bound] {
        let keys = view.sort
        if let direction = keys.first?.order,
            keys.allSatisfy({ $0.order == direction && notNullColumns.contains($0.field) }),
            !nulls.contains(true)
        {
            let columns = keys.map { SQL.quote($0.field) }.joined(separator: ", ")
            let marks = Array(repeating: "?", count: keys.count).joined(separator: ", ")
            let comparison = (direction == .ascending ? ">" : "<") + (inclusive ? "=" : "")
            return [Bound(sql: "(\(columns)) \(comparison) (\(marks))", values: Array(keys.indices))]
        }
        var segments: [Bound] = []
        let equalities = keys.indices.map { index in
            nulls[index]
                ? Bound(sql: "\(SQL.quote(keys[index].field)) IS NULL", values: [])
                : Bound(sql: "\(SQL.quote(keys[index].field)) = ?", values: [index])
        }
        if inclusive { segments.append(Bound(all: equalities)) }
        for index in keys.indices.reversed() {
            for range in ranges(beyond: index, isNull: nulls[index], key: keys[index]) {
                segments.append(Bound(all: Array(equalities[..<index]) + [range]))
            }
        }
        return segments
    }

    /// The ranges of key `index` strictly beyond the position's value, in view order.
    private func ranges(beyond index: Int, isNull: Bool, key: SortKey) -> [Bound] {
        let column = SQL.quote(key.field)
        switch (key.order, isNull) {
        case (.ascending, true):
            return [Bound(sql: "\(column) IS NOT NULL", values: [])]
        case (.ascending, false):
            return [Bound(sql: "\(column) > ?", values: [index])]
        case (.descending, true):
            return []
        case (.descending, false):
            let below = Bound(sql: "\(column) < ?", values: [index])
            // Descending, NULL sorts last: after the smaller values come the NULLs.
            return notNullColumns.contains(key.field) ? [below] : [below, Bound(sql: "\(column) IS NULL", values: [])]
        }
    }

    /// The rows strictly before `position` in view order, as one condition, for counting.
    func before(_ position: Position, in view: View) -> (sql: String, arguments: [DatabaseValue]) {
        var alternatives: [Bound] = []
        var equalities: [Bound] = []
        for (index, key) in view.sort.enumerated() {
            let isNull = position.values[index] == .null
            let reversed = SortKey(key.field, key.order == .ascending ? .descending : .ascending)
            for range in ranges(beyond: index, isNull: isNull, key: reversed) {
                alternatives.append(Bound(all: equalities + [range]))
            }
            let column = SQL.quote(key.field)
            equalities.append(
                isNull ? Bound(sql: "\(column) IS NULL", values: []) : Bound(sql: "\(column) = ?", values: [index])
            )
        }
        let sql = alternatives.isEmpty ? "0" : "(" + alternatives.map { "(\($0.sql))" }.joined(separator: " OR ") + ")"
        return (sql, alternatives.flatMap(\.values).map { position.values[$0].databaseValue })
    }

    /// The SQL expression of a view's section key, matching ``SectionRule/key(for:)``.
    func sectionKey(_ rule: SectionRule) -> String {
        let column = SQL.quote(rule.field)
        guard let length = rule.grouping.prefixLength else { return column }
        return "CASE WHEN typeof(\(column)) = 'text' THEN substr(\(column), 1, \(length)) ELSE \(column) END"
    }
}

extension JSONValue {
    /// The value as SQLite stores it: booleans as 0 and 1, arrays and objects as JSON text.
    var databaseValue: DatabaseValue {
        switch self {
        case .null: return .null
        case .bool(let flag): return (flag ? 1 : 0).databaseValue
        case .integer(let whole): return whole.databaseValue
        case .number(let real): return real.databaseValue
        case .string(let text): return text.databaseValue
        case .array, .object: return idString.databaseValue
        }
    }

    /// The JSON value of a stored SQLite value; a blob becomes its bytes as a string.
    init(_ stored: DatabaseValue) {
        switch stored.storage {
        case .null: self = .null
        case .int64(let whole): self = .integer(whole)
        case .double(let real): self = .number(real)
        case .string(let text): self = .string(text)
        case .blob(let data): self = .string(String(decoding: data, as: UTF8.self))
        }
    }
}

/// A condition on a view's sort keys whose `?`s bind position values by index.
struct Bound: Sendable, Hashable {
    /// The SQL condition.
    let sql: String
    /// For each `?` in order, the index of the position value it binds.
    let values: [Int]

    init(sql: String, values: [Int]) {
        self.sql = sql
        self.values = values
    }

    /// All of `parts`, joined with `AND`.
    init(all parts: [Bound]) {
        sql = parts.map(\.sql).joined(separator: " AND ")
        values = parts.flatMap(\.values)
    }
}
