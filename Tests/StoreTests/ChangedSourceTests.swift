import DataMediatorPostgres
import DataMediatorTesting
import Testing

@testable import DataMediator
@testable import DataMediatorSQL

/// A list whose table another program changed under the service, past what start-up
/// checked (a column dropped, a table renamed, a column's type changed): its reads and
/// writes answer `unavailable` saying so, not an unexplained fault, nothing is written,
/// readiness names the list and what it misses, and all of it passes once the table is
/// restored.
@Suite struct ChangedSourceTests {
    @Test(arguments: [WritableKind.sqlite, .postgres])
    func aDroppedColumnIsUnavailableAndNotReadyUntilItIsBack(kind: WritableKind) async throws {
        let (subject, _, _) = try await OutsideWritesTests.subject(kind)
        let adapter = subject.adapter
        #expect(try await subject.readinessProblem() == nil)

        try await subject.writeBehindTheServicesBack("ALTER TABLE notes DROP COLUMN title")
        await #expect(throws: SourceCheck.refused) {
            _ = try await adapter.page(view: "flat", limit: "5", cursor: nil)
        }
        await #expect(throws: SourceCheck.refused) {
            _ = try await adapter.page(view: "flat", limit: "5", cursor: nil, around: "n1")
        }
        await #expect(throws: SourceCheck.refused) { _ = try await adapter.locate(id: "n1", view: "flat") }
        await #expect(throws: SourceCheck.refused) {
            _ = try await adapter.patch(id: "n1", body: .object(["data": .object(["score": .integer(9)])]), scope: nil)
        }
        await #expect(throws: SourceCheck.refused) {
            _ = try await adapter.create(body: OutsideWritesTests.note("n2", "second"), scope: nil)
        }
        let problem = try #require(try await subject.readinessProblem())
        #expect(problem.contains("List 'notes'") && problem.contains("no column 'title'"), "\(problem)")

        try await subject.writeBehindTheServicesBack("ALTER TABLE notes ADD COLUMN title TEXT")
        #expect(try await subject.readinessProblem() == nil)
        let page = try await adapter.page(view: "flat", limit: "5", cursor: nil)
        let items = page.sections.flatMap(\.items)
        #expect(items.map(\.id) == ["n1"], "nothing was written meanwhile")
        #expect(items.first?.data.objectValue?["score"] == .integer(1), "the refused patch changed nothing")
    }

    @Test(arguments: [WritableKind.sqlite, .postgres])
    func aRenamedTableIsNamed(kind: WritableKind) async throws {
        let (subject, _, _) = try await OutsideWritesTests.subject(kind)
        try await subject.writeBehindTheServicesBack("ALTER TABLE notes RENAME TO notes_gone")
        await #expect(throws: SourceCheck.refused) {
            _ = try await subject.adapter.page(view: "flat", limit: "5", cursor: nil)
        }
        let problem = try #require(try await subject.readinessProblem())
        #expect(problem.contains("its table 'notes' is gone"), "\(problem)")
        try await subject.writeBehindTheServicesBack("ALTER TABLE notes_gone RENAME TO notes")
        #expect(try await subject.readinessProblem() == nil)
        #expect(
            try await subject.adapter.page(view: "flat", limit: "5", cursor: nil).sections.flatMap(\.items).count == 1
        )
    }

    /// One of the service's own tables dropped: readiness names it (on SQLite it blamed
    /// the file; on PostgreSQL it said nothing while every write was refused).
    @Test(arguments: [WritableKind.sqlite, .postgres])
    func aDroppedServiceTableIsNamed(kind: WritableKind) async throws {
        let (subject, _, _) = try await OutsideWritesTests.subject(kind)
        try await subject.writeBehindTheServicesBack("DROP TABLE data_mediator_idempotency")
        let problem = try #require(try await subject.readinessProblem())
        #expect(problem.contains("The service's own table 'data_mediator_idempotency' is gone"), "\(problem)")
        try await subject.writeBehindTheServicesBack(
            kind == .sqlite ? "DROP TABLE data_mediator_versions" : "DROP TABLE data_mediator_store"
        )
        let versions = try #require(try await subject.readinessProblem())
        #expect(
            versions.contains(kind == .sqlite ? "'data_mediator_versions'" : "'data_mediator_store'"),
            "\(versions)"
        )
        #expect(!versions.contains("file"), "\(versions)")
    }

    /// One of the service's PostgreSQL functions dropped (a list's reads that show a time or
    /// an enum need it; readiness said ready): named, until a start makes it again.
    @Test func aDroppedServiceFunctionIsNamed() async throws {
        let (subject, _, _) = try await OutsideWritesTests.subject(.postgres)
        let store = try #require(subject.postgresStore)
        #expect(ServiceTables.functions(.postgres).contains("data_mediator_time_text(date)"))
        try await subject.writeBehindTheServicesBack("DROP FUNCTION data_mediator_time_text(date) CASCADE")
        try await subject.writeBehindTheServicesBack("DROP FUNCTION data_mediator_enum_text(anyenum)")
        let problem = try #require(try await subject.readinessProblem())
        #expect(
            problem.contains(
                "The service's own functions 'data_mediator_enum_text(anyenum)', 'data_mediator_time_text(date)' are gone"
            ),
            "\(problem)"
        )
        try await store.prepare()
        #expect(try await subject.readinessProblem() == nil)
    }

    /// Every list that lost its source is named, not only the first.
    @Test func everyBrokenListIsNamed() async throws {
        let schemas = ["a", "b"].map { name in
            TableSchema(
                list: WritableSubject.definition(name),
                source: StoreSource(kind: .table(name), fieldTypes: WritableSubject.fields),
                dialect: .sqlite
            )
        }
        let problem = try #require(try await SourceCheck(schemas).problem { _ in nil })
        #expect(
            problem.contains("List 'a' cannot be served") && problem.contains("List 'b' cannot be served"),
            "\(problem)"
        )
    }

    /// A column's type changed to one its field's type does not fit: readiness says so as
    /// start-up would, and reads that compare it with the field's values are refused.
    @Test func aPostgreSQLColumnOfAnotherTypeIsNamed() async throws {
        let (subject, _, _) = try await OutsideWritesTests.subject(.postgres)
        try await subject.writeBehindTheServicesBack("ALTER TABLE notes ALTER COLUMN score TYPE text")
        let problem = try #require(try await subject.readinessProblem())
        #expect(problem.contains("field 'score' (integer) is over a text column"), "\(problem)")
        try await subject.writeBehindTheServicesBack(
            "ALTER TABLE notes ALTER COLUMN score TYPE bigint USING score::bigint"
        )
        #expect(try await subject.readinessProblem() == nil)
    }
}
