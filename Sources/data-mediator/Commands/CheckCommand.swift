import ArgumentParser
import DataMediator
import DataMediatorPostgres
import DataMediatorSQL
import DataMediatorSQLite
import Foundation
import GRDB

/// `data-mediator check FILE [--store]`: validates a config file and prints every error
/// with its line; with `--store`, checks every list against the store as `serve` does at
/// start, leaving the store as it was.
struct CheckCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Check a config file; print each error with its file, line and fix.",
        discussion: """
            With --store, every list is also checked against the store the config names (its \
            tables, columns, column types and queries; item files are read), as serve checks \
            them at start, in a transaction rolled back: nothing is made or changed in the store. \
            A SQLite file that does not exist is not made: the lists are checked against an \
            empty store, as serve would make it. 'store: postgres' reads \
            DATA_MEDIATOR_DATABASE_URL.
            """
    )

    @Argument(help: "The config file.")
    var file: String

    @Flag(help: "Also check every list against the store the config names, changing nothing in it.")
    var store = false

    func run() async throws {
        let configuration: MediatorConfiguration
        do {
            configuration = try ConfigFileLoader.load(path: file)
            if store {
                // The store is named by the environment's settings: a misspelt one is said.
                for name in ServeConfiguration.unknownVariables(in: ProcessInfo.processInfo.environment) {
                    printError("check: warning: \(ServeConfiguration.unknownVariableWarning(name))")
                }
                _ = try await Wiring.rehearse(configuration, file: file) { lists in
                    try await CommandStore.rehearse(lists, in: configuration.store, for: "check")
                }
            }
        } catch {
            printError("\(error)")
            throw ExitCode.failure
        }
        let views = configuration.lists.reduce(0) { $0 + $1.definition.views.count } + configuration.composites.count
        let composites =
            configuration.composites.isEmpty ? "" : ", " + Self.count(configuration.composites.count, "composite")
        let checked = store ? ", checked against the store" : ""
        let lists = Self.count(configuration.lists.count, "list")
        print("\(file): ok (\(lists)\(composites), \(Self.count(views, "view"))\(checked))")
    }

    /// "1 list", "2 lists".
    static func count(_ number: Int, _ thing: String) -> String {
        "\(number) \(thing)\(number == 1 ? "" : "s")"
    }
}
