import DataMediator
import DataMediatorSQL
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
    /// Wakes every list's live streams after writes; finished at shutdown.
    let notifier: ChangeNotifier
    /// The store, checkpointed at shutdown.
    let store: SQLiteStore

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
                if let file = list.file {
                    let items = try ItemFile.read(
                        path: file,
                        idField: list.definition.idField,
                        types: list.fieldTypes,
                        rules: list.definition.rules
                    )
                    let provider = ArrayDataProvider(
                        items: items,
                        idField: list.definition.idField,
                        views: list.definition.views
                    )
                    adapters.append(
                        ListAdapter(definition: list.definition, provider: provider, signer: signer, notifier: notifier)
                    )
                    continue
                }
                guard let source = list.source else { continue }
                if list.definition.isWritable, case .table(let table) = source.kind {
                    if let other = writtenTables[table] {
                        throw SQLiteStoreError(
                            list: list.definition.name,
                            "table '\(table)' is already written by list '\(other)'; one writable list per table keeps its change log whole"
                        )
                    }
                    writtenTables[table] = list.definition.name
                }
                adapters.append(
                    try store.adapter(for: list.definition, source: source, signer: signer, notifier: notifier)
                )
            } catch let error as SQLiteStoreError {
                problems.append(
                    ConfigFileError(file: configFile, line: list.line, column: 1, message: error.description)
                )
            } catch let error as ItemFileError {
                problems.append(
                    ConfigFileError(
                        file: configFile,
                        line: list.line,
                        column: 1,
                        message: "list '\(list.definition.name)': \(error.description)"
                    )
                )
            }
        }
        if !problems.isEmpty { throw ConfigFileErrors(errors: problems) }
        let built = Self.composites(configuration.composites, over: adapters, signer: signer, notifier: notifier)
        let byName = Dictionary(
            (adapters + built).map { ($0.definition.name, $0) },
            uniquingKeysWith: { first, _ in first }
        )
        registry = ListRegistry(configuration.order.compactMap { byName[$0] })
        readiness = { await store.isReadable() }
        self.notifier = notifier
        self.store = store
    }

    /// The composites' adapters, each built after the lists it shows (the loader refused
    /// unknown children and cycles, so every composite gets built).
    static func composites(
        _ composites: [CompositeConfiguration],
        over lists: [ListAdapter],
        signer: CursorSigner,
        notifier: ChangeNotifier
    ) -> [ListAdapter] {
        var built = Dictionary(lists.map { ($0.definition.name, $0) }, uniquingKeysWith: { first, _ in first })
        var waiting = composites
        var result: [ListAdapter] = []
        while let index = waiting.firstIndex(where: { $0.listNames.allSatisfy { built[$0] != nil } }) {
            let composite = waiting.remove(at: index)
            let children = composite.children.compactMap { child -> CompositeChild? in
                switch child.content {
                case .section(let id, let title, let cells):
                    return CompositeChild(name: child.name, content: .section(id: id, title: title, cells: cells))
                case .list(let name, let viewName):
                    guard let adapter = built[name], let view = try? adapter.definition.view(named: viewName) else {
                        return nil
                    }
                    return CompositeChild(
                        name: child.name,
                        content: .list(adapter, view: view),
                        cap: child.cap,
                        more: child.more
                    )
                }
            }
            let adapter = ListAdapter.composite(
                name: composite.name,
                title: composite.title,
                children: children,
                viewName: composite.viewName,
                limits: composite.limits,
                signer: signer,
                notifier: notifier
            )
            built[composite.name] = adapter
            result.append(adapter)
        }
        return result
    }
}
