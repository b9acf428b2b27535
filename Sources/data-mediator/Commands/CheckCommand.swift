import ArgumentParser
import DataMediator

/// `data-mediator check FILE`: validates a config file and prints every error with its line.
struct CheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Check a config file; print each error with its file, line and fix."
    )

    @Argument(help: "The config file.")
    var file: String

    func run() throws {
        do {
            let configuration = try ConfigFileLoader.load(path: file)
            let views =
                configuration.lists.reduce(0) { $0 + $1.definition.views.count } + configuration.composites.count
            let composites = configuration.composites.isEmpty ? "" : ", \(configuration.composites.count) composite"
            print("\(file): ok (\(configuration.order.count) lists\(composites), \(views) views)")
        } catch {
            printError(error.description)
            throw ExitCode.failure
        }
    }
}
