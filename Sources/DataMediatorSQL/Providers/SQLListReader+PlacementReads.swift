import DataMediator

extension SQLListReader {
    /// The answers to the reads the placement rules ask for, in order, read in the session's
    /// transaction (a write's, to place the item it wrote) by one statement: each read's
    /// statements (one per index range of its view, in view order) as subqueries of one
    /// `UNION ALL`, each range read up to the read's limit, and a read's items are its
    /// ranges' rows in order, up to its limit.
    ///
    /// Each statement is a round trip to a database server, and a write waits for each in
    /// turn, for a core too when a flood keeps them busy; a write places its item in every
    /// view of every list over its table, a few reads each. A read of many ranges (over
    /// ``maximumBatchedRanges``) is read one range at a time instead, as a page is.
    public func answers(
        to reads: [ChangeRecorder.PlacementRead],
        _ session: any SQLSession
    ) async throws -> [ChangeRecorder.PlacementAnswer] {
        try await Self.answers(to: [(self, reads)], session)[0]
    }

    /// ``answers(to:_:)`` for the readers of several lists over one table at once, each
    /// list's answers in order: the ranges of every list that reads the same columns in one
    /// `UNION ALL` (a write places its item in the views of every list over its table). The
    /// columns are selected by name in the order of the first such list; lists that read
    /// other columns are read by a statement of their own (padding with `NULL` would need
    /// each column's type: PostgreSQL types a `UNION`'s columns pair by pair).
    public static func answers(
        to asked: [(reader: SQLListReader, reads: [ChangeRecorder.PlacementRead])],
        _ session: any SQLSession
    ) async throws -> [[ChangeRecorder.PlacementAnswer]] {
        var answers = asked.map { [ChangeRecorder.PlacementAnswer?](repeating: nil, count: $0.reads.count) }
        // Each range's statement, with the list and read it answers (by index) and the most
        // it reads.
        var batch: [Range] = []
        for (list, (reader, reads)) in asked.enumerated() {
            for (index, read) in reads.enumerated() {
                switch read {
                case .before(let view, let position, let limit):
                    let queries = reader.windows.queries(of: view.reversed, from: position, inclusive: false)
                    guard queries.count <= maximumBatchedRanges else {
                        let items = try await reader.items(before: position, in: view, limit: limit, session)
                        answers[list][index] = .items(items)
                        continue
                    }
                    let limit = max(0, limit)
                    batch += queries.map { query in
                        guard reader.dialect.writesLimits else {
                            return Range(list, index, limit, query.sql, query.arguments + [.integer(Int64(limit))])
                        }
                        let limited = WindowQueries.limited(query, limit: WindowQueries.roundedLimit(limit))
                        return Range(list, index, limit, limited.sql, limited.arguments)
                    }
                case .beforeSection(let view, let key):
                    let queries = reader.beforeSectionQueries(key, in: view)
                    guard queries.count <= maximumBatchedRanges else {
                        answers[list][index] = .item(try await reader.lastItem(beforeSection: key, in: view, session))
                        continue
                    }
                    batch += queries.map { Range(list, index, 1, $0.sql, $0.arguments) }
                }
            }
        }
        var items = asked.map { [[Item]](repeating: [], count: $0.reads.count) }
        var groups: [[Range]] = []
        for range in batch {
            let columns = Set(asked[range.list].reader.columns)
            if let group = groups.firstIndex(where: { Set(asked[$0[0].list].reader.columns) == columns }) {
                groups[group].append(range)
            } else {
                groups.append([range])
            }
        }
        for group in groups {
            let ranges = try await read(group, of: asked.map(\.reader), session)
            for (range, rows) in zip(group, ranges) where items[range.list][range.read].count < range.limit {
                items[range.list][range.read] += rows.prefix(range.limit - items[range.list][range.read].count)
            }
        }
        for (list, (_, reads)) in asked.enumerated() {
            for (index, read) in reads.enumerated() where answers[list][index] == nil {
                switch read {
                case .before: answers[list][index] = .items(items[list][index])
                case .beforeSection: answers[list][index] = .item(items[list][index].first)
                }
            }
        }
        return answers.map { $0.compactMap { $0 } }
    }

    /// One range of a read of a write's neighbours: the list and read it answers (by index),
    /// the most it reads, its statement.
    private struct Range {
        let list: Int
        let read: Int
        let limit: Int
        let sql: String
        let arguments: [JSONValue]

        init(_ list: Int, _ read: Int, _ limit: Int, _ sql: String, _ arguments: [JSONValue]) {
            (self.list, self.read, self.limit, self.sql, self.arguments) = (list, read, limit, sql, arguments)
        }
    }

    /// The rows of `ranges` (of lists that read the same columns), each range's in its
    /// order, by one statement: each range's rows tagged with its place.
    private static func read(
        _ ranges: [Range],
        of readers: [SQLListReader],
        _ session: any SQLSession
    ) async throws -> [[Item]] {
        if ranges.count == 1, let only = ranges.first {
            return [Array(try await readers[only.list].fetch(only.sql, only.arguments, session).prefix(only.limit))]
        }
        let columns = readers[ranges[0].list].columns
        let selected = ranges.enumerated().map { place, range in
            let alias = "dm_range_\(place)"
            let named = columns.map { "\(alias).\(SQL.quote($0))" }.joined(separator: ", ")
            return "SELECT \(named), \(place) FROM (\(range.sql)) AS \(alias)"
        }
        // Where each list's columns are in a row.
        let places = readers.map { reader in reader.columns.map { columns.firstIndex(of: $0) ?? 0 } }
        var rows = [[Item]](repeating: [], count: ranges.count)
        for row in try await session.rows(selected.joined(separator: " UNION ALL "), ranges.flatMap(\.arguments)) {
            guard case .integer(let place)? = row.last, rows.indices.contains(Int(place)) else {
                throw DataMediatorError(.unavailable, "A read of the write's neighbours came back untagged.")
            }
            let reader = readers[ranges[Int(place)].list]
            let values = places[ranges[Int(place)].list].map { row[$0] }
            rows[Int(place)].append(Item(row: values, layout: reader.layout, types: reader.columnTypes))
        }
        return rows
    }

    /// The most index ranges a read of a write's neighbours may have to be read with the
    /// others (each read to the read's limit, where a page reads the next range only when
    /// the one before fell short).
    static let maximumBatchedRanges = 4
}
