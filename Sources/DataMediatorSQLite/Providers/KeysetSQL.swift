import DataMediator
import GRDB

/// Builds the SQL that selects, orders and counts a view's rows by keyset.
///
/// `NULL` sorts first ascending and last descending, as SQLite orders it and as
/// ``JSONValue/compare(_:_:)`` does, so the predicates below treat it as the smallest value.
struct KeysetSQL: Sendable {
    /// Columns known never to hold `NULL`; their predicates skip the `IS NULL` cases.
    let notNullColumns: Set<String>

    /// `ORDER BY` for the view, or its reverse.
    func orderBy(_ view: View, reversed: Bool = false) -> String {
        view.sort.map { key in
            let ascending = (key.order == .ascending) != reversed
            return SQL.quote(key.field) + (ascending ? " ASC" : " DESC")
        }.joined(separator: ", ")
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
            case (.eq, _): conditions.append("\(column) = ?"); arguments.append(value)
            case (.ne, _): conditions.append("(\(column) IS NULL OR \(column) <> ?)"); arguments.append(value)
            case (_, .null): conditions.append("0")
            case (.lt, _): conditions.append("\(column) < ?"); arguments.append(value)
            case (.le, _): conditions.append("\(column) <= ?"); arguments.append(value)
            case (.gt, _): conditions.append("\(column) > ?"); arguments.append(value)
            case (.ge, _): conditions.append("\(column) >= ?"); arguments.append(value)
            }
        }
        return (conditions, arguments)
    }

    /// Rows after `position` in view order (or before it, `reversed`), or at it too when
    /// `inclusive`.
    ///
    /// The expanded form `k1 > a OR (k1 = a AND k2 > b) ...` handles mixed directions and
    /// `NULL`s; the leading `k1 >= a` bound lets SQLite seek the view's index instead of
    /// scanning, so a page deep in the view costs what the first one does.
    func after(_ position: Position, in view: View, inclusive: Bool, reversed: Bool = false) -> (
        sql: String, arguments: [DatabaseValue]
    ) {
        var alternatives: [String] = []
        var arguments: [DatabaseValue] = []
        var equalities: [String] = []
        var equalityArguments: [DatabaseValue] = []
        for (index, key) in view.sort.enumerated() {
            let value = position.values[index]
            let column = SQL.quote(key.field)
            let ascending = (key.order == .ascending) != reversed
            let beyond = strictlyBeyond(column: column, field: key.field, value: value, ascending: ascending)
            if let beyond {
                alternatives.append((equalities + [beyond.sql]).joined(separator: " AND "))
                arguments += equalityArguments + beyond.arguments
            }
            if value == .null {
                equalities.append("\(column) IS NULL")
            } else {
                equalities.append("\(column) = ?")
                equalityArguments.append(value.databaseValue)
            }
        }
        if inclusive {
            alternatives.append(equalities.joined(separator: " AND "))
            arguments += equalityArguments
        }
        var sql = alternatives.isEmpty ? "0" : "(" + alternatives.map { "(\($0))" }.joined(separator: " OR ") + ")"
        if let first = view.sort.first, position.values[0] != .null, notNullColumns.contains(first.field) {
            let ascending = (first.order == .ascending) != reversed
            sql = "\(SQL.quote(first.field)) \(ascending ? ">=" : "<=") ? AND " + sql
            arguments.insert(position.values[0].databaseValue, at: 0)
        }
        return (sql, arguments)
    }

    /// The condition "this key is strictly beyond `value`", or nil when nothing can be.
    private func strictlyBeyond(column: String, field: String, value: JSONValue, ascending: Bool) -> (
        sql: String, arguments: [DatabaseValue]
    )? {
        if value == .null {
            return ascending ? ("\(column) IS NOT NULL", []) : nil
        }
        if ascending { return ("\(column) > ?", [value.databaseValue]) }
        if notNullColumns.contains(field) { return ("\(column) < ?", [value.databaseValue]) }
        return ("(\(column) < ? OR \(column) IS NULL)", [value.databaseValue])
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
