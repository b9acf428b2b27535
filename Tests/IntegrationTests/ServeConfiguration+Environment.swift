@testable import data_mediator

extension ServeConfiguration {
    /// The settings `serve` resolves with no flags and `environment`.
    static func of(_ environment: [String: String]) throws -> ServeConfiguration {
        try ServeConfiguration(
            config: nil,
            host: nil,
            port: nil,
            dataDir: nil,
            demoTransactions: nil,
            environment: environment
        )
    }
}
