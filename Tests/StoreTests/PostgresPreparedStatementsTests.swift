import DataMediator
import DataMediatorSQL
import DataMediatorTesting
import Foundation
import PostgresNIO
import Synchronization
import Testing

@testable import DataMediatorPostgres

/// A connection parses and plans a read's or a write's statement once and then only runs
/// it: planning a page costs PostgreSQL more than reading it does.
@Suite struct PostgresPreparedStatementsTests {
    /// Walks every sample view page by page `rounds` times over one connection and returns
    /// that connection's prepared reads: how many there are, and how often the most used ran.
    private func walk(
        _ fixture: PostgresFixture,
        rounds: Int
    ) async throws -> (statements: Int, runs: Int, generic: Int) {
        try await fixture.store.primary.query(
            PostgresQuery(unsafeSQL: SQLiteFixture.createTable(.postgres, notNull: ["created"]))
        )
        let provider = try await fixture.store.provider(for: SampleList.definition, source: SQLiteFixture.source)
        try await fixture.insert(SampleList.items())
        var counts: [Int] = []
        for _ in 0..<rounds {
            for view in SampleList.views {
                var start: Position? = nil
                var seen: [Item] = []
                while true {
                    let window = try await provider.window(of: view, from: start, inclusive: false, limit: 7)
                    seen += window.items
                    guard let last = window.items.last, window.items.count == 7 else { break }
                    start = view.position(of: last)
                }
                // Prepared or not, the walk reads the view's items in its order.
                let expected = SampleList.expectedOrder(SampleList.items(), view: view)
                #expect(seen.map { $0["id"] } == expected.map { $0["id"] })
            }
            counts.append(try await preparedReads(fixture).statements)
        }
        // The statements a connection holds do not grow with the pages it reads.
        #expect(Set(counts).count == 1, "\(counts)")
        return try await preparedReads(fixture)
    }

    /// The connection's prepared reads: how many, how often the most used ran, and how many
    /// runs in all used a generic plan (one planned once, not again for each page).
    private func preparedReads(_ fixture: PostgresFixture) async throws -> (statements: Int, runs: Int, generic: Int) {
        let rows = try await fixture.store.reader.query(
            """
            SELECT count(*)::int8, coalesce(max(generic_plans + custom_plans), 0)::int8,
            coalesce(sum(generic_plans), 0)::int8
            FROM pg_prepared_statements WHERE name LIKE 'dm_statement_%'
            """
        )
        for try await (statements, runs, generic) in rows.decode((Int64, Int64, Int64).self) {
            return (Int(statements), Int(runs), Int(generic))
        }
        return (0, 0, 0)
    }

    @Test func aConnectionPreparesEachReadOnceAndRunsItForEveryPage() async throws {
        // One connection, so every page and the question after them meet on it.
        let fixture = try await PostgresFixture(connections: 1)
        let reads = try await walk(fixture, rounds: 3)
        #expect(reads.statements > 0)
        // The first page of a view runs once a round at least, from one preparation.
        #expect(reads.runs >= 3 * 2, "\(reads)")
        // PostgreSQL plans a statement anew on each run until a generic plan prices as well
        // as the runs' own: with the limit written in, pages past the fifth run from one plan.
        #expect(reads.generic > 0, "\(reads)")
    }

    @Test func withPreparationOffEveryReadIsSentUnnamed() async throws {
        let fixture = try await PostgresFixture(connections: 1, prepareStatements: false)
        let reads = try await walk(fixture, rounds: 2)
        #expect(reads.statements == 0 && reads.runs == 0 && reads.generic == 0)
    }

