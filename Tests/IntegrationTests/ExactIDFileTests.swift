import DataMediator
import DataMediatorTesting
import Testing

@testable import data_mediator

/// Ids from files and the config are told apart by their bytes, as the stores and pages tell
/// them apart: "é" as U+00E9 and as "e" + U+0301 are two ids, not one given twice.
@Suite struct ExactIDFileTests {
    @Test func aFileListHoldsIdsThatDifferOnlyInTheirUnicodeForm() async throws {
        let items =
            #"[{"id": "\u00e9q", "question": "a?", "rank": 1}, {"id": "e\u0301q", "question": "b?", "rank": 2}]"#
        let folder = try FileListTests.Folder(files: [
            "lists.yaml": FileListTests.config(file: "faq.json"), "faq.json": items,
        ])
        defer { folder.remove() }
        let registry = try await folder.wire()
        let check = try await SampleList.walk(try registry.adapter(named: "faq"), view: nil, limit: 1)
        #expect(check.violations == [])
        #expect(check.items.map { Array($0.id.utf8) } == [Array("\u{E9}q".utf8), Array("e\u{301}q".utf8)])
    }

    @Test func aStaticSectionHoldsIdsThatDifferOnlyInTheirUnicodeForm() throws {
        var loader = ConfigFileLoader(file: "test.yaml", baseDirectory: "/data")
        let configuration = try loader.parse(
            ConfigFileLoaderTests.base + "  c:\n    compose:\n"
                + #"      - {name: hi, items: [{id: "\u00e9", type: a}, {id: "e\u0301", type: a}]}"# + "\n"
        )
        guard case .section(_, _, let cells) = try #require(configuration.composites.first).children[0].content else {
            Issue.record("not a static section")
            return
        }
        #expect(cells.map { Array($0.id.utf8) } == [Array("\u{E9}".utf8), Array("e\u{301}".utf8)])
    }
}
