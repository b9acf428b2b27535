import DataMediator

/// Builds the SQL that selects, orders and counts a view's rows by keyset, for either SQL
/// store.
///
/// `NULL` sorts first ascending and last descending, as SQLite orders it and as
/// ``DataMediator/JSONValue/compare(_:_:)`` does, so the predicates below treat it as the
/// smallest value; PostgreSQL is told so in every `ORDER BY` and index.
public struct KeysetSQL: Sendable {
    /// The store's flavour of SQL.
    public let dialect: SQLDialect
    /// Columns known never to hold `NULL`; their predicates skip the `IS NULL` cases.
    public let notNullColumns: Set<String>
    /// Text columns, which PostgreSQL compares in the `"C"` collation (bytewise, as SQLite
    /// and the core do) and whose section keys are prefixes.
    public let textColumns: Set<String>
    /// PostgreSQL `uuid` columns, compared and ordered as their text (which PostgreSQL
    /// writes in small letters, so its order is the uuids' own).
    public let uuidColumns: Set<String>
    /// PostgreSQL columns of another type read, compared and ordered as text: each field's
    /// SQL for its text (a uuid's cast, a time's ``TimeText``), which the views' indexes
    /// hold. The values they are compared with arrive as text (ids, cursors' values,
    /// parameters, claims), and the text's order is the values' own.
    public let textForms: [String: String]
    /// SQLite columns that declare a collation other than `BINARY` (`NOCASE`, `RTRIM`),
    /// compared, ordered, grouped and indexed `COLLATE BINARY`, bytewise as the core
    /// compares: in their own collation `'a'` and `'A'` are one value to SQLite and two to
    /// a cursor.
    public let collatedColumns: Set<String>
    /// The SQL a value compared with a column is bound as, by column, where `?` alone
    /// would not do: PostgreSQL binds a number as a double, and compares a `numeric` column
    /// with it as a double (`(score)::double precision < $1`), which no index on the column
    /// serves; bound through its text as a `numeric`, the comparison is an index range.
    public let valueForms: [String: String]
    /// PostgreSQL integer columns of `number` fields: a position's whole double is bound
    /// against them as the integer it is (``bound(_:against:)``).
    public let integerColumns: Set<String>
    /// SQLite columns of NUMERIC affinity (`DATETIME`, `DATE`) of `string` fields: a text
    /// bound that reads as a number is compared there as that number (``textBound(_:against:)``).
    public let numericTextColumns: Set<String>

    /// Creates a builder; `textForms` names the columns read as text of another type
    /// (each `uuidColumns` one is read as its cast to text).
    public init(
        dialect: SQLDialect = .sqlite,
        notNullColumns: Set<String>,
        textColumns: Set<String> = [],
        uuidColumns: Set<String> = [],
        textForms: [String: String] = [:],
        collatedColumns: Set<String> = [],
        valueForms: [String: String] = [:],
        integerColumns: Set<String> = [],
        numericTextColumns: Set<String> = []
    ) {
        self.dialect = dialect
        self.numericTextColumns = dialect == .sqlite ? numericTextColumns : []
        self.valueForms = valueForms
        self.integerColumns = dialect == .postgres ? integerColumns : []
        self.collatedColumns = dialect == .sqlite ? collatedColumns : []
        self.notNullColumns = notNullColumns
        self.textColumns = textColumns
        self.uuidColumns = uuidColumns
        var forms = textForms
        for field in uuidColumns { forms[field] = "CAST(\(SQL.quote(field)) AS text)" }
        self.textForms = dialect == .postgres ? forms : [:]
    }

    /// The column as it is compared and ordered: quoted, and in the `"C"` collation for
    /// PostgreSQL text; a column read as text of another type (``textForms``) as that text
    /// in that collation; a SQLite column of another collation (``collatedColumns``) in
    /// `BINARY`.
    public func column(_ field: String) -> String {
        guard dialect == .postgres else {
            return collatedColumns.contains(field) ? SQL.quote(field) + " COLLATE BINARY" : SQL.quote(field)
        }
        if let form = textForms[field] { return "(\(form)) COLLATE \"C\"" }
        guard textColumns.contains(field) else { return SQL.quote(field) }
        return SQL.quote(field) + " COLLATE \"C\""
    }

