import DataMediator
import DataMediatorPostgres
import DataMediatorTesting
import PostgresNIO
import Testing

/// A write of the service waits for the item's row another program holds, and takes no
/// lock that program's later write of the row needs (the table's stamp is counted in a
/// row of each writer's own, ``TableStamps``), so a program that holds a row and then
/// updates it while the service waits for that row ends well, and so does the service's
/// write after it.
@Suite struct PostgresLockOrderTests {
    @Test(arguments: ["patch", "replace", "delete"])
    func anotherProgramHoldingTheRowIsWaitedFor(write: String) async throws {
        let (subject, _, _) = try await OutsideWritesTests.subject(.postgres)
        let other = try #require(try await subject.otherProgram())
        let client = other.store.primary
        let logger = Logger(label: "other-program")
        let adapter = subject.adapter
        let data: JSONValue = .object(["title": .string("service")])
        try await client.withConnection { connection in
            try await connection.query("BEGIN", logger: logger)
            try await connection.query("SELECT 1 FROM notes WHERE id = 'n1' FOR UPDATE", logger: logger)
            let service = Task {
                switch write {
                case "patch": _ = try await adapter.patch(id: "n1", body: .object(["data": data]), scope: nil)
                case "replace": _ = try await adapter.replace(id: "n1", body: .object(["data": data]), scope: nil)
                default: _ = try await adapter.delete(id: "n1", scope: nil)
                }
            }
            // The service's write waits for the row this transaction holds.
            let deadline = ContinuousClock.now + .seconds(30)
            var waits = false
            while !waits, ContinuousClock.now < deadline {
                let waiting = try await connection.query(
                    """
                    SELECT count(*)::int8 FROM pg_stat_activity
                    WHERE datname = current_database() AND pid <> pg_backend_pid() AND wait_event_type = 'Lock'
                    """,
                    logger: logger
                )
                var rows = waiting.makeAsyncIterator()
                waits = try await rows.next()?.decode(Int64.self) ?? 0 > 0
                if !waits { try await Task.sleep(for: .milliseconds(10)) }
            }
            #expect(waits, "the service's write waits for the row")
            // PostgreSQL looks for a deadlock after `deadlock_timeout` (1 s) of waiting.
            try await connection.query("UPDATE notes SET title = 'outside' WHERE id = 'n1'", logger: logger)
            try await Task.sleep(for: .milliseconds(1_500))
            try await connection.query("COMMIT", logger: logger)
            try await service.value
        }
        var rows = try await client.query("SELECT title FROM notes WHERE id = 'n1'", logger: logger).makeAsyncIterator()
        let title = try await rows.next().map { try $0.decode(String.self) }
        #expect(title == (write == "delete" ? nil : "service"), "the service's write came after the other's")
    }
}
