import DataMediator

/// PostgreSQL's walks over a view's sections: one recursive statement (a loose index
/// scan) hops from each section to the next on the view's index, where SQLite takes one
/// statement per hop.
extension SQLListReader {
    /// ``sectionsBefore(_:in:limit:_:)`` in one recursive statement. Nil when the section
    /// field is not text, when `key` is NULL or empty (which pages show as one section), or
    /// when a section key has no next text to seek to.
    func sectionsBeforeRecursive(
        _ key: JSONValue,
        in view: View,
        limit: Int,
        _ session: any SQLSession
    ) async throws -> Int? {
        guard let rule = view.section, let leading = view.sort.first, keyset.textColumns.contains(rule.field),
            case .string(let text) = key, !text.isEmpty
        else { return nil }
        let quoted = SQL.quote(rule.field)
        let column = keyset.column(rule.field)
        let descending = leading.order == .descending
        let (sectionKey, end, stuck) = sectionWalk(rule)
        // The rows of the sections before section `k`: descending, the texts from the
        // least one after section `k`'s; ascending, the smaller ones.
        let before = descending ? "\(column) >= \(end)" : "\(column) < \(Self.hop)"
        let (conditions, arguments) = keyset.filter(view)
        // The nearest row first: the view's order reversed, NULLs placed as the index has
        // them, so that the index is read backwards from the bound.
        let reversed = SortKey(rule.field, descending ? .ascending : .descending)
        let nearest = "ORDER BY \(keyset.orderTerm(reversed)) LIMIT 1"
        let sql = """
            WITH RECURSIVE \(Self.hops)(\(Self.key), \(Self.step)) AS (
                SELECT CAST(? AS text) COLLATE "C", 0
                UNION ALL
                SELECT (SELECT \(sectionKey) FROM \(from)\(SQL.whereClause(conditions + [before])) \(nearest)) COLLATE "C",
                    \(Self.hopStep) + 1
                FROM \(Self.hops) WHERE \(Self.hop) IS NOT NULL AND \(Self.hopStep) < ? AND NOT (\(stuck))
            )
            SELECT COUNT(\(Self.hop)) - 1, bool_or(\(Self.hop) IS NOT NULL AND (\(Self.hopStep) = ? OR \(stuck))),
                (SELECT \(Self.hop) FROM \(Self.hops) WHERE \(Self.hop) IS NOT NULL ORDER BY \(Self.hopStep) DESC LIMIT 1)
            FROM \(Self.hops)
            """
        let rows = try await session.rows(
            sql,
            [key] + arguments + [.integer(Int64(limit)), .integer(Int64(limit))]
        )
        guard let answer = rows.first, answer.count == 3, let sections = answer[0].integerValue,
            answer[1] == .bool(false), let last = answer[2].stringValue
        else { return nil }
        // Ascending, NULLs come first: their section is one more before, unless it is the
        // empty text's, which pages show together with them.
        guard !descending, last != "" else { return Int(sections) }
        let nulls = try await count(
            "SELECT COUNT(*) FROM (SELECT 1 FROM \(from)\(SQL.whereClause(conditions + ["\(quoted) IS NULL"])) LIMIT 1) AS n",
            arguments,
            session
        )
        return Int(sections) + nulls
    }

    /// ``sectionCountsBySeeks(of:limit:_:)`` in one recursive statement, walked forwards.
    /// NULLs are one section, first ascending and last descending. Nil when the section
    /// field is not text or a key has no next text to seek to.
    func sectionCountsRecursive(
        of view: View,
        limit: Int,
        _ session: any SQLSession
    ) async throws -> [SectionCounts.Entry]? {
        guard let rule = view.section, let leading = view.sort.first, keyset.textColumns.contains(rule.field) else {
            return nil
        }
        let quoted = SQL.quote(rule.field)
        let column = keyset.column(rule.field)
        let descending = leading.order == .descending
        let (conditions, arguments) = keyset.filter(view)
        let (sectionKey, end, stuck) = sectionWalk(rule)
        // The rows after section `k` in view order, and the rows of section `k`.
        let after = descending ? "\(column) < \(Self.hop)" : "\(column) >= \(end)"
        let rows = "\(column) >= \(Self.hop) AND \(column) < \(end)"
        let nearest = "ORDER BY \(keyset.orderTerm(leading)) LIMIT 1"
        let notNull = SQL.whereClause(conditions + ["\(quoted) IS NOT NULL"])
        let sql = """
            WITH RECURSIVE \(Self.hops)(\(Self.key), \(Self.step)) AS (
                SELECT (SELECT \(sectionKey) FROM \(from)\(notNull) \(nearest)) COLLATE "C", 0
                UNION ALL
                SELECT (SELECT \(sectionKey) FROM \(from)\(SQL.whereClause(conditions + [after])) \(nearest)) COLLATE "C",
                    \(Self.hopStep) + 1
                FROM \(Self.hops) WHERE \(Self.hop) IS NOT NULL AND \(Self.hopStep) < ? AND NOT (\(stuck))
            )
            SELECT \(Self.hop), (SELECT COUNT(*) FROM \(from)\(SQL.whereClause(conditions + [rows]))),
                \(Self.hopStep) = ? OR \(stuck)
            FROM \(Self.hops) WHERE \(Self.hop) IS NOT NULL ORDER BY \(Self.hopStep)
            """
        let values = arguments + arguments + [.integer(Int64(limit))] + arguments + [.integer(Int64(limit))]
        var entries: [SectionCounts.Entry] = []
        for row in try await session.rows(sql, values) {
            guard row.count == 3, let key = row[0].stringValue, row[2] == .bool(false) else { return nil }
            entries.append(SectionCounts.Entry(key: .string(key), count: Int(row[1].integerValue ?? 0)))
        }
        let nulls = try await count(
            "SELECT COUNT(*) FROM \(from)\(SQL.whereClause(conditions + ["\(quoted) IS NULL"]))",
            arguments,
            session
        )
        guard nulls > 0 else { return entries }
        let section = SectionCounts.Entry(key: .null, count: nulls)
        return descending ? entries + [section] : [section] + entries
    }

    /// The SQL of walking `rule`'s sections over a section key `k`, on a text field: a row's
    /// section key; the least text after every text of section `k` (after all those that
    /// start with the prefix `k`, or just after `k` when it is shorter than the prefix or
    /// the sections are values); and whether `k` has no such text (`chr` has no character
    /// after U+D7FF, the surrogates, or U+10FFFF), which stops a walk and is reported.
    private func sectionWalk(_ rule: SectionRule) -> (sectionKey: String, end: String, stuck: String) {
        let text = keyset.text(rule.field)
        let k = Self.hop
        guard let length = rule.grouping.prefixLength else { return (text, "\(k) || chr(1)", "FALSE") }
        return (
            "substr(\(text), 1, \(length))",
            "(CASE WHEN char_length(\(k)) = \(length) THEN left(\(k), -1) || chr(ascii(right(\(k), 1)) + 1) "
                + "ELSE \(k) || chr(1) END)",
            "char_length(\(k)) = \(length) AND ascii(right(\(k), 1)) IN (55295, 1114111)"
        )
    }

    /// The walk's names: the recursive table, its section key and its step, and the key
    /// and the step qualified. Names of the service's own, qualified, so that a column of
    /// the list's table is never taken for them (a column `k` took the walk's `k`: its
    /// counts were wrong, or `503` for good, review 107 #3).
    static let hops = "data_mediator_hops"
    static let key = "data_mediator_key"
    static let step = "data_mediator_step"
    static var hop: String { "\(hops).\(key)" }
    static var hopStep: String { "\(hops).\(step)" }
}
