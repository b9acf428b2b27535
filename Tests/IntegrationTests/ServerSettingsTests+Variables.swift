import DataMediatorTesting
import Foundation
import Testing

@testable import data_mediator

extension ServerSettingsTests {
    /// A variable named like the service's settings that is none (a misspelt one) is warned
    /// of at start, by name, and ignored.
    @Test func aVariableNamedLikeASettingThatIsNoneIsWarnedOf() throws {
        let warned = try ServeConfiguration.of([
            "DATA_MEDIATOR_WRITE_TOKEN": "0123456789abcdefghij", "DATA_MEDIATOR_PORT": "8081", "OTHER_VARIABLE": "1",
        ]).warnings
        #expect(
            warned == [
                "DATA_MEDIATOR_WRITE_TOKEN is not a setting of the service (misspelt? docs/operations.md lists them); "
                    + "it is ignored"
            ]
        )
        #expect(try ServeConfiguration.of(["DATA_MEDIATOR_WRITE_TOKENS": "0123456789abcdefghij"]).warnings.isEmpty)
    }

    /// A setting given that the start has no use for is warned of, with why: PostgreSQL's
    /// pool settings beside a SQLite store, a token rule with no JWT key to verify by, a
    /// reload interval with no key set file, a demo size beside a config (review 92 #6).
    @Test func aSettingTheStartHasNoUseForIsWarnedOf() async throws {
        let pool = ["DATA_MEDIATOR_DATABASE_CONNECTIONS": "500", "DATA_MEDIATOR_DATABASE_TIMEOUT_SECONDS": "30"]
        let sqlite = ServeConfiguration.unusedSettings(in: pool, sqlite: true, config: true, demoFlag: false)
        #expect(sqlite.count == 2 && sqlite.allSatisfy { $0.contains("the store is a SQLite file") }, "\(sqlite)")
        #expect(ServeConfiguration.unusedSettings(in: pool, sqlite: false, config: true, demoFlag: false).isEmpty)
        let rules = ["DATA_MEDIATOR_JWT_ISSUER": "i", "DATA_MEDIATOR_JWKS_RELOAD_SECONDS": "5"]
        let keyless = ServeConfiguration.unusedSettings(in: rules, sqlite: false, config: true, demoFlag: false)
        #expect(
            keyless.map { $0.prefix(34) } == [
                "DATA_MEDIATOR_JWT_ISSUER is set, b", "DATA_MEDIATOR_JWKS_RELOAD_SECONDS ",
            ]
        )
        let secret = rules.merging(["DATA_MEDIATOR_JWT_SECRET": String(repeating: "s", count: 32)]) { $1 }
        #expect(
            ServeConfiguration.unusedSettings(in: secret, sqlite: false, config: true, demoFlag: false) == [
                "DATA_MEDIATOR_JWKS_RELOAD_SECONDS is set, but DATA_MEDIATOR_JWKS_FILE is not: there is no key set "
                    + "file to read again; it is ignored"
            ]
        )
        let keySet = rules.merging(["DATA_MEDIATOR_JWKS_FILE": "/keys.json"]) { $1 }
        #expect(ServeConfiguration.unusedSettings(in: keySet, sqlite: false, config: true, demoFlag: false).isEmpty)
        #expect(
            ServeConfiguration.unusedSettings(in: [:], sqlite: true, config: true, demoFlag: true) == [
                "--demo-transactions is set, but a config is served, not the built-in demo; it is ignored"
            ]
        )
        #expect(ServeConfiguration.unusedSettings(in: [:], sqlite: true, config: false, demoFlag: true).isEmpty)
        // A serving process says so in its log, as it says a misspelt variable.
        let server = try await ServerProcess(
            arguments: ["--demo-transactions", "10"],
            environment: ["DATA_MEDIATOR_DATABASE_PREPARE": "false"]
        )
        defer { server.removeData() }
        #expect(
            server.log.contains(
                "DATA_MEDIATOR_DATABASE_PREPARE is set, but the store is a SQLite file: it is PostgreSQL's setting; "
                    + "it is ignored"
            ),
            "\(server.log)"
        )
        #expect(await server.stop() == 0)
    }

    /// The variables known are those the sources read, each of them: a setting added or
    /// renamed without its name here would be warned of as misspelt.
    @Test func theKnownVariablesAreThoseTheSourcesRead() throws {
        let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources")
        let files = try #require(FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil))
        var read = Set<String>()
        let name = try Regex(#""(DATA_MEDIATOR_[A-Z_]+)""#)
        for case let file as URL in files
        where file.pathExtension == "swift" && file.lastPathComponent != "ServeConfiguration+Variables.swift" {
            let text = try String(contentsOf: file, encoding: .utf8)
            for match in text.matches(of: name) {
                if let found = match.output[1].substring { read.insert(String(found)) }
            }
        }
        #expect(read.count > 30, "the sources were read")
        #expect(read.subtracting(ServeConfiguration.knownVariables).isEmpty, "read but not known")
        #expect(ServeConfiguration.knownVariables.subtracting(read).isEmpty, "known but never read")
    }
}