    /// The placeholder of a value compared with `field`'s column (``valueForms``): `?`, or
    /// the term that holds it.
    public func mark(_ field: String) -> String {
        valueForms[field] ?? "?"
    }

    /// The column's value as SQL, without a collation: its text for a column read as text
    /// of another type (``textForms``), the quoted column otherwise.
    public func text(_ field: String) -> String {
        textForms[field] ?? SQL.quote(field)
    }

    /// The column as a select list reads it: its text under its own name for a column read
    /// as text of another type, the quoted column otherwise.
    public func selected(_ field: String) -> String {
        SQL.selected(field, forms: textForms)
    }

    /// One sort key as `ORDER BY` (and an index) spells it.
    public func orderTerm(_ key: SortKey) -> String {
        orderTerm(key, column: column(key.field))
    }

    private func orderTerm(_ key: SortKey, column: String) -> String {
        switch (dialect, key.order) {
        case (.sqlite, .ascending): return column + " ASC"
        case (.sqlite, .descending): return column + " DESC"
        case (.postgres, .ascending): return column + " ASC NULLS FIRST"
        case (.postgres, .descending): return column + " DESC NULLS LAST"
        }
    }

    /// `ORDER BY` for the view.
    public func orderBy(_ view: View) -> String {
        view.sort.map(orderTerm).joined(separator: ", ")
    }

    /// `ORDER BY` for the view over the rows of a subquery whose select list reads each
    /// column as ``selected(_:)`` does: a column read as text of another type is that text
    /// there already.
    public func orderBySelected(_ view: View) -> String {
        view.sort.map { key in
            orderTerm(
                key,
                column: textForms[key.field] == nil ? column(key.field) : SQL.quote(key.field) + " COLLATE \"C\""
            )
        }
        .joined(separator: ", ")
    }

    /// The values ``filter(_:)`` binds, in order, without building its SQL (a slice's
    /// values change from request to request; its statements do not).
    public func filterArguments(_ view: View) -> [JSONValue] {
        view.filter.compactMap { condition in
            switch (condition.op, condition.value) {
            case (_, .null): return nil
            default: return condition.value
            }
        }
    }