    /// A write's statements repeat for every write (the version's lock, the row, the
    /// version's raise, the placements, the change log): a connection plans them once.
    @Test func aConnectionPreparesAWritesStatementsOnceAndAValueTheServerRefusesSpoilsNone() async throws {
        let fixture = try await PostgresFixture(connections: 1)
        let adapter = try await fixture.store.adapter(
            for: WritableSubject.definition("notes"),
            source: StoreSource(kind: .table("notes"), fieldTypes: WritableSubject.fields),
            signer: CursorSigner(secret: SampleList.secret)
        )
        func create(_ id: String, group: String = "a") async throws {
            let data: [String: JSONValue] = ["title": .string(id), "group": .string(group), "score": .integer(1)]
            _ = try await adapter.create(body: .object(["id": .string(id), "data": .object(data)]), scope: nil)
        }
        try await create("n0")
        // Refused by the server when run (too long for an entry of the view's index on
        // `group`, and random, so not compressed below it), on the prepared insert.
        let long = (0..<600).map { _ in UUID().uuidString }.joined()
        let refused = await #expect(throws: DataMediatorError.self) { try await create("long", group: long) }
        #expect(refused?.code == .invalidItem)
        for index in 1...5 { try await create("n\(index)") }
        let rows = try await fixture.store.primary.query(
            """
            SELECT count(*)::int8, coalesce(max(generic_plans + custom_plans), 0)::int8
            FROM pg_prepared_statements WHERE name LIKE 'dm_statement_%' AND statement LIKE 'INSERT INTO "notes"%'
            """
        )
        var inserts: (statements: Int64, runs: Int64) = (0, 0)
        for try await row in rows.decode((Int64, Int64).self) { inserts = row }
        // One insert statement, run by the five writes after the refusal (a run that fails
        // is not counted) and the one before it.
        #expect(inserts.statements == 1 && inserts.runs == 6, "\(inserts)")
        let walk = try await SampleList.walk(adapter, view: "flat", limit: 10)
        #expect(walk.items.map(\.id).sorted() == ["n0", "n1", "n2", "n3", "n4", "n5"])
    }

    /// A statement the server refused to prepare (its table not there yet, as on a read
    /// replica that has not replayed it) runs again once the table is there, on the same
    /// connection: PostgresNIO keeps the refusal for its name, so it rests unnamed a while,
    /// then is prepared under a new name.
    @Test func aStatementRefusedForAMissingTableRunsOnceTheTableIsThere() async throws {
        let fixture = try await PostgresFixture(connections: 1)
        // The rests' clock, moved by hand.
        let clock = Mutex(ContinuousClock.now)
        let statements = PreparedStatements(enabled: true, now: { clock.withLock { $0 } })
        func wait(_ duration: Duration) { clock.withLock { $0 += duration } }
        let sql = "SELECT x FROM arrives_later WHERE x > ?"
        let bound: [JSONValue] = [.integer(0)]
        let first = try #require(statements.statement(of: sql, binding: bound)).name
        let logger = PostgresFixture.logger
        func count(_ connection: PostgresConnection) async throws -> Int {
            var rows = 0
            let read = try await connection.rows(of: sql, binding: bound, preparedIn: statements, logger: logger)
            for try await _ in read { rows += 1 }
            return rows
        }
        try await fixture.store.primary.withConnection { connection in
            await #expect(throws: PSQLError.self) { _ = try await count(connection) }
            _ = try await connection.query("CREATE TABLE arrives_later (x int8)", logger: logger)
            _ = try await connection.query("INSERT INTO arrives_later VALUES (1), (2)", logger: logger)
            // While it rests: unnamed, and read.
            #expect(statements.statement(of: sql, binding: bound) == nil)
            #expect(try await count(connection) == 2)
            // After the rest: prepared under another name, on the connection that was refused.
            wait(.milliseconds(1_100))
            let second = try #require(statements.statement(of: sql, binding: bound)).name
            #expect(second != first)
            #expect(try await count(connection) == 2)
            #expect(try await count(connection) == 2)
        }
        // Refusals in a row double the rest: 2 s, then 4 s.
        statements.refused(sql, binding: bound)
        statements.refused(sql, binding: bound)
        wait(.seconds(3))
        #expect(statements.statement(of: sql, binding: bound) == nil, "rests 4 s after a third refusal in a row")
        wait(.milliseconds(1_100))
        #expect(statements.statement(of: sql, binding: bound) != nil)
        // A refusal long after the last rest rests 1 s again.
        wait(.seconds(60))
        statements.refused(sql, binding: bound)
        wait(.milliseconds(1_100))
        #expect(statements.statement(of: sql, binding: bound) != nil)
    }

