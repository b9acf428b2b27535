import ArgumentParser

/// The `data-mediator` command: `serve` (the default), `check`.
@main
struct DataMediatorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "data-mediator",
        abstract: "Serves sectioned, paged list data over HTTP.",
        subcommands: [ServeCommand.self, CheckCommand.self, HealthcheckCommand.self, ImportCommand.self],
        defaultSubcommand: ServeCommand.self
    )
}
