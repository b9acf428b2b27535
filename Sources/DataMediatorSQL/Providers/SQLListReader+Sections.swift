import DataMediator

extension SQLListReader {
    /// The view's sections and their counts: walked section by section on the view's index
    /// where it can be (at most `maximumSections` of them), else by one grouped query in
    /// the view's order.
    public func sectionCounts(
        of view: View,
        maximumSections: Int = Self.maximumSectionSeeks
    ) async throws -> SectionCounts {
        try await transactions.read { session in
            try await countSections(of: view, maximumSections: maximumSections, session)
        }
    }

    /// ``sectionCounts(of:maximumSections:)`` counted in the session's snapshot.
    func countSections(
        of view: View,
        maximumSections: Int = Self.maximumSectionSeeks,
        _ session: any SQLSession
    ) async throws -> SectionCounts {
        let (conditions, arguments) = keyset.filter(view)
        let whereClause = SQL.whereClause(conditions)
        let version = try await StoreVersion.current(session)
        guard let rule = view.section, let first = view.sort.first else {
            let total = try await count("SELECT COUNT(*) FROM \(from)\(whereClause)", arguments, session)
            let entries = total > 0 ? [SectionCounts.Entry(key: .null, count: total)] : []
            return SectionCounts(entries: entries, version: version)
        }
        if let entries = try await sectionCountsBySeeks(of: view, limit: maximumSections, session) {
            return SectionCounts(merging: entries, by: rule, version: version)
        }
        let key = keyset.sectionKey(rule)
        let order: String
        switch (dialect, first.order) {
        // By position: both read a name in GROUP BY as a source column first (a column
        // `section_key` of SQLite's table was grouped by, review 107 #4).
        case (.sqlite, .ascending): order = "GROUP BY 1 ORDER BY 1 ASC"
        case (.sqlite, .descending): order = "GROUP BY 1 ORDER BY 1 DESC"
        case (.postgres, .ascending): order = "GROUP BY 1 ORDER BY 1 ASC NULLS FIRST"
        case (.postgres, .descending): order = "GROUP BY 1 ORDER BY 1 DESC NULLS LAST"
        }
        let rows = try await session.rows(
            "SELECT \(key) AS section_key, COUNT(*) FROM \(from)\(whereClause) \(order)",
            arguments
        )
        let entries = rows.map { row in
            SectionCounts.Entry(
                key: fieldTypes[rule.field].map { $0.present(row[0]) } ?? row[0],
                count: Int(row[1].integerValue ?? 0)
            )
        }
        return SectionCounts(merging: entries, by: rule, version: version)
    }

    /// The number of sections of `view` before the section with `key`, found on the view's
    /// index, no row's section key computed but one per section: SQLite seeks from section
    /// to section one statement at a time (each is a function call away), PostgreSQL in one
    /// recursive statement (each would be a round trip). Nil, for a count of section keys to
    /// decide instead, when more than `limit` sections come before it, when the source is a
    /// query (no index to seek on), or when the section is one the seeks cannot tell apart
    /// (see ``sectionsBeforeStepwise(_:in:limit:_:)`` and
    /// ``sectionsBeforeRecursive(_:in:limit:_:)``).
    public func sectionsBefore(
        _ key: JSONValue,
        in view: View,
        limit: Int,
        _ session: any SQLSession
    ) async throws -> Int? {
        guard viewsAreIndexed, let rule = view.section, view.sort.first?.field == rule.field else { return nil }
        switch dialect {
        case .sqlite: return try await sectionsBeforeStepwise(key, in: view, limit: limit, session)
        case .postgres: return try await sectionsBeforeRecursive(key, in: view, limit: limit, session)
        }
    }

    /// The view's sections and their counts in view order, walked on the view's index as
    /// ``sectionsBefore(_:in:limit:_:)`` walks them, each section's rows counted on one
    /// range of the index. Nil, for the grouped query to count instead, when there are more
    /// than `limit` sections, when the section field holds JSON, when the source is a
    /// query, or when a section's rows are not one range.
    public func sectionCountsBySeeks(
        of view: View,
        limit: Int,
        _ session: any SQLSession
    ) async throws -> [SectionCounts.Entry]? {
        guard viewsAreIndexed, let rule = view.section, view.sort.first?.field == rule.field,
            fieldTypes[rule.field] != .json
        else { return nil }
        switch dialect {
        case .sqlite: return try await sectionCountsStepwise(of: view, limit: limit, session)
        case .postgres: return try await sectionCountsRecursive(of: view, limit: limit, session)
        }
    }

    /// ``sectionsBefore(_:in:limit:_:)`` one seek a statement
    /// (``lastItem(beforeSection:in:_:)``, as writes place items). Nil when a section on
    /// the way is the NULL or the empty one (which pages show as one section).
    func sectionsBeforeStepwise(
        _ key: JSONValue,
        in view: View,
        limit: Int,
        _ session: any SQLSession
    ) async throws -> Int? {
        guard let rule = view.section else { return nil }
        var sections = 0
        var current = key
        while true {
            guard current != .null, current != .string("") else { return nil }
            guard let previous = try await lastItem(beforeSection: current, in: view, session) else { break }
            sections += 1
            guard sections <= limit else { return nil }
            current = rule.key(for: previous[rule.field])
        }
        return sections
    }

    /// ``sectionCountsBySeeks(of:limit:_:)`` read from the view's end one statement at a
    /// time: the last item's section, its rows counted on one range of the view's index,
    /// then the section before it found by one seek, and so on.
    func sectionCountsStepwise(
        of view: View,
        limit: Int,
        _ session: any SQLSession
    ) async throws -> [SectionCounts.Entry]? {
        guard let rule = view.section else { return nil }
        let (conditions, arguments) = keyset.filter(view)
        var entries: [SectionCounts.Entry] = []
        var next = try await read(windows.queries(of: view.reversed, from: nil, inclusive: false), limit: 1, session)
            .first
        while let item = next {
            let key = rule.key(for: item[rule.field])
            guard entries.count < limit, let rows = keyset.sectionRows(key, of: rule) else { return nil }
            let count = try await count(
                "SELECT COUNT(*) FROM \(from)\(SQL.whereClause(conditions + [rows.sql]))",
                arguments + rows.arguments,
                session
            )
            entries.append(SectionCounts.Entry(key: key, count: count))
            next = try await lastItem(beforeSection: key, in: view, session)
        }
        return entries.reversed()
    }
}
