import ArgumentParser
import Foundation

/// The `data-mediator` command: `serve` (the default), `check`, `healthcheck`, `import`.
@main
struct DataMediatorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "data-mediator",
        abstract: "Serves sectioned, paged list data over HTTP.",
        subcommands: [ServeCommand.self, CheckCommand.self, HealthcheckCommand.self, ImportCommand.self],
        defaultSubcommand: ServeCommand.self
    )

    /// Runs the command line; a first word that is no command (a misspelt `check`) is
    /// refused as such, where ArgumentParser would give it to `serve`, the default, and
    /// answer with `serve`'s usage.
    static func main() async {
        let arguments = Array(CommandLine.arguments.dropFirst())
        if let first = arguments.first, let refusal = refusal(ofFirstWord: first) {
            printError(refusal)
            Foundation.exit(ExitCode.validationFailure.rawValue)
        }
        await main(nil)
    }

    /// Why `word`, the command line's first, cannot be read: nil for a command's name, an
    /// option, or a help word.
    static func refusal(ofFirstWord word: String) -> String? {
        let names = configuration.subcommands.compactMap { $0.configuration.commandName }
        guard !word.hasPrefix("-"), !names.contains(word), word != "help" else { return nil }
        let near = names.first { distance(word, $0) <= 2 }
        return "data-mediator: '\(word)' is no command; the commands are \(names.joined(separator: ", ")) (serve "
            + "when none is given)" + (near.map { ". Did you mean '\($0)'?" } ?? ".")
    }

    /// The edit distance of two words (Levenshtein): insertions, deletions, substitutions.
    private static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a)
        let b = Array(b)
        var previous = Array(0...b.count)
        for (i, x) in a.enumerated() {
            var current = [i + 1]
            for (j, y) in b.enumerated() {
                current.append(min(previous[j + 1] + 1, current[j] + 1, previous[j] + (x == y ? 0 : 1)))
            }
            previous = current
        }
        return previous[b.count]
    }
}
