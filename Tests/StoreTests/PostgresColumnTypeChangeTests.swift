import DataMediator
import DataMediatorPostgres
import DataMediatorTesting
import PostgresNIO
import Testing

@testable import DataMediatorSQL

/// Another program widens a column a list reads (`ALTER TABLE ... TYPE`): PostgreSQL
/// refuses the statements prepared before it ("cached plan must not change result type"),
/// which answered 500 until the service restarted. The read that meets it answers
/// `unavailable` (503, retry) and the next reads prepare their statements anew.
@Suite struct PostgresColumnTypeChangeTests {
    static let definition = ListDefinition(
        name: "codes",
        title: "Codes",
        idField: "id",
        revisionField: "rev",
        views: [
            View(
                name: "by_code",
                isDefault: true,
                sort: [SortKey("code"), SortKey("id")],
                idField: "id",
                cellType: .fixed("code"),
                fields: ["code"]
            )
        ],
        isWritable: true,
        rules: FieldRules(types: ["code": .string])
    )

    @Test func aColumnWidenedByAnotherProgramIsReadAgainAfterOneRetry() async throws {
        let fixture = try await PostgresFixture()
        try await fixture.store.primary.query(
            "CREATE TABLE codes (id bigserial PRIMARY KEY, code varchar(10), rev bigint)"
        )
        try await fixture.store.primary.query(
            "INSERT INTO codes (code, rev) SELECT 'c' || g, 1 FROM generate_series(1, 30) g"
        )
        let adapter = try await fixture.store.adapter(
            for: Self.definition,
            source: StoreSource(kind: .table("codes"), fieldTypes: ["code": .string]),
            signer: CursorSigner(secret: SampleList.secret)
        )
        let before = try await adapter.page(view: "by_code", limit: "5", cursor: nil)
        let located = try await adapter.locate(id: "7", view: "by_code")
        try await fixture.store.primary.query("ALTER TABLE codes ALTER COLUMN code TYPE varchar(30)")
        var refused = 0
        for _ in 0..<3 {
            do {
                let page = try await adapter.page(view: "by_code", limit: "5", cursor: nil)
                #expect(page.items.map(\.id) == before.items.map(\.id))
                #expect(try await adapter.locate(id: "7", view: "by_code").position == located.position)
            } catch let error as DataMediatorError where error.code == .unavailable {
                refused += 1
            }
        }
        #expect(refused <= 2, "the reads kept failing after the column's change")
        let page = try await adapter.page(view: "by_code", limit: "5", cursor: nil)
        #expect(page.items.map(\.id) == before.items.map(\.id))
    }
}
