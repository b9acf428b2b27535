import DataMediator
import DataMediatorTesting
import Foundation
import Logging
import Testing

@testable import data_mediator

/// Lists over JSON, NDJSON and CSV files: read once at start-up, served from memory,
/// read-only, checked against the list's fields with the file and line of each mistake.
@Suite struct FileListTests {
    /// A folder with a config and its files, wired as `serve` wires it.
    struct Folder {
        let url: URL

        init(files: [String: String]) throws {
            url = FileManager.default.temporaryDirectory.appendingPathComponent("dm-files-\(UUID())")
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
            for (name, text) in files {
                try Data(text.utf8).write(to: url.appendingPathComponent(name))
            }
        }

        /// The registry the service would serve: both steps of the wiring.
        func wire(environment: [String: String] = [:]) async throws -> ListRegistry {
            let settings = try ServeConfiguration(
                config: url.appendingPathComponent("lists.yaml").path,
                host: nil,
                port: nil,
                dataDir: url.path,
                demoTransactions: nil,
                environment: environment
            )
            let logger = Logger(label: "test")
            return try await Wiring(
                settings: settings,
                environment: ["DATA_MEDIATOR_CURSOR_SECRET": "file-list-test-secret"],
                logger: logger
            ).registry(logger: logger)
        }

        func remove() { try? FileManager.default.removeItem(at: url) }
    }

    static func config(file: String) -> String {
        """
        store:
          sqlite: store.sqlite
        lists:
          faq:
            title: FAQ
            file: \(file)
            required: [question]
            fields: {id: string, question: string, rank: integer, score: number, open: boolean, tags: json}
            limit: {default: 2, max: 10}
            views:
              by_rank: {sort: [rank], cell: faq}
          notes:
            table: notes
            writable: true
            fields: {id: integer, text: string}
            views:
              all: {sort: [id], cell: note}
          screen:
            compose:
              - {name: faq, list: faq, limit: 2, more: true}
              - {name: notes, list: notes}

        """
    }

    static let json = """
        [{"id": "b", "question": "Why?", "rank": 2, "score": 0.5, "open": true, "tags": ["x"]},
         {"id": "a", "question": "How?", "rank": 1},
         {"id": "c", "question": "When?", "rank": 3, "score": 2}]
        """
    static let ndjson = """
        {"id": "b", "question": "Why?", "rank": 2, "score": 0.5, "open": true, "tags": ["x"]}

        {"id": "a", "question": "How?", "rank": 1}
        {"id": "c", "question": "When?", "rank": 3, "score": 2}

        """
    static let csv = """
        id,question,rank,score,open,tags
        b,"Why, really?",2,0.5,true,"[""x""]"
        a,How?,1,,,
        c,When?,3,2,false,

        """

