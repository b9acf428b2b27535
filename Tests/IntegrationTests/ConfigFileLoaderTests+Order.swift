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
        // Each value is checked whatever the other is: a refused default hid a maximum over
        // the bound (probe 81).
        let both = limitErrors("{default: 0, max: 5000}")
        #expect(both.count == 2, "\(both)")
        #expect(both.contains { $0.contains("'limit.default' must be a whole number of at least 1") }, "\(both)")
        #expect(both.contains("list 'x': 'limit.max' (5000) is above 1000, the most items a page may hold"), "\(both)")
        // A maximum below the default nobody wrote names that default as the service's,
        // and a number where the mapping goes says the mapping's shape (review 92 #10).
        #expect(
            limitErrors("{max: 5}") == [
                "list 'x': 'limit.max' (5) is below the page size when none is asked, 'limit.default' "
                    + "(20 when not written); give a default of at most 5 too"
            ]
        )
        #expect(limitErrors("20") == ["list 'x': 'limit' is the page sizes, a mapping: limit: {default: 20, max: 100}"])
    }

    /// Every error says FILE:LINE:COLUMN (or FILE:LINE when no column is known): an alias
    /// that names no anchor is a syntax error at its place, naming it (review 92 #10),
    /// and bytes that are not UTF-8 name their line without a column 0.
    @Test func aYAMLOrUTF8ErrorSaysWhere() throws {
        let alias = errors(
            "store:\n  sqlite: a\nlists:\n  x:\n    table: t\n    fields: {a: string}\n    views:\n      v: {sort: *nope}\n"
        )
        #expect(
            alias.map(\.description) == [
                "test.yaml:8:17: error: YAML syntax: found undefined alias '*nope': no anchor '&nope' before it"
            ],
            "\(alias)"
        )
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

extension ConfigFileLoaderTests {
    /// The YAML problems a hand-written config meets most are said with their fix, not in
    /// libyaml's words alone (probe 59): a tab that indents, a second document, nesting
    /// past libyaml's bound.
    @Test func commonYAMLProblemsAreSaidWithTheirFix() {
        let lists = "lists:\n  x:\n    table: t\n    fields: {a: string}\n    views:\n      v: {sort: [a]}\n"
        let cases: [(yaml: String, line: Int, says: String)] = [
            ("store:\n\tsqlite: a\n" + lists, 2, "a tab where YAML takes only spaces"),
            (
                "store:\n  sqlite: a\n" + lists.replacingOccurrences(of: "    table", with: "  \ttable"), 5,
                "indent with spaces"
            ),
            ("store:\n  sqlite: a\n" + lists + "---\nstore:\n  sqlite: b\n", 9, "a config file is one document"),
            ("store:\n  sqlite: a\n" + lists + "...\nmore: 1\n", 10, "a config file is one document"),
            ("store: " + String(repeating: "[", count: 1100) + "\n", 1, "nested too deep"),
        ]
        for (yaml, line, says) in cases {
            let found = errors(yaml)
            #expect(found.count == 1 && found.first?.line == line, "\(found)")
            #expect(found.first?.message.contains("YAML syntax: ") == true, "\(found)")
            #expect(found.first?.message.contains(says) == true, "\(found)")
        }
    }
}
