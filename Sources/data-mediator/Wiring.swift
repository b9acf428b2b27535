import DataMediator
import DataMediatorSQLite
import Foundation
import Logging

/// Builds the service from its settings: loads the config (or makes the demo), opens the
/// store, checks each list's source, and puts the lists in a registry.
struct Wiring: Sendable {
    /// The lists served.
    let registry: ListRegistry
    /// Whether the store answers, for `GET /ready`.
    let readiness: @Sendable () async -> Bool

    /// Wires the service.
    ///
    /// - Throws: ``ConfigFileErrors`` for a bad config or a list whose source does not fit
    ///   it; other errors when the data folder or store cannot be opened.
    init(settings: ServeSettings, environment: [String: String], logger: Logger) throws {
        let files = FileManager.default
        try files.createDirectory(atPath: settings.dataDir, withIntermediateDirectories: true)
        let configuration: ServiceConfiguration
        let configFile: String
        if let path = settings.config {
            configuration = try ConfigFileLoader.load(path: path)
            configFile = path
        } else {
            let storePath = URL(fileURLWithPath: settings.dataDir).appendingPathComponent(DemoConfig.storeFile).path
            let start = ContinuousClock.now
            if try DemoData.create(at: storePath, transactions: settings.demoTransactions) {
                logger.info(
                    "created the demo store",
                    metadata: [
                        "path": "\(storePath)", "transactions": "\(settings.demoTransactions)",
                        "took": "\(ContinuousClock.now - start)",
                    ]
                )
            }
            var loader = ConfigFileLoader(file: "(built-in demo)", baseDirectory: settings.dataDir)
            configuration = try loader.parse(DemoConfig.yaml)
            configFile = "(built-in demo)"
            logger.info("serving the built-in demo", metadata: ["store": "\(storePath)"])
        }
        let secret = try CursorSecret.load(environment: environment, dataDir: settings.dataDir, logger: logger)
        let signer = CursorSigner(secret: secret)
        let store = try SQLiteStore(path: configuration.sqlitePath)
        var adapters: [ListAdapter] = []
        var problems: [ConfigFileError] = []
        // One notifier for every list: a write may move lists over the same tables.
        let notifier = ChangeNotifier()
        var writtenTables: [String: String] = [:]
        for list in configuration.lists {
            do {
                if list.definition.isWritable, case .table(let table) = list.source.kind {
                    if let other = writtenTables[table] {
                        throw SQLiteStoreError(
                            list: list.definition.name,
                            "table '\(table)' is already written by list '\(other)'; one writable list per table keeps its change log whole"
                        )
                    }
                    writtenTables[table] = list.definition.name
                }
                adapters.append(
                    try store.adapter(for: list.definition, source: list.source, signer: signer, notifier: notifier)
                )
            } catch let error as SQLiteStoreError {
                problems.append(
                    ConfigFileError(file: configFile, line: list.line, column: 1, message: error.description)
                )
            }
        }
        if !problems.isEmpty { throw ConfigFileErrors(errors: problems) }
        registry = ListRegistry(adapters)
        readiness = { await store.isReadable() }
    }
}
