import ArgumentParser
import DataMediator
import DataMediatorPostgres
import DataMediatorSQL
import DataMediatorSQLite
import Foundation

/// `data-mediator import FILE --list NAME`: loads a JSON array, NDJSON or CSV file into the
/// table of a list, streaming, with progress.
struct ImportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Import a JSON array, NDJSON or CSV file into a list's table.",
        discussion: """
            Each record must have the list's id and meet its fields and 'required'. \
            Without --skip-bad the first bad record stops the import and nothing of it is \
            stored; with it, bad records are reported (file:line: reason) and left out, \
            and every --batch records are committed. The list's change history restarts \
            after the import.
            """
    )

    @Argument(help: "The file: .json (an array of objects), .ndjson/.jsonl or .csv (with a header row).")
    var file: String

    @Option(help: "The list whose table takes the records.")
    var list: String

    @Option(help: "The config file (default: DATA_MEDIATOR_CONFIG, else the built-in demo).")
    var config: String?

    @Option(help: "The data folder of the demo (default: DATA_MEDIATOR_DATA_DIR, else ./data).")
    var dataDir: String?

    @Flag(help: "Leave bad records out instead of stopping.")
    var skipBad = false

    @Option(parsing: .unconditional, help: "Records per transaction with --skip-bad, and between progress reports.")
    var batch = 10_000

    func run() async throws {
        // A value out of its range is a setting refused (exit 1, as `serve --port 70000`),
        // not a command line that cannot be parsed (64, with the usage).
        guard batch >= 1 else {
            printError("import: --batch must be at least 1; it is \(batch).")
            throw ExitCode.failure
        }
        let environment = ProcessInfo.processInfo.environment
        for name in ServeConfiguration.unknownVariables(in: environment) {
            printError("import: warning: \(ServeConfiguration.unknownVariableWarning(name))")
        }
        let maximumBytes: Int
        do {
            maximumBytes = try ServeConfiguration.maximumBodyBytes(in: environment)
        } catch let error as ValidationError {
            printError("import: \(error.message)")
            throw ExitCode.failure
        }
        let configuration: MediatorConfiguration
        // Whether the store is the built-in demo's.
        var demo = false
        do {
            if let path = config ?? environment["DATA_MEDIATOR_CONFIG"].flatMap({ $0.isEmpty ? nil : $0 }) {
                configuration = try ConfigFileLoader.load(path: path)
            } else {
                let folder =
                    dataDir ?? environment["DATA_MEDIATOR_DATA_DIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "data"
                demo = true
                var loader = ConfigFileLoader(file: "(built-in demo)", baseDirectory: folder)
                let postgres = environment["DATA_MEDIATOR_DATABASE_URL"].map { !$0.isEmpty } ?? false
                configuration = try loader.parse(postgres ? DemoConfig.postgresYAML : DemoConfig.yaml)
            }
        } catch {
            printError("\(error)")
            throw ExitCode.failure
        }
        let tables = configuration.lists.filter {
            if case .table? = $0.source?.kind { true } else { false }
        }
        guard let target = tables.first(where: { $0.definition.name == list }), let source = target.source else {
            let names = tables.map { "'\($0.definition.name)'" }.joined(separator: ", ")
            let what =
                if configuration.lists.contains(where: { $0.definition.name == list }) {
                    "list '\(list)' is not over a table (a query's or a file's is read-only)"
                } else if configuration.composites.contains(where: { $0.name == list }) {
                    "'\(list)' is a composite, which holds no items of its own; import into the lists it shows"
                } else {
                    "no list '\(list)'"
                }
            printError("import: \(what); the lists over a table are \(names)")
            throw ExitCode.failure
        }
        let records: RecordStream
        do {
            records = try RecordStream(path: file, types: source.fieldTypes)
            // An empty file is a wrong file, not an import of nothing (which would still
            // move the list's version and restart its history).
            guard records.size > 0 else { throw ItemFileError(path: file, line: nil, "is empty; it holds no records") }
        } catch {
            printError("import: \(error)")
            throw ExitCode.failure
        }
        let progress = ImportProgress(total: records.size)
        let interrupt = ImportInterrupt.watch { [skipBad] signal in
            "import: stopped by \(signal); "
                + (skipBad
                    ? "the batches reported before are stored, the one it was writing is not (run it again "
                        + "with --skip-bad: the stored ids are reported as existing)"
                    : "nothing was stored")
        }
        defer { interrupt.cancel() }
        let report = { (count: Int) in progress.report(rows: count, bytes: records.bytesRead) }
        let summary: ImportSummary
        do {
            // Checked as `serve` and `check --store` check it, before anything is made: a
            // refused import made the service's tables (and a new SQLite file) all the same,
            // and one beside a database URL filled a SQLite file nobody meant.
            // The demo's SQLite store is made by `serve`, with its generated rows: one an
            // import made held the imported list's table alone, and `serve` then took it
            // as made, and never filled it.
            if demo, case .sqlite(let path) = configuration.store, !FileManager.default.fileExists(atPath: path) {
                throw StoreError(
                    list: nil,
                    "the demo's store '\(path)' does not exist yet; start `data-mediator serve` once to make it "
                        + "(with its generated rows), then import"
                )
            }
            let problems = try await CommandStore.rehearse(
                [(target.definition, source)],
                in: configuration.store,
                for: "import"
            )
            if let problem = problems.first { throw problem }
            switch configuration.store {
            case .sqlite(let path):
                let store = try SQLiteStore(path: path)
                // What was imported is written from the log into the store's file before
                // the command ends (its connections are not closed at exit, which would
                // do it), so the file alone holds it: a backup that copies the file right
                // after an import had none of it. An import refused is rolled back; the
                // log is emptied all the same. (Another program reading an older snapshot
                // keeps what it has not read in the log: not waited for, see checkpoint.)
                defer { try? store.checkpoint(waiting: false) }
                let provider = try store.provider(for: target.definition, source: source)
                let importer = try SQLImporter(
                    reader: provider.reader,
                    list: target.definition,
                    source: source
                )
                summary = try await importer.run(
                    records.lazy.map { $0.bounded(by: maximumBytes, types: source.fieldTypes) },
                    skipBad: skipBad,
                    batch: batch,
                    progress: report
                )
            case .postgres:
                // An import writes on one connection (the pool opens all of its at start).
                let store = try CommandStore.postgres(for: "import", connections: 2, environment: environment)
                summary = try await store.withClientsRunning {
                    try await store.prepare()
                    let provider = try await store.provider(for: target.definition, source: source)
                    let importer = try SQLImporter(
                        reader: provider.reader,
                        list: target.definition,
                        source: source
                    )
                    return try await importer.run(
                        records.lazy.map { $0.bounded(by: maximumBytes, types: source.fieldTypes) },
                        skipBad: skipBad,
                        batch: batch,
                        progress: report
                    )
                }
            }
        } catch let stopped as ImportStopped {
            progress.finish()
            printError("\(file):\(stopped)")
            throw ExitCode.failure
        } catch {
            progress.finish()
            // What is stored: every batch reported (with --skip-bad), or nothing; a commit the
            // database did not confirm may have stored the last.
            let unconfirmed = (error as? DataMediatorError)?.code == .outcomeUnknown
            let stored =
                unconfirmed
                ? (skipBad ? "the batches reported before are stored; " : "")
                    + "the batch it was committing may or may not be stored: count the list's items"
                : skipBad
                    ? "the batches reported before are stored, the one it was writing is not" : "nothing was stored"
            var reason = PostgresStore.reason(of: error)
            if reason.hasSuffix(".") { reason.removeLast() }
            printError("import: \(reason); \(stored)")
            throw ExitCode.failure
        }
        progress.finish()
        for rejection in summary.rejections { printError("\(file):\(rejection.line): \(rejection.reason)") }
        if summary.rejected > summary.rejections.count {
            printError("... and \(Self.records(summary.rejected - summary.rejections.count, "more bad "))")
        }
        guard summary.imported > 0 else {
            // `[]`, a CSV header alone, or only bad records: nothing was stored, and the
            // version did not move.
            printError("import: \(file) holds no record to import; nothing was stored")
            throw ExitCode.failure
        }
        // The rate is of the time spent importing, not opening the store and waiting for its
        // other writes (another import's, a server's).
        let waited = summary.began.map { ($0 - progress.start).inSeconds } ?? 0
        let seconds = max(0, progress.elapsed - waited)
        let rate = seconds > 0 ? Int(Double(summary.imported) / seconds) : summary.imported
        print(
            "imported \(Self.records(summary.imported)) into '\(list)' in \(String(format: "%.1f", seconds)) s "
                + "(\(rate) records/s)"
                + (waited >= 0.5
                    ? " after \(String(format: "%.1f", waited)) s opening the store and waiting for its other writes"
                    : "")
                + (summary.rejected > 0 ? "; left out \(Self.records(summary.rejected, "bad "))" : "")
                + "; the store is at version \(summary.version)"
        )
    }

    /// `count` records as a sentence says it (`1 record`, `2 bad records`), `kind` (with
    /// its space) before the noun.
    static func records(_ count: Int, _ kind: String = "") -> String {
        "\(count) \(kind)" + (count == 1 ? "record" : "records")
    }
}