    /// The view's filter as SQL conditions (empty when there is none).
    public func filter(_ view: View) -> (sql: [String], arguments: [JSONValue]) {
        var conditions: [String] = []
        var arguments: [JSONValue] = []
        for condition in view.filter {
            let column = column(condition.field)
            let value = condition.value
            switch (condition.op, condition.value) {
            case (.eq, .null): conditions.append("\(column) IS NULL")
            case (.ne, .null): conditions.append("\(column) IS NOT NULL")
            case (.eq, _):
                conditions.append("\(column) = \(mark(condition.field))")
                arguments.append(value)
            case (.ne, _):
                conditions.append("(\(column) IS NULL OR \(column) <> \(mark(condition.field)))")
                arguments.append(value)
            case (_, .null): conditions.append("FALSE")
            case (.lt, _):
                conditions.append("\(column) < \(mark(condition.field))")
                arguments.append(textBound(value, against: condition.field))
            case (.le, _):
                conditions.append("\(column) <= \(mark(condition.field))")
                arguments.append(textBound(value, against: condition.field))
            case (.gt, _):
                conditions.append("\(column) > \(mark(condition.field))")
                arguments.append(textBound(value, against: condition.field))
            case (.ge, _):
                conditions.append("\(column) >= \(mark(condition.field))")
                arguments.append(textBound(value, against: condition.field))
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
    /// The SQL depends only on which position values are `NULL` (`nulls`) and which keys
    /// the slice fixes, so it can be built once and cached; each `?` binds the position
    /// value whose index is listed.
    public func segments(nulls: [Bool], in view: View, inclusive: Bool) -> [Bound] {
        let keys = view.sort
        if !nulls.contains(true) {
            let marks = "(" + keys.map { mark($0.field) }.joined(separator: ", ") + ")"
            if let range = rowValueRange(in: view, inclusive: inclusive, beyond: marks) {
                return [Bound(sql: range, values: Array(keys.indices))]
            }
        }
        var segments: [Bound] = []
        let equalities = keys.indices.map { index in
            nulls[index]
                ? Bound(sql: "\(SQL.quote(keys[index].field)) IS NULL", values: [])
                : Bound(sql: "\(column(keys[index].field)) = \(mark(keys[index].field))", values: [index])
        }
        if inclusive { segments.append(Bound(all: equalities)) }
        // A key the view's slice fixes has no rows beyond its one value: its ranges are
        // left out (read, `group = ? AND group > ?` walked an index led by another
        // parameter's field, the whole of that slice, for nothing).
        for index in keys.indices.reversed() where view.slice[keys[index].field] == nil {
            for range in ranges(beyond: index, isNull: nulls[index], key: keys[index]) {
                segments.append(Bound(all: Array(equalities[..<index]) + [range]))
            }
        }
        return segments
    }

    /// The rows after `position` in view order (and the row at it when `inclusive`) as one
    /// row-value range of the view's index, `position` being SQL for a row value of the
    /// sort keys (placeholders, or a subquery that reads them); nil unless every key is
    /// `NOT NULL` and all share one direction, the views whose windows are one range.
    public func rowValueRange(in view: View, inclusive: Bool, beyond position: String) -> String? {
        let keys = view.sort
        // SQLite seeks no index for a row value that holds a COLLATE (it scans): those
        // views take one range per key.
        guard let direction = keys.first?.order,
            keys.allSatisfy({ $0.order == direction && notNullColumns.contains($0.field) }),
            !keys.contains(where: { collatedColumns.contains($0.field) })
        else { return nil }
        let columns = keys.map { column($0.field) }.joined(separator: ", ")
        let comparison = (direction == .ascending ? ">" : "<") + (inclusive ? "=" : "")
        return "(\(columns)) \(comparison) \(position)"
    }

    /// The ranges of key `index` strictly beyond the position's value, in view order.
    private func ranges(beyond index: Int, isNull: Bool, key: SortKey) -> [Bound] {
        let quoted = SQL.quote(key.field)
        let column = column(key.field)
        switch (key.order, isNull) {
        case (.ascending, true):
            return [Bound(sql: "\(quoted) IS NOT NULL", values: [])]
        case (.ascending, false):
            return [Bound(sql: "\(column) > \(mark(key.field))", values: [index])]
        case (.descending, true):
            return []
        case (.descending, false):
            let below = Bound(sql: "\(column) < \(mark(key.field))", values: [index])
            // Descending, NULL sorts last: after the smaller values come the NULLs.
            return notNullColumns.contains(key.field) ? [below] : [below, Bound(sql: "\(quoted) IS NULL", values: [])]
        }
    }

    /// The rows strictly before `position` in view order, as one condition, for counting.
    public func before(_ position: Position, in view: View) -> (sql: String, arguments: [JSONValue]) {
        var alternatives: [Bound] = []
        var equalities: [Bound] = []
        for (index, key) in view.sort.enumerated() {
            let isNull = position.values[index] == .null
            let reversed = SortKey(key.field, key.order == .ascending ? .descending : .ascending)
            for range in ranges(beyond: index, isNull: isNull, key: reversed) {
                alternatives.append(Bound(all: equalities + [range]))
            }
            equalities.append(
                isNull
                    ? Bound(sql: "\(SQL.quote(key.field)) IS NULL", values: [])
                    : Bound(sql: "\(column(key.field)) = \(mark(key.field))", values: [index])
            )
        }
        let sql =
            alternatives.isEmpty ? "FALSE" : "(" + alternatives.map { "(\($0.sql))" }.joined(separator: " OR ") + ")"
        return (sql, alternatives.flatMap(\.values).map { bound(position.values[$0], against: view.sort[$0].field) })
    }

    /// The SQL expression of a view's section key, matching ``DataMediator/SectionRule/key(for:)``.
    public func sectionKey(_ rule: SectionRule) -> String {
        let column = SQL.quote(rule.field)
        guard let length = rule.grouping.prefixLength else { return self.column(rule.field) }
        switch dialect {
        case .sqlite:
            return "CASE WHEN typeof(\(column)) = 'text' THEN substr(\(column), 1, \(length)) ELSE \(column) END"
        case .postgres:
            return textColumns.contains(rule.field) ? "substr(\(text(rule.field)), 1, \(length)) COLLATE \"C\"" : column
        }
    }

    /// The conditions that select the rows of `view` before the first row of the section
    /// with `key`, one per index range, in reverse view order; empty when that section is
    /// the view's first. The view's section field leads its sort.
    ///
    /// Each range is its own statement, so that each is one seek on the view's index.
    public func beforeSection(_ key: JSONValue, in view: View) -> [(sql: String, arguments: [JSONValue])] {
        guard let rule = view.section, let leading = view.sort.first, leading.field == rule.field else { return [] }
        let quoted = SQL.quote(rule.field)
        let column = column(rule.field)
        // NULL sorts first, then numbers, then text: ascending, the items before a section
        // are those with smaller values, then the NULLs; descending, greater ones.
        switch (key, leading.order) {
        case (.null, .ascending):
            return []
        case (.null, .descending):
            return [("\(quoted) IS NOT NULL", [])]
        case (.string(let prefix), .descending) where prefix.unicodeScalars.count == rule.grouping.prefixLength:
            // The section holds every text that starts with `prefix`; the text after all of
            // them is `prefix` with its last character raised by one.
            if let successor = Self.successor(of: prefix) {
                return [("\(column) >= ?", [textBound(.string(successor), against: rule.field)])]
            }
            let length = prefix.unicodeScalars.count
            return [
                (
                    "\(column) > ? AND substr(\(text(rule.field)), 1, \(length)) <> ?",
                    [textBound(.string(prefix), against: rule.field), .string(prefix)]
                )
            ]
        case (_, .ascending):
            let smaller = ("\(column) < \(mark(rule.field))", [textBound(key, against: rule.field)])
            return notNullColumns.contains(rule.field) ? [smaller] : [smaller, ("\(quoted) IS NULL", [])]
        case (_, .descending):
            return [("\(column) > \(mark(rule.field))", [textBound(key, against: rule.field)])]
        }
    }

    /// The rows of the section with `key` (as ``DataMediator/SectionRule/key(for:)`` gives
    /// it) as a condition on the section's field alone, so that counting them reads one range
    /// of an index that leads with the field; nil for a prefix whose texts have no least
    /// text after them (see ``successor(of:)``).
    public func sectionRows(_ key: JSONValue, of rule: SectionRule) -> (sql: String, arguments: [JSONValue])? {
        let quoted = SQL.quote(rule.field)
        let column = column(rule.field)
        switch key {
        case .null:
            return ("\(quoted) IS NULL", [])
        case .string(let prefix) where prefix.unicodeScalars.count == rule.grouping.prefixLength:
            guard let successor = Self.successor(of: prefix) else { return nil }
            return (
                "\(column) >= ? AND \(column) < ?",
                [textBound(key, against: rule.field), textBound(.string(successor), against: rule.field)]
            )
        default:
            return ("\(column) = ?", [key])
        }
    }

    /// The least text greater than every text that starts with `prefix` (in binary order,
    /// which is the order of Unicode scalars); nil when the last scalar is the greatest
    /// there is.
    public static func successor(of prefix: String) -> String? {
        var scalars = Array(prefix.unicodeScalars)
        guard let last = scalars.popLast() else { return nil }
        // The scalars skip the surrogate block.
        let next = last.value == 0xD7FF ? 0xE000 : last.value + 1
        guard let raised = Unicode.Scalar(next) else { return nil }
        scalars.append(raised)
        return String(String.UnicodeScalarView(scalars))
    }

}

/// A condition on a view's sort keys whose `?`s bind position values by index.
public struct Bound: Sendable, Hashable {
    /// The SQL condition.
    public let sql: String
    /// For each `?` in order, the index of the position value it binds.
    public let values: [Int]

    /// Creates a condition.
    public init(sql: String, values: [Int]) {
        self.sql = sql
        self.values = values
    }

    /// All of `parts`, joined with `AND`.
    public init(all parts: [Bound]) {
        sql = parts.map(\.sql).joined(separator: " AND ")
        values = parts.flatMap(\.values)
    }
}
