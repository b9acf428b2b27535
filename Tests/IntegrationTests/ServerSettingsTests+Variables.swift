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
