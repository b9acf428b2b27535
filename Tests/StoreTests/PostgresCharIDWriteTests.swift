import DataMediatorPostgres
import DataMediatorTesting
import Foundation
import PostgresNIO
import Testing

@testable import DataMediator
@testable import DataMediatorSQL

/// Writes by id over a PostgreSQL `char(n)` id column: the id was bound as text, which
/// cast the column, so each `PUT`, `PATCH` and `DELETE` scanned the table for its row.
/// It is bound as the column's type, a seek of the primary key; an id ending in a blank
/// (which that comparison ignores) names no row.
@Suite struct PostgresCharIDWriteTests {
    @Test func aWriteByACharIDSeeksItsKeyAndAPaddedIDNamesNoItem() async throws {
        let fixture = try await PostgresFixture()
        for statement in [
            "CREATE TABLE codes (id char(5) PRIMARY KEY, code char(4), n int, rev bigint)",
            "INSERT INTO codes (id, code, n) SELECT 'c' || g, 'a', g FROM generate_series(1, 70) AS g",
        ] {
            try await fixture.store.primary.query(PostgresQuery(unsafeSQL: statement))
        }
        let adapter = try await fixture.store.adapter(
            for: PostgresCharColumnTests.definition,
            source: StoreSource(kind: .table("codes"), fieldTypes: PostgresCharColumnTests.fields),
            signer: CursorSigner(secret: SampleList.secret)
        )
        let writer = try #require(adapter.writer as? SQLItemWriter)
        // The id as the store binds it: text (PostgresNIO sends a String as `text`).
        for sql in [writer.statements.selectByIDLocking, writer.statements.deleteByID] {
            let plan = try await fixture.plan(sql.replacingOccurrences(of: "?", with: "'c14'::text"))
            #expect(plan.contains("Index") && !plan.contains("Seq Scan"), "\(sql): \(plan)")
        }
        let body: JSONValue = .object(["data": .object(["code": .string("zz")])])
        let start = try await adapter.currentVersion()
        let patched = await #expect(throws: DataMediatorError.self) {
            _ = try await adapter.patch(id: "c7 ", body: body)
        }
        #expect(patched?.code == .unknownItem, "\(String(describing: patched))")
        let put = await #expect(throws: DataMediatorError.self) { _ = try await adapter.replace(id: "c7 ", body: body) }
        #expect(put?.fieldProblems.map(\.field) == ["id"], "\(String(describing: put))")
        #expect(try await adapter.currentVersion() == start)
        #expect(try await adapter.patch(id: "c7", body: body).cell.id == "c7")
        _ = try await adapter.delete(id: "c8")
        #expect(try await adapter.currentVersion() == start + 2)
    }
}
