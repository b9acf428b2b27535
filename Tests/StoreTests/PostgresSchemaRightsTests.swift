import DataMediator
import DataMediatorPostgres
import DataMediatorSQL
import DataMediatorTesting
import Foundation
import PostgresNIO
import Testing

/// The rights of the store's database user: a role that may not create tables in the
/// database's schema is told what PostgreSQL said at start (and by `check --store`), not
/// what a serving service says of a list's table changed under it; one that may not write
/// a writable list's table is refused at start, and readiness names a right revoked later.
@Suite struct PostgresSchemaRightsTests {
    @Test func aRoleThatMayNotCreateTablesIsToldSoAtStart() async throws {
        let store = try await Self.store(owningItsDatabase: false)
        let error = await #expect(throws: StoreError.self) {
            try await store.withClientsRunning { try await store.prepare() }
        }
        let message = error?.description ?? ""
        #expect(message.contains("permission denied for schema public"), "\(message)")
        #expect(!message.contains("another program"), "\(message)")
    }

    /// A writable list whose table the user may not update or delete from: refused at start
    /// (its patches and deletes were refused one by one, and readiness said ready); a right
    /// revoked while serving makes readiness name it, until it is granted again.
    @Test func aWritableListsTableTheUserMayNotWriteIsNamed() async throws {
        let store = try await Self.store(owningItsDatabase: true)
        try await store.withClientsRunning {
            try await store.prepare()
            let definition = WritableSubject.definition("notes")
            let source = StoreSource(kind: .table("notes"), fieldTypes: WritableSubject.fields)
            let signer = CursorSigner(secret: SampleList.secret)
            // The table is made by the service: its user owns it.
            let adapter = try await store.adapter(for: definition, source: source, signer: signer)
            _ = try await adapter.create(body: OutsideWritesTests.note("n1", "first"), scope: nil)
            let check = SourceCheck([TableSchema(list: definition, source: source, dialect: .postgres)])
            #expect(await store.readinessProblem(checking: check) == nil)

            try await store.primary.query("REVOKE UPDATE, DELETE ON notes FROM CURRENT_USER")
            let problem = await store.readinessProblem(checking: check) ?? ""
            #expect(problem.contains("List 'notes' cannot be served"), "\(problem)")
            #expect(problem.contains("lacks UPDATE, DELETE on its table 'notes'"), "\(problem)")
            await #expect(throws: SourceCheck.refused) {
                _ = try await adapter.patch(
                    id: "n1",
                    body: .object(["data": .object(["score": .integer(9)])]),
                    scope: nil
                )
            }
            let refused = await #expect(throws: StoreError.self) {
                _ = try await store.adapter(for: definition, source: source, signer: signer)
            }
            #expect(
                refused?.message.contains("the database user lacks UPDATE, DELETE on its table 'notes' (") == true,
                "\(String(describing: refused))"
            )

            try await store.primary.query("GRANT UPDATE, DELETE ON notes TO CURRENT_USER")
            #expect(await store.readinessProblem(checking: check) == nil)
            let patched = try await adapter.patch(
                id: "n1",
                body: .object(["data": .object(["score": .integer(9)])]),
                scope: nil
            )
            #expect(patched.cell.data.objectValue?["score"] == .integer(9))

            // A right on the service's own table revoked: every write refused, readiness said
            // ready (probe 46).
            try await store.primary.query("REVOKE INSERT ON data_mediator_changes FROM CURRENT_USER")
            let own = await store.readinessProblem(checking: check) ?? ""
            #expect(own.contains("on its own table 'data_mediator_changes'"), "\(own)")
            try await store.primary.query("GRANT INSERT ON data_mediator_changes TO CURRENT_USER")
            #expect(await store.readinessProblem(checking: check) == nil)

            // The right to make triggers, which start-up needs of every list's table (a
            // read-only one's too): check --store passed, and serve failed at the triggers
            // after it had made the service's tables (probe 46).
            try await store.primary.query("REVOKE TRIGGER ON notes FROM CURRENT_USER")
            let untriggered = await #expect(throws: StoreError.self) {
                _ = try await store.adapter(for: definition, source: source, signer: signer)
            }
            #expect(
                untriggered?.message.contains("lacks TRIGGER on its table 'notes'") == true,
                "\(String(describing: untriggered))"
            )
            #expect(try await store.rehearse([(definition, source)]).map(\.message) == [untriggered?.message])
        }
    }

    /// A store whose user is a new role, over a new database (its own when
    /// `owningItsDatabase`: since PostgreSQL 15 no other role may create in a database's
    /// `public` schema).
    static func store(owningItsDatabase: Bool) async throws -> PostgresStore {
        let admin = try await PostgresFixture()
        let name = "dm_rights_\(UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(12))"
        for statement in [
            "CREATE ROLE \(name) LOGIN", "CREATE DATABASE \(name)" + (owningItsDatabase ? " OWNER \(name)" : ""),
        ] {
            try await admin.store.primary.query(PostgresQuery(unsafeSQL: statement))
        }
        guard var parts = URLComponents(string: try PostgresFixture.serverURL()) else { throw FixtureError("no URL") }
        parts.user = name
        parts.password = nil
        parts.path = "/" + name
        return try PostgresStore(url: try #require(parts.string), maximumConnections: 2, logger: PostgresFixture.logger)
    }
}