    @Test("a file list serves its items in view order, typed as declared", arguments: ["json", "ndjson", "csv"])
    func aFileListIsServed(format: String) async throws {
        let text = ["json": Self.json, "ndjson": Self.ndjson, "csv": Self.csv][format] ?? ""
        let folder = try Folder(files: ["lists.yaml": Self.config(file: "faq.\(format)"), "faq.\(format)": text])
        defer { folder.remove() }
        let registry = try await folder.wire()
        let faq = try registry.adapter(named: "faq")
        let check = try await SampleList.walk(faq, view: nil, limit: 2)
        #expect(check.violations == [])
        #expect(check.items.map(\.id) == ["a", "b", "c"])
        let b = try #require(check.items.first { $0.id == "b" })
        #expect(b.type == "faq")
        #expect(b.data.objectValue?["rank"] == .integer(2) && b.data.objectValue?["score"] == .number(0.5))
        #expect(b.data.objectValue?["open"] == .bool(true) && b.data.objectValue?["tags"] == .array([.string("x")]))
        #expect(check.items.first?.data.objectValue?["score"] == .null)
        // Read-only, and part of a composite next to a store list.
        let refused = await #expect(throws: DataMediatorError.self) {
            _ = try await faq.create(body: .object(["data": .object(["question": .string("?")])]))
        }
        #expect(refused?.code == .readOnly)
        let screen = try await SampleList.walk(try registry.adapter(named: "screen"), view: nil, limit: 1)
        #expect(screen.violations == [])
        #expect(screen.items.map(\.id) == ["faq/a", "faq/b", "faq:more"])
        // A write to the store list is the composite's one change; the file adds none.
        let composite = try registry.adapter(named: "screen")
        _ = try await registry.adapter(named: "notes").create(body: .object(["data": .object(["text": .string("n")])]))
        let version = try await composite.page(view: nil, limit: nil, cursor: nil).version
        #expect(try await composite.changes(view: nil, since: "\(version)", limit: nil).entries.isEmpty)
        let changes = try await composite.changes(view: nil, since: "\(version - 1)", limit: nil).entries
        #expect(changes.map { "\($0.operation.rawValue) \($0.id)" } == ["insert notes/1"])
        #expect(registry.adapters.map(\.definition.name) == ["faq", "notes", "screen"])
    }

    @Test(
        "a broken file is refused with its file, line and reason",
        arguments: [
            (
                "faq.ndjson", "{\"id\": \"a\", \"question\": \"?\"}\n{\"id\": \"a\", \"question\": \"!\"}\n",
                "faq.ndjson:2: id 'a' appears twice"
            ),
            (
                "faq.ndjson", "{\"id\": \"a\", \"question\": \"?\"}\nnot json\n",
                "faq.ndjson:2: is not JSON (RFC 8259): at byte 0"
            ),
            ("faq.ndjson", "{\"id\": \"a\", \"rank\": 1}\n", "item 'a': 'question' is required"),
            (
                "faq.json", "[{\"id\": \"a\", \"question\": \"?\", \"colour\": \"red\"}]",
                "'colour' is not a field of the list"
            ),
            ("faq.json", "{\"id\": \"a\"}", "must hold a JSON array of objects"),
            ("faq.json", "[{\"question\": \"?\"}]", "faq.json:1: 'id' must be a non-empty string or a whole number"),
            ("faq.csv", "id,question,rank\na,?,first\n", "faq.csv:2: 'rank' must be a whole number; got 'first'"),
            ("faq.csv", "id,question\na,?,extra\n", "faq.csv:2: has 3 cells, the header 2"),
            ("faq.csv", "id,question\na,?\nb,\"open\nc,?\n", "faq.csv:3: opens a quoted cell that is never closed"),
        ]
    )
    func aBrokenFileIsRefused(file: String, text: String, message: String) async throws {
        let folder = try Folder(files: ["lists.yaml": Self.config(file: file), file: text])
        defer { folder.remove() }
        let error = await #expect(throws: ConfigFileErrors.self) { _ = try await folder.wire() }
        let description = error?.description ?? ""
        #expect(description.contains(message), "\(description)")
        #expect(description.contains("list 'faq'") && description.contains("lists.yaml:5"), "\(description)")
    }

    @Test func aMissingFileOrAnUnknownFormatIsRefused() async throws {
        let folder = try Folder(files: ["lists.yaml": Self.config(file: "faq.ndjson")])
        defer { folder.remove() }
        let missing = await #expect(throws: ConfigFileErrors.self) { _ = try await folder.wire() }
        #expect(missing?.description.contains("does not exist") == true)
        let unknown = try Folder(files: ["lists.yaml": Self.config(file: "faq.txt"), "faq.txt": ""])
        defer { unknown.remove() }
        let refused = await #expect(throws: ConfigFileErrors.self) { _ = try await unknown.wire() }
        #expect(refused?.description.contains("not a .json, .ndjson, .jsonl or .csv file") == true)
    }

    /// A database URL beside a SQLite store: the operator means PostgreSQL, and was served
    /// from a local file without a word.
    @Test func aDatabaseURLBesideASQLiteStoreIsRefused() async throws {
        let folder = try Folder(files: ["lists.yaml": Self.config(file: "faq.ndjson"), "faq.ndjson": ""])
        defer { folder.remove() }
        for name in ["DATA_MEDIATOR_DATABASE_URL", "DATA_MEDIATOR_DATABASE_READ_URL"] {
            let refused = await #expect(throws: ConfigFileErrors.self) {
                _ = try await folder.wire(environment: [name: "postgres://u:secret@db/app"])
            }
            let said = refused?.description ?? ""
            #expect(said.contains("\(name) is set, but the store is SQLite") && !said.contains("secret"), "\(said)")
        }
        _ = try await folder.wire()
    }

    /// A config `serve` refuses leaves no data folder, and no cursor secret in it, behind.
    @Test(arguments: ["store: [sqlite\n", "store: postgres\nlists: {}\n"])
    func aRefusedConfigLeavesNoDataFolder(config: String) async throws {
        let folder = try Folder(files: ["lists.yaml": config])
        defer { folder.remove() }
        let data = folder.url.appendingPathComponent("data")
        let settings = try ServeConfiguration(
            config: folder.url.appendingPathComponent("lists.yaml").path,
            host: nil,
            port: nil,
            dataDir: data.path,
            demoTransactions: nil,
            environment: [:]
        )
        await #expect(throws: ConfigFileErrors.self) {
            _ = try await Wiring(settings: settings, environment: [:], logger: Logger(label: "test"))
        }
        #expect(!FileManager.default.fileExists(atPath: data.path))
    }
}
