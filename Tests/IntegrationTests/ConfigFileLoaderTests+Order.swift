import Foundation
import Testing

@testable import data_mediator

/// Config files: all errors at once, in file order, each naming what was written.
extension ConfigFileLoaderTests {
    @Test func everyErrorIsReportedInFileOrder() {
        let found = errors(
            "store:\n  sqlite: a\n  extra: 1\nlists:\n  x:\n    table: t\n    fields: {a: strin}\n    views:\n      v: {sort: [b]}\n"
        )
        #expect(found.count == 3)
        #expect(found.map(\.line) == found.map(\.line).sorted())
    }

    /// A page limit's error names the value written: a refused one is not also compared
    /// with the other (as the 20 put in its place), and a default with no maximum is named.
    @Test func aLimitsErrorNamesWhatWasWritten() {
        func limitErrors(_ limit: String) -> [String] {
            errors(
                "store:\n  sqlite: a\nlists:\n  x:\n    table: t\n    fields: {a: string}\n    limit: \(limit)\n"
                    + "    views:\n      v: {sort: [a]}\n"
            ).map(\.message)
        }
        let negative = limitErrors("{default: -1, max: 5}")
        #expect(negative.count == 1 && negative.first?.contains("'limit.default'") == true, "\(negative)")
        #expect(
            limitErrors("{default: 5000}") == [
                "list 'x': 'limit.default' (5000) is above 1000, the most items a page may hold"
            ]
        )
    }

    /// Every error says FILE:LINE:COLUMN (or FILE:LINE when no column is known): an alias
    /// that names no anchor is a syntax error at its place, and bytes that are not UTF-8
    /// name their line without a column 0.
    @Test func aYAMLOrUTF8ErrorSaysWhere() throws {
        let alias = errors(
            "store:\n  sqlite: a\nlists:\n  x:\n    table: t\n    fields: {a: string}\n    views:\n      v: {sort: *nope}\n"
        )
        #expect(alias.map(\.description) == ["test.yaml:8:17: error: YAML syntax: found undefined alias"], "\(alias)")
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("latin1-\(UUID()).yaml").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Data(Array("store:\n  sqlite: a\nlists:\n  caf".utf8) + [0xE9] + Array(":\n".utf8)).write(
            to: URL(fileURLWithPath: path)
        )
        #expect(throws: ConfigFileErrors.self) { _ = try ConfigFileLoader.load(path: path) }
        do {
            _ = try ConfigFileLoader.load(path: path)
        } catch {
            #expect(error.description == "\(path):4: error: the file is not UTF-8 text; save it as UTF-8")
        }
    }

    /// JSON has no order: a view sorted or sectioned by a json field paged by its JSON
    /// text, and a walk skipped or repeated items (probe 40). Each is refused at its line.
    @Test func aJSONFieldNeitherSortsNorSections() {
        let found = errors(
            "store:\n  sqlite: a\nlists:\n  x:\n    table: t\n    fields: {a: string, j: json}\n    views:\n"
                + "      v: {sort: [-j]}\n      w: {sort: [a], section: j}\n"
                + "      u: {sort: [a], section: {field: j, by: day}}\n      ok: {sort: [a], filter: [{field: j, op: eq, value: 1}]}\n"
        )
        #expect(found.map(\.line) == [8, 9, 10], "\(found)")
        #expect(found.allSatisfy { $0.message.contains("'j', which is json and has no order") }, "\(found)")
    }
}
