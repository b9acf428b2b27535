import DataMediatorTesting
import Foundation
import GRDB
import Synchronization
import Testing

/// What `data-mediator import` reports: bad records with the values they gave, counts as a
/// sentence says them, and its time without the time spent opening the store and waiting
/// for its other writes (probe 81).
@Suite struct ImportReportTests {
    /// A JSON record's bad value is shown as a CSV cell's is, the summary counts "1
    /// record" as a sentence does, and an import that waited for the store's other writes
    /// says so and leaves the wait out of its rate (probe 81: "1 records ... in 4.6 s (0
    /// records/s)" after a wait for another import).
    @Test func aRecordsBadValueIsShownAndTheSummarySaysWhatItDid() async throws {
        let target = try await ImportTests.Target.make("sqlite")
        let lines = [
            #"{"id": "009", "title": "a"}"#, #"{"id": 2, "title": "b", "score": "x"}"#, #"{"id": 3, "title": "c"}"#,
        ]
        let folder = try ImportTests.folder(
            ["n.ndjson": lines.joined(separator: "\n") + "\n", "m.ndjson": #"{"id": 4, "title": "d"}"# + "\n"],
            target
        )
        defer { try? FileManager.default.removeItem(at: folder) }
        let (status, said, errors) = try await Self.importingSaid("n.ndjson", in: folder, target, ["--skip-bad"])
        #expect(status == 0, "\(errors)")
        #expect(errors.contains(#"n.ndjson:1: 'id' must be a whole number; got "009""#), "\(errors)")
        #expect(errors.contains(#"n.ndjson:2: 'score' must be"#) && errors.contains(#"; got "x""#), "\(errors)")
        #expect(said.contains("imported 1 record into 'notes'") && said.contains("left out 2 bad records"), "\(said)")
        #expect(!said.contains("opening the store and waiting"), "\(said)")

        // Another writer holds the store's one writer while the import starts; let go after
        // the import asked for it or not (a loaded machine may start the import late), its
        // report holds the time spent waiting apart from the time importing when it is named.
        let store = try DatabaseQueue(path: folder.appendingPathComponent("store.sqlite").path)
        let held = Mutex(false)
        let holding = Task.detached {
            try store.inTransaction(.immediate) { _ in
                held.withLock { $0 = true }
                Thread.sleep(forTimeInterval: 2)
                return .commit
            }
        }
        let deadline = ContinuousClock.now + .seconds(120)
        while !held.withLock({ $0 }), ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
        let (waited, waitSaid, waitErrors) = try await Self.importingSaid("m.ndjson", in: folder, target)
        try await holding.value
        #expect(waited == 0, "\(waitErrors)")
        #expect(waitSaid.contains("imported 1 record into 'notes' in "), "\(waitSaid)")
        // "... in X s (R records/s) after Y s opening the store and waiting ...": the wait is
        // not import time (when the import came before the writer let go; the wait itself is
        // proven in-process, ImportWaitTests).
        let spent = waitSaid.firstMatch(of: /into 'notes' in ([0-9.]+) s/).flatMap { Double($0.1) }
        let wait = waitSaid.firstMatch(of: /after ([0-9.]+) s opening the store and waiting for its other writes/)
            .flatMap { Double($0.1) }
        if let spent, let wait { #expect(spent < wait, "the wait is not import time: \(waitSaid)") }
    }

    /// An import stopped by SIGINT says what is stored and ends 130, as the signal's default
    /// action would (review 106 #4: it died without a word). It is stopped while it waits for
    /// the store's writer, which another connection holds.
    @Test func anImportStoppedBySIGINTSaysWhatIsStored() async throws {
        let target = try await ImportTests.Target.make("sqlite")
        let folder = try ImportTests.folder(
            ["n.ndjson": #"{"id": 1, "title": "a"}"# + "\n", "m.ndjson": #"{"id": 2, "title": "b"}"# + "\n"],
            target
        )
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(try await Self.importingSaid("n.ndjson", in: folder, target).0 == 0)
        let store = try DatabaseQueue(path: folder.appendingPathComponent("store.sqlite").path)
        // Held until the import has ended: it cannot finish before it is stopped.
        let held = Mutex(false)
        let release = Mutex(false)
        let holding = Task.detached {
            try store.inTransaction(.immediate) { _ in
                held.withLock { $0 = true }
                let deadline = Date().addingTimeInterval(60)
                while !release.withLock({ $0 }), Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
                return .commit
            }
        }
        while !held.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(20)) }
        let errors = folder.appendingPathComponent("errors")
        let process = try ChildProcess(
            ServerProcess.binary.path,
            [
                "import", folder.appendingPathComponent("m.ndjson").path, "--list", "notes", "--config",
                folder.appendingPathComponent("lists.yaml").path,
            ],
            environment: ProcessInfo.processInfo.environment.merging(target.environment) { $1 },
            standardError: errors.path
        )
        // Sent again until it ends: a signal that comes while the command starts, before it
        // watches for it, would be lost (a loaded machine starts it late).
        try await Task.sleep(for: .seconds(1))
        for _ in 0..<40 where process.isRunning {
            kill(process.processIdentifier, SIGINT)
            try await Task.sleep(for: .milliseconds(250))
        }
        let status = await process.exit()
        release.withLock { $0 = true }
        try await holding.value
        let said = (try? String(contentsOf: errors, encoding: .utf8)) ?? ""
        #expect(status == 130, "\(said)")
        #expect(said.contains("import: stopped by SIGINT; nothing was stored"), "\(said)")
        let ids = try await store.read { try Int.fetchAll($0, sql: "SELECT id FROM notes ORDER BY id") }
        #expect(ids == [1])
    }

    /// As ``importing(_:in:_:_:)``, with what the command printed on standard output too.
    static func importingSaid(
        _ file: String,
        in folder: URL,
        _ target: ImportTests.Target,
        _ extra: [String] = []
    ) async throws -> (Int32, String, String) {
        let output = folder.appendingPathComponent("said-\(UUID().uuidString)")
        let errors = folder.appendingPathComponent("errors-\(UUID().uuidString)")
        let process = try ChildProcess(
            ServerProcess.binary.path,
            [
                "import", folder.appendingPathComponent(file).path, "--list", "notes", "--config",
                folder.appendingPathComponent("lists.yaml").path,
            ] + extra,
            environment: ProcessInfo.processInfo.environment.merging(["DATA_MEDIATOR_LOG_FORMAT": "text"]) { $1 }
                .merging(target.environment) { $1 },
            standardOutput: output.path,
            standardError: errors.path
        )
        let status = await process.exit()
        let read = { (url: URL) in (try? String(contentsOf: url, encoding: .utf8)) ?? "" }
        return (status, read(output), read(errors))
    }

    /// A refused import makes nothing, as `serve` and `check --store` make nothing: beside a
    /// database URL a SQLite config is refused (the rows went into a new file next to the
    /// config, and it said "imported"), and a store whose table disagrees with the list is
    /// left as it was (the service's thirteen tables were made in it first).
    @Test func aRefusedImportMakesNothing() async throws {
        let target = try await ImportTests.Target.make("sqlite")
        let folder = try ImportTests.folder(["n.ndjson": #"{"id": 1, "title": "a"}"# + "\n"], target)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("store.sqlite").path
        let beside = ImportTests.Target(
            store: target.store,
            environment: ["DATA_MEDIATOR_DATABASE_URL": "postgres://u@127.0.0.1:1/x"]
        )
        let (status, report) = try await ImportTests.importing("n.ndjson", in: folder, beside)
        #expect(status != 0 && report.contains("is set, but the store is SQLite"), "\(report)")
        #expect(!FileManager.default.fileExists(atPath: path))
        try await DatabaseQueue(path: path).write {
            try $0.execute(sql: "CREATE TABLE notes (id INTEGER PRIMARY KEY, title TEXT)")
        }
        let (refused, why) = try await ImportTests.importing("n.ndjson", in: folder, target)
        #expect(refused != 0 && why.contains("no column"), "\(why)")
        let tables = try await DatabaseQueue(path: path).read { db in
            try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'")
        }
        #expect(tables == ["notes"])
    }
}
