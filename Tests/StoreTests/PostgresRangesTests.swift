import DataMediator
import DataMediatorSQL
import DataMediatorTesting
import PostgresNIO
import Testing

@testable import DataMediatorPostgres

/// A page of a view whose order is several index ranges (nullable keys) is one statement
/// on PostgreSQL, as a page of one range is: no transaction, one round trip.
@Suite struct PostgresRangesTests {
    /// How many times the connection's prepared reads have run in all.
    private func runs(_ fixture: PostgresFixture) async throws -> Int {
        let rows = try await fixture.store.reader.query(
            """
            SELECT coalesce(sum(generic_plans + custom_plans), 0)::int8
            FROM pg_prepared_statements WHERE name LIKE 'dm_statement_%'
            """
        )
        for try await count in rows.decode(Int64.self) { return Int(count) }
        return 0
    }

    @Test func aPageOfSeveralRangesIsOneStatementAndReadsTheViewInOrder() async throws {
        // One connection, so the pages and the count after them meet on it.
        let fixture = try await PostgresFixture(connections: 1)
        // No column NOT NULL: every view's keys are nullable, so its order is several ranges.
        let provider = try await fixture.store.provider(for: SampleList.definition, source: SQLiteFixture.source)
        try await fixture.insert(SampleList.items())
        var severalRanges = 0
        for view in SampleList.views where view.parameters.isEmpty {
            let expected = SampleList.expectedOrder(SampleList.items(), view: view)
            var start: Position? = nil
            var seen: [Item] = []
            while true {
                let ranges = provider.reader.windows.queries(of: view, from: start, inclusive: false).count
                let before = try await runs(fixture)
                let window = try await provider.window(of: view, from: start, inclusive: false, limit: 4)
                if ranges > 1, !window.items.isEmpty {
                    severalRanges += 1
                    #expect(try await runs(fixture) == before + 1, "\(view.name): one statement a page")
                    // What reading the ranges one after another in a transaction answers.
                    let read = try await provider.reader.window(of: view, from: start, inclusive: false, limit: 4)
                    #expect(window.items == read.items && window.version == read.version)
                }
                seen += window.items
                guard let last = window.items.last, window.items.count == 4 else { break }
                start = view.position(of: last)
            }
            #expect(seen.map { $0["id"] } == expected.map { $0["id"] }, "\(view.name)")
        }
        #expect(severalRanges > 0)
    }

    /// A window of several ranges brings no more rows to the service than it holds: of
    /// each range's rows up to the limit, PostgreSQL keeps the first in view order (each
    /// range's rows alike came over the connection, to be decoded and left out).
    @Test func aWindowOfSeveralRangesSendsOnlyTheRowsItHolds() async throws {
        let fixture = try await PostgresFixture(connections: 1)
        let provider = try await fixture.store.provider(for: SampleList.definition, source: SQLiteFixture.source)
        try await fixture.insert(SampleList.items())
        func rows(_ statement: (sql: String, arguments: [JSONValue])) async throws -> Int {
            var count = 0
            let answer = try await fixture.store.reader.query(
                PostgresQuery(sql: SQL.numbered(statement.sql), values: statement.arguments)
            )
            for try await _ in answer { count += 1 }
            return count
        }
        var checked = 0
        for view in SampleList.views where view.parameters.isEmpty {
            let items = SampleList.expectedOrder(SampleList.items(), view: view)
            for index in [0, items.count / 3, items.count / 2, items.count - 5] {
                let start = view.position(of: items[index])
                let queries = provider.reader.windows.queries(of: view, from: start, inclusive: true)
                guard queries.count > 1 else { continue }
                checked += 1
                let window = try await provider.window(of: view, from: start, inclusive: true, limit: 4)
                let union = provider.reader.windows.union(queries, of: view, limit: 4)
                #expect(try await rows(union) == window.items.count, "\(view.name) at \(index)")
                let both = provider.reader.windows.both(
                    of: view,
                    at: start,
                    inclusive: true,
                    before: 3,
                    from: 4,
                    bindingLimits: false
                )
                let held = min(index, 3) + min(items.count - index, 4)
                #expect(try await rows(both) == held, "\(view.name) at \(index)")
            }
        }
        #expect(checked > 0)
    }
}
