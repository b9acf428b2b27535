import DataMediator
import DataMediatorPostgres
import DataMediatorSQL
import DataMediatorSQLite
import Foundation
import GRDB
import Logging

/// The PostgreSQL store a command other than `serve` works on (`import`, `check --store`):
/// the database of `DATA_MEDIATOR_DATABASE_URL`, with a small pool of its own; and the
/// check of lists against a SQLite file that makes nothing in it (`check --store`, and
/// `serve` before it opens the store).
enum CommandStore {
    /// The store of `DATA_MEDIATOR_DATABASE_URL` in `environment`, opening at most
    /// `connections`, logging as `data-mediator.<command>`.
    ///
    /// - Throws: `StoreError` when the variable is not set; what the URL's checks throw.
    static func postgres(
        for command: String,
        connections: Int,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws -> PostgresStore {
        guard let url = try ServeConfiguration.databaseURL("DATA_MEDIATOR_DATABASE_URL", in: environment) else {
            throw StoreError(list: nil, "'store: postgres' needs DATA_MEDIATOR_DATABASE_URL")
        }
        return try PostgresStore(
            url: url,
            maximumConnections: connections,
            logger: Logger(label: "data-mediator.\(command)")
        )
    }

    /// What is wrong with each of `lists` over the SQLite file at `path`
    /// (``DataMediatorSQLite/SQLiteStore/rehearse(_:on:)``), opened without the service's
    /// own tables being made in it. A new store is made by serve: an empty database in
    /// memory stands for one that does not exist, which is not made.
    ///
    /// - Throws: `StoreError` for a path serve refuses (``DataMediatorSQLite/SQLiteStore/checkPath(_:writable:)``)
    ///   or a file that cannot be read as a database.
    static func rehearse(
        _ lists: [(list: ListDefinition, source: StoreSource)],
        inSQLiteAt path: String
    ) throws -> [StoreError] {
        try SQLiteStore.checkPath(path, writable: true)
        do {
            guard FileManager.default.fileExists(atPath: path) else {
                return try DatabaseQueue().writeWithoutTransaction { db in try SQLiteStore.rehearse(lists, on: db) }
            }
            var settings = GRDB.Configuration()
            settings.busyMode = .timeout(5)
            let database = try DatabaseQueue(path: path, configuration: settings)
            return try database.writeWithoutTransaction { db in try SQLiteStore.rehearse(lists, on: db) }
        } catch let error as DatabaseError {
            // Its one writer held past the busy timeout (an import running): said as a
            // write that met it says it, not in SQLite's words.
            let why = error.isBusy ? DatabaseError.busyWriterDetail : "\(error)"
            throw StoreError(list: nil, "cannot check the lists against the SQLite store at \(path): \(why)")
        }
    }

    /// What is wrong with each list over `location`, checked as `serve` checks it, leaving
    /// the store as it was (`command` names the caller in a connection's errors).
    ///
    /// - Throws: `StoreError` for a database URL set beside a SQLite store (serve refuses
    ///   it: the rows would go to a file nobody meant), or a store that cannot be checked.
    static func rehearse(
        _ lists: [(list: ListDefinition, source: StoreSource)],
        in location: StoreLocation,
        for command: String
    ) async throws -> [StoreError] {
        switch location {
        case .sqlite(let path):
            let environment = ProcessInfo.processInfo.environment
            for name in ["DATA_MEDIATOR_DATABASE_URL", "DATA_MEDIATOR_DATABASE_READ_URL"]
            where environment[name].map({ !$0.isEmpty }) == true {
                throw StoreError(list: nil, Wiring.urlBesideSQLite(name, path: path))
            }
            return try rehearse(lists, inSQLiteAt: path)
        case .postgres:
            let store = try postgres(for: command, connections: 1)
            return try await store.withClientsRunning { try await store.check(lists) }
        }
    }
}
