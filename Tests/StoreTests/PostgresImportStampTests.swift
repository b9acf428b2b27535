import DataMediator
import DataMediatorPostgres
import DataMediatorSQL
import DataMediatorTesting
import Foundation
import PostgresNIO
import Testing

/// An import into PostgreSQL raises its table's stamp once per transaction, not once per
/// record (one `UPDATE` of the stamp's row per record made each next record slower), and
/// what the service keeps per stamp (sections, places) still follows it.
@Suite struct PostgresImportStampTests {
    static func stamp(_ fixture: PostgresFixture, of table: String = "docs") async throws -> Int64 {
        let rows = try await fixture.store.primary.query(
            PostgresQuery(unsafeSQL: "SELECT (\(TableStamps.currentSQL(of: [table])))::bigint")
        )
        for try await stamp in rows.decode(Int64.self) { return stamp }
        return -1
    }

    @Test func anImportRaisesTheStampOnceAndWhatIsKeptFollowsIt() async throws {
        let fixture = try await PostgresFixture()
        try await PostgresJSONColumnTests.table(fixture)
        let source = StoreSource(kind: .table("docs"), fieldTypes: PostgresJSONColumnTests.fields)
        let definition = PostgresJSONColumnTests.definition
        let provider = try await fixture.store.provider(for: definition, source: source)
        let adapter = ListAdapter(
            definition: definition,
            provider: provider,
            signer: CursorSigner(secret: SampleList.secret)
        )
        #expect(try await adapter.sectionInfo(view: nil).total == 0)
        let before = try await Self.stamp(fixture)
        let importer = try SQLImporter(reader: provider.reader, list: definition, source: source)
        let records = (1...40).map { number in
            ImportRecord(line: number, fields: ["id": .string("i\(number)"), "title": .string("t\(100 + number)")])
        }
        let summary = try await importer.run(records, skipBad: true, batch: 25)
        #expect(summary.imported == 40)
        // Two transactions (25 and 15 records), each one raise.
        #expect(try await Self.stamp(fixture) == before + 2)
        #expect(try await adapter.sectionInfo(view: nil).total == 40)
        #expect(try await adapter.locate(id: "i30", view: nil).position == 29)
        // Outside an import every statement raises it, as before.
        try await fixture.store.primary.query("INSERT INTO docs (id, title) VALUES ('a', 'a')")
        #expect(try await Self.stamp(fixture) == before + 3)
        #expect(try await adapter.locate(id: "i30", view: nil).position == 30)
    }

    /// An import leaves the stamp alone for its own table only: a trigger of that table
    /// that writes another served table counts there (the import's setting silenced every
    /// table's triggers, so a list over the other table kept its sections and answered its
    /// followers no change).
    @Test func anImportsTriggerWritingAnotherTableCountsThere() async throws {
        let fixture = try await PostgresFixture()
        try await PostgresJSONColumnTests.table(fixture)
        for statement in [
            "CREATE TABLE totals (id text PRIMARY KEY, n bigint, rev bigint)",
            "INSERT INTO totals (id, n) VALUES ('all', 0)",
            """
            CREATE FUNCTION bump() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN UPDATE totals SET n = n + 1 WHERE id = 'all'; RETURN NULL; END $$
            """,
            "CREATE TRIGGER bump AFTER INSERT ON docs FOR EACH STATEMENT EXECUTE FUNCTION bump()",
        ] {
            try await fixture.store.primary.query(PostgresQuery(unsafeSQL: statement))
        }
        let totals = ListDefinition(
            name: "totals",
            title: "Totals",
            idField: "id",
            views: [View(name: "all", sort: [SortKey("id")], idField: "id", cellType: .fixed("t"), fields: ["n"])]
        )
        _ = try await fixture.store.provider(
            for: totals,
            source: StoreSource(kind: .table("totals"), fieldTypes: ["id": .string, "n": .integer])
        )
        let source = StoreSource(kind: .table("docs"), fieldTypes: PostgresJSONColumnTests.fields)
        let provider = try await fixture.store.provider(for: PostgresJSONColumnTests.definition, source: source)
        let (docs, other) = (try await Self.stamp(fixture), try await Self.stamp(fixture, of: "totals"))
        let importer = try SQLImporter(
            reader: provider.reader,
            list: PostgresJSONColumnTests.definition,
            source: source
        )
        let records = (1...5).map { ImportRecord(line: $0, fields: ["id": .string("i\($0)"), "title": .string("t")]) }
        #expect(try await importer.run(records, skipBad: false, batch: 100).imported == 5)
        #expect(try await Self.stamp(fixture) == docs + 1)
        #expect(try await Self.stamp(fixture, of: "totals") > other)
    }
}
