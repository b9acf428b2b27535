import DataMediator
import DataMediatorSQL
import DataMediatorSQLite
import DataMediatorTesting
import Foundation
import Testing

/// A row another program writes into a list's table while `serve` runs: within the watch's
/// interval (`DATA_MEDIATOR_OUTSIDE_WRITES_SECONDS`) the list's `changes` answer a `reload`
/// at a version of its own and its event stream sends `event: reload`, on either store;
/// an import by another process reaches the stream as soon.
@Suite struct OutsideWriteTests {
    @Test(arguments: ImportTests.stores)
    func anotherProgramsWriteReachesChangesAndEvents(store: String) async throws {
        let target = try await ImportTests.Target.make(store)
        let folder = try ImportTests.folder([:], target)
        defer { try? FileManager.default.removeItem(at: folder) }
        let server = try await ServerProcess(
            dataDirectory: folder,
            arguments: ["--config", folder.appendingPathComponent("lists.yaml").path],
            environment: target.environment.merging(
                ["DATA_MEDIATOR_WRITE_TOKENS": "w", "DATA_MEDIATOR_OUTSIDE_WRITES_SECONDS": "1"],
                uniquingKeysWith: { $1 }
            )
        )
        defer { Task { _ = await server.stop() } }
        // Replicas on one database that each make a secret refuse each other's cursors
        // (review 99 #2); one process on a SQLite file is warned of nothing.
        #expect(server.log.contains("DATA_MEDIATOR_CURSOR_SECRET is not set") == (store == "postgres"), "\(server.log)")
        let written = try await server.send(
            "POST",
            "/lists/notes/items",
            headers: ["Authorization": "Bearer w", "Content-Type": "application/json"],
            body: #"{"data": {"title": "through the service"}}"#
        )
        #expect(written.status == 201, "\(String(decoding: written.body, as: UTF8.self))")
        let start = try #require(try await server.json("/lists/notes/items")["version"] as? String)
        let stream = try EventCapture(server.base, "/lists/notes/events", since: start)
        defer { stream.stop() }
        // Let the watch look once with nothing to find: the service's own write is no reload.
        try await Task.sleep(for: .milliseconds(1_500))
        #expect(try #require(try await server.json("/lists/notes/changes?since=\(start)")["changes"] as? [Any]).isEmpty)

        let insert = "INSERT INTO notes (id, title, rev) VALUES (1000, 'from another program', 1)"
        if let url = target.environment["DATA_MEDIATOR_DATABASE_URL"] {
            let run = try await TestDatabase.run("/usr/bin/psql", [url, "-qc", insert])
            #expect(run.status == 0, "psql: \(run.output)")
        } else {
            let other = try SQLiteStore(path: folder.appendingPathComponent("store.sqlite").path)
            try await other.transactions.write { try await $0.execute(insert, []) }
        }

        var changes: [[String: Any]] = []
        let deadline = ContinuousClock.now + .seconds(10)
        while changes.isEmpty, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(200))
            changes = try #require(
                try await server.json("/lists/notes/changes?since=\(start)")["changes"] as? [[String: Any]]
            )
        }
        #expect(changes.map { $0["op"] as? String } == ["reload"])
        let version = try #require((changes.first?["version"] as? String).flatMap { Int64($0) })
        #expect(try await stream.ids(until: version).last == version)
        #expect(stream.type(of: version) == "reload")
        // A client that reloads finds the row, at that version or later, and nothing more to apply.
        let page = try Page.decode(try await server.get("/lists/notes/items").body)
        let titles = page.sections.flatMap(\.items).map { cell -> String? in
            guard case .object(let data) = cell.data, case .string(let title)? = data["title"] else { return nil }
            return title
        }
        #expect(titles.contains("from another program"))
        let reloaded = page.version
        #expect(reloaded >= version)
        #expect(
            try #require(try await server.json("/lists/notes/changes?since=\(reloaded)")["changes"] as? [Any]).isEmpty
        )

        // An import by another process: the open stream hears of it within the watch's
        // interval (SQLite: the importer cannot signal this process), long before the next
        // heartbeat (10 s).
        try Data(#"{"id": 2000, "title": "imported"}"#.utf8).write(to: folder.appendingPathComponent("more.ndjson"))
        let (status, report) = try await ImportTests.importing("more.ndjson", in: folder, target)
        #expect(status == 0, "\(report)")
        let imported = try Page.decode(try await server.get("/lists/notes/items").body).version
        #expect(imported > reloaded)
        let heard = try await stream.reached(imported, timeout: .seconds(4))
        let ids = try await stream.ids(until: imported, timeout: .zero)
        #expect(heard, "\(ids)")
    }
}

extension OutsideWriteTests {
    /// A row written while `serve` was down reaches the feed at start, not one interval
    /// later (an hour here): the watch looks at once.
    @Test func aWriteMadeWhileTheServiceWasDownIsRecordedAtStart() async throws {
        let target = try await ImportTests.Target.make("sqlite")
        let folder = try ImportTests.folder([:], target)
        defer { try? FileManager.default.removeItem(at: folder) }
        func serve() async throws -> ServerProcess {
            try await ServerProcess(
                dataDirectory: folder,
                arguments: ["--config", folder.appendingPathComponent("lists.yaml").path],
                environment: ["DATA_MEDIATOR_OUTSIDE_WRITES_SECONDS": "3600"]
            )
        }
        let first = try await serve()
        let start = try Page.decode(try await first.get("/lists/notes/items").body).version
        #expect(await first.stop() == 0)
        let other = try SQLiteStore(path: folder.appendingPathComponent("store.sqlite").path)
        try await other.transactions.write {
            try await $0.execute("INSERT INTO notes (id, title, rev) VALUES (7, 'while down', 1)", [])
        }
        let second = try await serve()
        var changes: [[String: Any]] = []
        let deadline = ContinuousClock.now + .seconds(5)
        while changes.isEmpty, ContinuousClock.now < deadline {
            changes = try #require(
                try await second.json("/lists/notes/changes?since=\(start)")["changes"] as? [[String: Any]]
            )
            if changes.isEmpty { try await Task.sleep(for: .milliseconds(100)) }
        }
        #expect(changes.map { $0["op"] as? String } == ["reload"])
        #expect(await second.stop() == 0)
    }
}
