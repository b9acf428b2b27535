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

    /// The rows after `position` in view order (and the row at it when `inclusive`), as
    /// disjoint ranges in view order, each one range of the view's index.
    ///
    /// A page reads the ranges in turn until it is full, so every read is an index seek
    /// and a page deep in the view costs what the first one does. When every key is
    /// `NOT NULL` and they share one direction, a single row-value range does it;
    /// otherwise the ranges are `k1 = a AND k2 > b`, then `k1 > a` (mixed directions and
    /// `NULL`s each get their own range, since one `OR` would defeat the index order).
    func segments(
        after position: Position,
        in view: View,
        inclusive: Bool
    ) -> [(sql: String, arguments: [DatabaseValue])] {
        let keys = view.sort
        if let direction = keys.first?.order,
            keys.allSatisfy({ $0.order == direction && notNullColumns.contains($0.field) }),
            !position.values.contains(.null)
        {
            let columns = keys.map { SQL.quote($0.field) }.joined(separator: ", ")
            let marks = Array(repeating: "?", count: keys.count).joined(separator: ", ")
            let comparison = (direction == .ascending ? ">" : "<") + (inclusive ? "=" : "")
            return [("(\(columns)) \(comparison) (\(marks))", position.values.map(\.databaseValue))]
        }
        var segments: [(sql: String, arguments: [DatabaseValue])] = []
        var equalities: [String] = []
        var equalityArguments: [DatabaseValue] = []
        for (index, key) in keys.enumerated() {
            let value = position.values[index]
            if value == .null {
                equalities.append("\(SQL.quote(key.field)) IS NULL")
            } else {
                equalities.append("\(SQL.quote(key.field)) = ?")
                equalityArguments.append(value.databaseValue)
            }
        }
        if inclusive {
            segments.append((equalities.joined(separator: " AND "), equalityArguments))
        }
        for index in keys.indices.reversed() {
            let key = keys[index]
            let prefix = Array(equalities[..<index])
            let prefixCount: Int = position.values[..<index].filter { $0 != .null }.count
            let prefixArguments: [DatabaseValue] = Array(equalityArguments.prefix(prefixCount))
            for range in ranges(beyond: position.values[index], key: key) {
                segments.append(((prefix + [range.sql]).joined(separator: " AND "), prefixArguments + range.arguments))
            }
        }
        return segments
    }

    /// The ranges of one key strictly beyond `value`, in view order.
    private func ranges(beyond value: JSONValue, key: SortKey) -> [(sql: String, arguments: [DatabaseValue])] {
        let column = SQL.quote(key.field)
        switch (key.order, value) {
        case (.ascending, .null):
            return [("\(column) IS NOT NULL", [])]
        case (.ascending, _):
            return [("\(column) > ?", [value.databaseValue])]
        case (.descending, .null):
            return []
        case (.descending, _):
            let below: (sql: String, arguments: [DatabaseValue]) = ("\(column) < ?", [value.databaseValue])
            // Descending, NULL sorts last: after the smaller values come the NULLs.
            return notNullColumns.contains(key.field) ? [below] : [below, ("\(column) IS NULL", [])]
        }
    }

    /// The rows strictly before `position` in view order, as one condition, for counting.
    func before(_ position: Position, in view: View) -> (sql: String, arguments: [DatabaseValue]) {
        var alternatives: [String] = []
        var arguments: [DatabaseValue] = []
        var equalities: [String] = []
        var equalityArguments: [DatabaseValue] = []
        for (index, key) in view.sort.enumerated() {
            let value = position.values[index]
            let column = SQL.quote(key.field)
            let reversed = SortKey(key.field, key.order == .ascending ? .descending : .ascending)
            for range in ranges(beyond: value, key: reversed) {
                alternatives.append((equalities + [range.sql]).joined(separator: " AND "))
                arguments += equalityArguments + range.arguments
            }
            if value == .null {
                equalities.append("\(column) IS NULL")
            } else {
                equalities.append("\(column) = ?")
                equalityArguments.append(value.databaseValue)
            }
        }
        let sql = alternatives.isEmpty ? "0" : "(" + alternatives.map { "(\($0))" }.joined(separator: " OR ") + ")"
        return (sql, arguments)
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