/// Progress on standard error: a bar redrawn in place on a terminal (records, records/s,
/// ETA from the bytes read), a plain line every few seconds otherwise.
final class ImportProgress {
    private let total: Int
    /// When the command began (before it opened the store).
    let start = ContinuousClock.now
    private var lastLine = ContinuousClock.now
    private let terminal = isatty(STDERR_FILENO) != 0
    private var drawn = false

    init(total: Int) {
        self.total = total
    }

    var elapsed: Double {
        (ContinuousClock.now - start).inSeconds
    }

    func report(rows: Int, bytes: Int) {
        let seconds = max(elapsed, 0.001)
        let rate = Int(Double(rows) / seconds)
        let fraction = total > 0 ? min(1, Double(bytes) / Double(total)) : 0
        let eta = fraction > 0 ? Int(seconds / fraction - seconds) : 0
        if terminal {
            let width = 30
            let filled = Int(fraction * Double(width))
            let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
            let text = "\r[\(bar)] \(Int(fraction * 100))%  \(rows) records  \(rate)/s  ETA \(eta) s   "
            FileHandle.standardError.write(Data(text.utf8))
            drawn = true
        } else if ContinuousClock.now - lastLine >= .seconds(2) {
            lastLine = .now
            printError("import: \(rows) records, \(rate) records/s, \(Int(fraction * 100))% of the file, ETA \(eta) s")
        }
    }

    func finish() {
        if drawn { FileHandle.standardError.write(Data("\n".utf8)) }
    }
}
