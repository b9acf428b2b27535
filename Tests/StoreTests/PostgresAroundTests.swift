import DataMediator
import DataMediatorSQL
import DataMediatorTesting
import Foundation
import PostgresNIO
import Testing

@testable import DataMediatorPostgres

/// What only the PostgreSQL store does for an `around` page: one statement whose ranges
/// are index scans from the item's own sort keys.
@Suite struct PostgresAroundTests {
    @Test func anAroundPageOfAOneRangeViewIsOneStatementOfIndexScans() async throws {
        let fixture = try await PostgresFixture()
        try await fixture.store.primary.query(
            PostgresQuery(unsafeSQL: SQLiteFixture.createTable(.postgres, notNull: ["created"]))
        )
        let provider = try await fixture.store.provider(for: SampleList.definition, source: SQLiteFixture.source)
        try await fixture.insert(SampleList.items())
        let id = SampleList.items()[5]["id"].idString
        let statements = SampleList.views.compactMap { provider.reader.aroundQuery(id: id, in: $0) }
        #expect(!statements.isEmpty, "no view of the sample list is read around an item in one statement")
        for statement in statements {
            // As the store runs it: the limits written in (planned once when prepared).
            let limited = statement.limited(before: 3, from: 4)
            #expect(limited.sql.contains("LIMIT 3)") && limited.sql.contains("LIMIT 4)"))
            #expect(limited.sql.filter { $0 == "?" }.count == limited.arguments.count)
            let query = PostgresQuery(sql: limited.sql, values: limited.arguments)
            let plan = try await fixture.store.primary.withConnection { connection in
                // The sample is small enough for a scan to win; the question is whether the
                // index can serve each range, so scans and sorts are priced out.
                try await connection.query("SET enable_seqscan = off", logger: PostgresFixture.logger)
                try await connection.query("SET enable_sort = off", logger: PostgresFixture.logger)
                var explain = query
                explain.sql = "EXPLAIN " + query.sql
                var lines: [String] = []
                for try await line in try await connection.query(explain, logger: PostgresFixture.logger)
                    .decode(String.self)
                {
                    lines.append(line)
                }
                return lines.joined(separator: "\n")
            }
            // Both ranges are index conditions (a row comparison), not filters over a scan.
            #expect(plan.components(separatedBy: "Index Cond: (ROW(").count - 1 == 2, "\(plan)")
            #expect(!plan.contains("Seq Scan on sample") && !plan.contains("Sort"), "\(plan)")
        }
    }
}