    @Test func aStatementBindingOtherTypesIsAnotherStatement() {
        let statements = PreparedStatements(enabled: true, limit: 3)
        let sql = "SELECT * FROM t WHERE k > ? LIMIT ?"
        let number = statements.statement(of: sql, binding: [.integer(5), .integer(10)])?.name
        #expect(number != nil)
        #expect(statements.statement(of: sql, binding: [.integer(5), .integer(10)])?.text == SQL.numbered(sql))
        #expect(statements.statement(of: sql, binding: [.integer(9), .integer(2)])?.name == number)
        let text = statements.statement(of: sql, binding: [.string("5"), .integer(10)])?.name
        #expect(text != nil && text != number)
        // A name forgotten (a preparation that failed for a passing reason) is not reused.
        statements.forget(sql, binding: [.string("5"), .integer(10)])
        let again = statements.statement(of: sql, binding: [.string("5"), .integer(10)])?.name
        #expect(again != nil && again != text)
        // Past the limit, a new statement runs unnamed; the named ones stay.
        #expect(statements.statement(of: sql, binding: [.null, .integer(10)])?.name != nil)
        #expect(statements.statement(of: sql, binding: [.bool(true), .integer(10)])?.name == nil)
        #expect(statements.statement(of: sql, binding: [.integer(1), .integer(1)])?.name == number)
        #expect(PreparedStatements.none.statement(of: sql, binding: [.integer(1), .integer(1)]) == nil)
    }

    /// A client chooses a page's limit, which is written into its SQL, and a write's
    /// columns: texts that differ only in their limits take ``PreparedStatements/limitsPerFamily``
    /// names, writes half of them, so that no client takes the names every other statement
    /// needs (review 80: about 500 pages with other limits would have).
    @Test func pagesOfManyLimitsAndWritesOfManyColumnsLeaveNamesForTheRest() {
        let statements = PreparedStatements(enabled: true, limit: 64)
        let page = { (limit: Int) in
            "SELECT * FROM (SELECT * FROM t WHERE k > ? LIMIT \(limit)) UNION ALL (SELECT * FROM t LIMIT \(limit))"
        }
        let pages = (1...200).map { statements.statement(of: page($0), binding: [.integer(1)])?.name }
        #expect(pages.prefix(PreparedStatements.limitsPerFamily).allSatisfy { $0 != nil })
        #expect(pages.dropFirst(PreparedStatements.limitsPerFamily).allSatisfy { $0 == nil })
        let writes = (0..<100).map {
            statements.statement(of: "UPDATE t SET c\($0) = ? WHERE id = ?", binding: [])?.name
        }
        #expect(writes.compactMap { $0 }.count == 32)
        #expect(statements.statement(of: "SELECT * FROM u WHERE k > ? LIMIT 51", binding: [.integer(1)]) != nil)
        #expect(statements.statement(of: "SELECT count(*) FROM u", binding: []) != nil)
        // A name dropped (a failed preparation) frees its place in its family.
        statements.forget(page(1), binding: [.integer(1)])
        #expect(statements.statement(of: page(300), binding: [.integer(1)]) != nil)
        #expect(statements.statement(of: page(301), binding: [.integer(1)]) == nil)
        #expect(PreparedStatements.family(of: page(7)) == PreparedStatements.family(of: page(1_000)))
        #expect(PreparedStatements.family(of: "SELECT * FROM t LIMIT ?") == nil)
    }
}
