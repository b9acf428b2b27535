import DataMediator
import DataMediatorSQL
import DataMediatorTesting
import PostgresNIO
import Testing

@testable import DataMediatorPostgres

/// An import into PostgreSQL inserts up to a hundred records a statement; what it stores
/// and what it reports are what one record at a time stored and reported: an id that
/// exists or that an earlier record of the same statement has, a value a column cannot
/// hold, and a record the list's rules refuse are each named by their line, in file order.
@Suite struct PostgresImportRowsTests {
    /// 250 records (statements of 100, 100 and 50) with a bad one of each kind.
    static let records: [ImportRecord] = (1...250).map { line in
        var fields: [String: JSONValue] = ["id": .string("r\(line)"), "small": .integer(Int64(line))]
        switch line {
        case 7: fields["id"] = .string("old")  // in the table before the import
        case 40: fields["id"] = .string("r10")  // the id of line 10, in the same statement
        case 120: fields["small"] = .string("many")  // the list's rules: not a whole number
        case 150: fields["small"] = .integer(40_000)  // more than a smallint holds
        case 230: fields["id"] = .string("r130")  // the id of a line of an earlier statement
        default: break
        }
        return ImportRecord(line: line, fields: fields)
    }

    @Test func recordsInsertedTogetherAreStoredAndReportedAsOneAtATime() async throws {
        let fixture = try await PostgresFixture()
        try await fixture.store.primary.query(
            "CREATE TABLE legacy (id text PRIMARY KEY, a varchar(3), b text, small smallint, rev bigint)"
        )
        try await fixture.store.primary.query("INSERT INTO legacy (id, small) VALUES ('old', -1)")
        let source = StoreSource(kind: .table("legacy"), fieldTypes: PostgresWriteRefusalTests.fields)
        let definition = PostgresWriteRefusalTests.definition()
        let provider = try await fixture.store.provider(for: definition, source: source)
        let importer = try SQLImporter(reader: provider.reader, list: definition, source: source)

        // Without skipBad the first bad record stops it, and nothing is stored.
        let stopped = await #expect(throws: ImportStopped.self) {
            _ = try await importer.run(Self.records, skipBad: false)
        }
        #expect(stopped?.rejection.line == 7, "\(String(describing: stopped))")
        #expect(stopped?.rejection.reason.contains("exists already") == true)
        #expect(try await Self.stored(fixture) == ["old": -1])

        // With skipBad every bad one is named, in order, and the rest are stored.
        let summary = try await importer.run(Self.records, skipBad: true, batch: 1_000)
        #expect(summary.rejections.map(\.line) == [7, 40, 120, 150, 230])
        #expect(summary.imported == 245)
        let stored = try await Self.stored(fixture)
        #expect(stored.count == 246)
        #expect(stored["old"] == -1, "the row that was there is kept")
        #expect(stored["r10"] == 10, "the first record with an id is stored, not a later one")
        #expect(stored["r130"] == 130)
        #expect(stored["r150"] == nil && stored["r120"] == nil && stored["r249"] == 249)
    }

    /// The table's rows: each id's `small`.
    static func stored(_ fixture: PostgresFixture) async throws -> [String: Int] {
        let rows = try await fixture.store.primary.query("SELECT id, small FROM legacy")
        var stored: [String: Int] = [:]
        for try await (id, small) in rows.decode((String, Int?).self) { stored[id] = small ?? 0 }
        return stored
    }

    /// An import's transaction has no bound on its idle time, as none on its statements:
    /// it is idle while the import reads records, and the server ended it under an import
    /// that read a large record or was paused (review 106 #2).
    @Test func anImportsTransactionMayWaitForItsRecords() async throws {
        let fixture = try await PostgresFixture()
        let settings = try await fixture.store.bulkWrite { connection, _ in
            var shown: [String] = []
            for setting in ["idle_in_transaction_session_timeout", "statement_timeout", "lock_timeout"] {
                let rows = try await connection.query(
                    PostgresQuery(unsafeSQL: "SHOW \(setting)"),
                    logger: PostgresFixture.logger
                )
                for try await value in rows.decode(String.self) { shown.append(value) }
            }
            return shown
        }
        #expect(settings == ["0", "0", "0"])
    }
}

extension PostgresImportRowsTests {
    /// A command's failure on the store is told in the server's words (PostgresNIO's own
    /// description says only that it hides its details: an import that failed said so and
    /// nothing else, review 106 #4).
    @Test func aFailureIsToldInTheServersWords() async throws {
        let fixture = try await PostgresFixture()
        let failure = await #expect(throws: (any Error).self) {
            try await fixture.store.primary.query("SELECT 1 / 0")
        }
        let error = try #require(failure)
        #expect("\(error)".contains("Generic description"), "PostgresNIO tells more now: \(error)")
        #expect(PostgresStore.reason(of: error) == "the database said: division by zero")
    }
}

extension PostgresImportRowsTests {
    /// A connection the server closes between an import's statements (an operator's
    /// `pg_terminate_backend`, a failover) fails the import's next statement, saying so:
    /// PostgresNIO writes a statement to a closed channel and never answers it, and the
    /// import waited for ever (review 106 #2).
    @Test func aConnectionClosedBetweenStatementsFailsTheNext() async throws {
        let fixture = try await PostgresFixture()
        let other = try await PostgresFixture(sharing: fixture)
        // The close may reach the connection while the statement is on its way: then it is
        // PostgresNIO's own failure; never a wait without end.
        let failure = await #expect(throws: (any Error).self) {
            try await fixture.store.transactions.bulkWrite { session in
                let backend = try #require(try await session.rows("SELECT pg_backend_pid()", []).first?.first)
                _ = try await other.store.transactions.read { reader in
                    try await reader.rows("SELECT pg_terminate_backend(CAST(? AS integer))", [backend])
                }
                // The server's close reaches the connection.
                try await Task.sleep(for: .milliseconds(500))
                try await session.execute("SELECT 1", [])
            }
        }
        if let refused = failure as? DataMediatorError {
            #expect(refused.code == .unavailable, "\(refused)")
        }
    }
}
