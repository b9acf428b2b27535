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
        var answers = [ChangeRecorder.PlacementAnswer?](repeating: nil, count: reads.count)
        // Each range's statement, with the read it answers (by index) and the most it reads.
        var batch: [(read: Int, limit: Int, sql: String, arguments: [JSONValue])] = []
        for (index, read) in reads.enumerated() {
            switch read {
            case .before(let view, let position, let limit):
                let queries = windows.queries(of: view.reversed, from: position, inclusive: false)
                guard queries.count <= Self.maximumBatchedRanges else {
                    answers[index] = .items(try await items(before: position, in: view, limit: limit, session))
                    continue
                }
                let limit = max(0, limit)
                batch += queries.map { query in
                    guard dialect.writesLimits else {
                        return (index, limit, query.sql, query.arguments + [.integer(Int64(limit))])
                    }
                    let limited = WindowQueries.limited(query, limit: WindowQueries.roundedLimit(limit))
                    return (index, limit, limited.sql, limited.arguments)
                }
            case .beforeSection(let view, let key):
                let queries = beforeSectionQueries(key, in: view)
                guard queries.count <= Self.maximumBatchedRanges else {
                    answers[index] = .item(try await lastItem(beforeSection: key, in: view, session))
                    continue
                }
                batch += queries.map { (index, 1, $0.sql, $0.arguments) }
            }
        }
        var items = [[Item]](repeating: [], count: reads.count)
        if batch.count == 1, let only = batch.first {
            items[only.read] = Array(try await fetch(only.sql, only.arguments, session).prefix(only.limit))
        } else if !batch.isEmpty {
            // Each range's rows are tagged with its place in the batch and come in its order.
            let sql = batch.enumerated().map { place, range in
                let alias = "dm_range_\(place)"
                let columns = columns.map { "\(alias).\(SQL.quote($0))" }.joined(separator: ", ")
                return "SELECT \(columns), \(place) FROM (\(range.sql)) AS \(alias)"
            }.joined(separator: " UNION ALL ")
            var ranges = [[Item]](repeating: [], count: batch.count)
            for row in try await session.rows(sql, batch.flatMap(\.arguments)) {
                guard case .integer(let place)? = row.last, ranges.indices.contains(Int(place)) else {
                    throw DataMediatorError(.unavailable, "A read of the write's neighbours came back untagged.")
                }
                ranges[Int(place)].append(Item(row: row, layout: layout, types: columnTypes))
            }
            for (place, range) in batch.enumerated() where items[range.read].count < range.limit {
                items[range.read] += ranges[place].prefix(range.limit - items[range.read].count)
            }
        }
        for (index, read) in reads.enumerated() where answers[index] == nil {
            switch read {
            case .before: answers[index] = .items(items[index])
            case .beforeSection: answers[index] = .item(items[index].first)
            }
        }
        return answers.compactMap { $0 }
    }

    /// The most index ranges a read of a write's neighbours may have to be read with the
    /// others (each read to the read's limit, where a page reads the next range only when
    /// the one before fell short).
    static let maximumBatchedRanges = 4
}
