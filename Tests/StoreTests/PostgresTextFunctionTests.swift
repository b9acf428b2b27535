import DataMediatorPostgres
import PostgresNIO
import Testing

/// The functions that show time and enum columns as text are PL/pgSQL (the SQL-language
/// ones an earlier release made ran through the SQL function executor on every row, several
/// times slower), and a store made by that release gets them remade with the same text.
@Suite struct PostgresTextFunctionTests {
    static let expected: [(sql: String, text: String)] = [
        ("data_mediator_time_text(timestamptz '2026-11-19 21:04:00.123456+00', 6)", "2026-11-19T21:04:00.123456Z"),
        ("data_mediator_time_text(timestamptz '2026-11-19 23:04:00.5+02', 0)", "2026-11-19T21:04:00Z"),
        ("data_mediator_time_text(timestamptz '2026-11-19 21:04:00.5+00', 1)", "2026-11-19T21:04:00.5Z"),
        ("data_mediator_time_text(timestamptz 'infinity', 6)", "infinity"),
        ("data_mediator_time_text(timestamptz '-infinity', 6)", "-infinity"),
        ("data_mediator_time_text(timestamp '2026-01-02 03:04:05.678', 3)", "2026-01-02T03:04:05.678"),
        ("data_mediator_time_text(date '2026-01-02')", "2026-01-02"),
        ("data_mediator_time_text(date 'infinity')", "infinity"),
        ("data_mediator_enum_text('high'::dm_level)", "high"),
        ("coalesce(data_mediator_time_text(NULL::date), 'null')", "null"),
    ]

    /// The language of each of the service's text functions, by signature.
    static func languages(_ fixture: PostgresFixture) async throws -> [String] {
        var languages: [String] = []
        let rows = try await fixture.store.primary.query(
            """
            SELECT p.oid::regprocedure::text || ' ' || l.lanname FROM pg_proc p JOIN pg_language l ON l.oid = p.prolang
            WHERE p.proname IN ('data_mediator_time_text', 'data_mediator_enum_text') ORDER BY 1
            """
        )
        for try await line in rows.decode(String.self) { languages.append(line) }
        return languages
    }

    static func expectTexts(_ fixture: PostgresFixture) async throws {
        for (sql, text) in expected {
            let rows = try await fixture.store.primary.query(PostgresQuery(unsafeSQL: "SELECT \(sql)"))
            var shown: [String] = []
            for try await value in rows.decode(String.self) { shown.append(value) }
            #expect(shown == [text], "\(sql)")
        }
    }

    @Test func theTextFunctionsArePLpgSQLAndShowTheServicesText() async throws {
        let fixture = try await PostgresFixture()
        try await fixture.store.primary.query("CREATE TYPE dm_level AS ENUM ('low', 'high')")
        let languages = try await Self.languages(fixture)
        #expect(languages.count == 4 && languages.allSatisfy { $0.hasSuffix(" plpgsql") }, "\(languages)")
        try await Self.expectTexts(fixture)
    }

    @Test func sqlFunctionsOfAnEarlierReleaseAreRemade() async throws {
        let fixture = try await PostgresFixture()
        try await fixture.store.primary.query("CREATE TYPE dm_level AS ENUM ('low', 'high')")
        for signature in ["timestamptz, integer", "timestamp, integer", "date"] {
            try await fixture.store.primary.query(
                PostgresQuery(
                    unsafeSQL: """
                        CREATE OR REPLACE FUNCTION data_mediator_time_text(\(signature)) RETURNS text
                        LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $fn$ SELECT 'old' $fn$
                        """
                )
            )
        }
        try await fixture.store.primary.query(
            """
            CREATE OR REPLACE FUNCTION data_mediator_enum_text(anyenum) RETURNS text
            LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $fn$ SELECT 'old' $fn$
            """
        )
        #expect(try await Self.languages(fixture).allSatisfy { $0.hasSuffix(" sql") })
        // That release kept no mark of its statements (``ServiceTables/schemaMark(_:)``).
        try await fixture.store.primary.query("COMMENT ON TABLE data_mediator_store IS NULL")
        try await fixture.store.prepare()
        let remade = try await Self.languages(fixture)
        #expect(remade.count == 4 && remade.allSatisfy { $0.hasSuffix(" plpgsql") }, "\(remade)")
        try await Self.expectTexts(fixture)
        // Preparing again (every replica's start) leaves them as they are.
        try await fixture.store.prepare()
        try await Self.expectTexts(fixture)
    }
}
