import DataMediator
import DataMediatorTesting
import Foundation
import GRDB
import Testing

/// `data-mediator import` with the real binary: JSON arrays, NDJSON and CSV into a list's
/// table; a bad record stops the import with nothing stored, or is left out with
/// `--skip-bad`; the list serves what was imported.
@Suite struct ImportTests {
    /// The store an import goes to: a SQLite file beside the config, or a fresh
    /// PostgreSQL database.
    struct Target: CustomTestStringConvertible, Sendable {
        let store: String
        let environment: [String: String]

        var testDescription: String { store }

        static func make(_ store: String) async throws -> Target {
            guard store == "postgres" else { return Target(store: "{sqlite: store.sqlite}", environment: [:]) }
            return Target(
                store: "postgres",
                environment: ["DATA_MEDIATOR_DATABASE_URL": try await TestDatabase.create()]
            )
        }
    }

    static let stores = ["sqlite", "postgres"]

    static func config(_ target: Target) -> String {
        "store: \(target.store)\n" + lists
    }

    static let lists = """
        lists:
          notes:
            table: notes
            writable: true
            required: [title]
            fields: {id: integer, title: string, score: integer, tags: json}
            views:
              all: {sort: [id], cell: note}

        """

    static func folder(_ files: [String: String], _ target: Target) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("dm-import-\(UUID())")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        for (name, text) in files.merging(["lists.yaml": config(target)], uniquingKeysWith: { $1 }) {
            try Data(text.utf8).write(to: url.appendingPathComponent(name))
        }
        return url
    }

    static func importing(
        _ file: String,
        in folder: URL,
        _ target: Target,
        _ extra: [String] = []
    ) async throws -> (Int32, String) {
        try await DemoWalkTests.run(
            [
                "import", folder.appendingPathComponent(file).path, "--list", "notes", "--config",
                folder.appendingPathComponent("lists.yaml").path,
            ] + extra,
            environment: target.environment
        )
    }

    static func served(_ folder: URL, _ target: Target) async throws -> [Cell] {
        let server = try await ServerProcess(
            dataDirectory: folder,
            arguments: ["--config", folder.appendingPathComponent("lists.yaml").path],
            environment: target.environment
        )
        var check = WalkCheck()
        var cursor: String?
        repeat {
            let page = try Page.decode(
                try await server.get("/lists/notes/items?limit=50" + (cursor.map { "&cursor=\($0)" } ?? "")).body
            )
            check.add(page)
            cursor = page.next
        } while cursor != nil
        #expect(await server.stop() == 0)
        #expect(check.violations == [])
        return check.items
    }

    @Test(arguments: stores)
    func eachFormatIsImportedAndServed(store: String) async throws {
        let target = try await Target.make(store)
        let ndjson =
            (1...120).map { #"{"id": \#($0), "title": "n\#($0)", "score": \#($0 % 7), "tags": ["a"]}"# }
            .joined(separator: "\n") + "\n"
        let json =
            "[\n"
            + (121...130).map { #"  {"id": \#($0), "title": "quote \" and [brackets] {braces}, comma"}"# }
            .joined(separator: ",\n") + "\n]\n"
        let csv =
            "id,title,score,tags\n"
            + (131...140).map { "\($0),\"csv, \($0)\",\($0),\"[\"\"x\"\"]\"" }
            .joined(separator: "\n") + "\n"
        let folder = try Self.folder(["a.ndjson": ndjson, "b.json": json, "c.csv": csv], target)
        defer { try? FileManager.default.removeItem(at: folder) }
        for file in ["a.ndjson", "b.json", "c.csv"] {
            let (status, errors) = try await Self.importing(file, in: folder, target)
            #expect(status == 0, "\(file): \(errors)")
        }
        let items = try await Self.served(folder, target)
        #expect(items.map(\.id) == (1...140).map(String.init))
        #expect(
            items[2].data == .object(["title": .string("n3"), "score": .integer(3), "tags": .array([.string("a")])])
        )
        #expect(items[120].data.objectValue?["title"] == .string("quote \" and [brackets] {braces}, comma"))
        #expect(items[130].data.objectValue?["tags"] == .array([.string("x")]))
        #expect(items[130].data.objectValue?["score"] == .integer(131))
    }

    /// A record's numbers are read as a write body's are: text that is not JSON says where
    /// and why, a number out of a double's range names its field, nesting past a body's
    /// bound says so, and only a record that is no object is "not a JSON object".
    @Test func aRecordsBadNumbersAreNamedAsAWriteBodysAre() async throws {
        let target = try await Target.make("sqlite")
        let lines = [
            #"{"id": 1, "title": "a", "score": 01}"#, #"{"id": 2, "title": "b", "score": 1.}"#,
            #"{"id": 3, "title": "c", "score": 1e400}"#, "[1, 2]", "7", #"{"id": 6, "title": "ok"}"#,
            #"{"id": 7, "title": "d", "score": 1e-400}"#,
            // Deeper than a write body may nest (it was imported, then could not be written
            // back; past 512 levels it was "not a JSON object").
            #"{"id": 8, "title": "e", "tags": "# + String(repeating: "[", count: 40) + String(repeating: "]", count: 40)
                + "}",
            #"{"id": 9, "title": "f", "tags": "# + String(repeating: "[", count: 600)
                + String(repeating: "]", count: 600) + "}",
            // 31 levels in all is what a write's body takes of it (in `data`, 32); 32 was
            // imported, and a `PUT` of what `GET` showed was refused.
            #"{"id": 10, "title": "g", "tags": "# + String(repeating: "[", count: 30)
                + String(repeating: "]", count: 30)
                + "}",
            #"{"id": 11, "title": "h", "tags": "# + String(repeating: "[", count: 31)
                + String(repeating: "]", count: 31)
                + "}",
        ]
        let folder = try Self.folder(["n.ndjson": lines.joined(separator: "\n") + "\n"], target)
        defer { try? FileManager.default.removeItem(at: folder) }
        let (status, report) = try await Self.importing("n.ndjson", in: folder, target, ["--skip-bad"])
        #expect(status == 0, "\(report)")
        for expected in [
            "n.ndjson:1: is not JSON (RFC 8259): at byte 34: a number with a leading zero",
            "n.ndjson:2: is not JSON (RFC 8259): at byte 35:",
            "n.ndjson:3: 'score' holds a number out of range", "n.ndjson:4: is not a JSON object",
            "n.ndjson:5: is not a JSON object", "n.ndjson:7: 'score' holds a number out of range",
            "n.ndjson:8: nests arrays and objects more than 31 levels deep",
            "n.ndjson:9: nests arrays and objects more than 31 levels deep",
            "n.ndjson:11: nests arrays and objects more than 31 levels deep",
        ] {
            #expect(report.contains(expected), "\(expected) in \(report)")
        }
        #expect(try await Self.served(folder, target).map(\.id) == ["6", "10"])
    }

    @Test(arguments: stores)
    func aBadRecordStopsTheImportWithNothingStoredUnlessSkipped(store: String) async throws {
        let target = try await Target.make(store)
        let lines = [
            #"{"id": 1, "title": "one"}"#, "not json", #"{"id": 3, "title": "three", "score": "x"}"#,
            #"{"id": 4}"#, #"{"id": 5, "title": "five"}"#, #"{"id": 1, "title": "again"}"#,
        ]
        let folder = try Self.folder(["bad.ndjson": lines.joined(separator: "\n") + "\n"], target)
        defer { try? FileManager.default.removeItem(at: folder) }
        let (stopped, reason) = try await Self.importing("bad.ndjson", in: folder, target)
        #expect(
            stopped == 1 && reason.contains("bad.ndjson:2: is not JSON (RFC 8259): at byte 0:")
                && reason.contains("; nothing was imported"),
            "\(reason)"
        )
        #expect(try await Self.served(folder, target).isEmpty)

        let (skipped, report) = try await Self.importing(
            "bad.ndjson",
            in: folder,
            target,
            ["--skip-bad", "--batch", "2"]
        )
        #expect(skipped == 0, "\(report)")
        for expected in [
            "bad.ndjson:2: is not JSON (RFC 8259)", "bad.ndjson:3: 'score' must be",
            "bad.ndjson:4: 'title' is required",
            "bad.ndjson:6: the id '1' exists already (in the table, or on an earlier line of the file)",
        ] {
            #expect(report.contains(expected), "\(expected) in \(report)")
        }
        #expect(try await Self.served(folder, target).map(\.id) == ["1", "5"])
        // Each committed batch (of 2 records) that stored one moved the version, so a client
        // watching `/changes` or `/events` saw each of them land; the batch of two bad records
        // (lines 3 and 4) stored nothing and moved nothing.
        let server = try await ServerProcess(
            dataDirectory: folder,
            arguments: ["--config", folder.appendingPathComponent("lists.yaml").path],
            environment: target.environment
        )
        let page = try Page.decode(try await server.get("/lists/notes/items").body)
        #expect(page.version == 2)
        #expect(try await server.get("/lists/notes/changes?since=1").status == 410)
        #expect(try await server.json("/lists/notes/changes?since=2")["version"] as? String == "2")
        #expect(await server.stop() == 0)
    }

    /// Only a list over a table takes an import: a query's and a composite's are named as
    /// such, an unknown one as unknown, each with the lists that do.
    @Test func aListNotOverATableIsNamedWithTheOnesThatAre() async throws {
        let target = try await Target.make("sqlite")
        let folder = try Self.folder(["one.ndjson": "{\"id\": 1, \"title\": \"a\"}\n"], target)
        defer { try? FileManager.default.removeItem(at: folder) }
        let config = folder.appendingPathComponent("lists.yaml")
        try Data(
            (Self.config(target) + "  counts:\n    query: SELECT 1 AS id\n    fields: {id: integer}\n"
                + "    views: {all: {sort: [id]}}\n  screen:\n    compose: [{name: n, list: notes}]\n").utf8
        ).write(to: config)
        for (list, says) in [
            ("counts", "list 'counts' is not over a table"), ("nope", "no list 'nope'"),
            ("screen", "'screen' is a composite, which holds no items of its own"),
        ] {
            let (status, output) = try await DemoWalkTests.run(
                ["import", folder.appendingPathComponent("one.ndjson").path, "--list", list, "--config", config.path],
                environment: ["DATA_MEDIATOR_DATABSE_URL": "postgres://misspelt"]
            )
            #expect(status == 1 && output.contains(says) && output.contains("over a table are 'notes'"), "\(output)")
            // The database settings are the environment's: a misspelt one is said, as serve says it.
            #expect(output.contains("import: warning: DATA_MEDIATOR_DATABSE_URL is not a setting"), "\(output)")
        }
    }

    @Test func aFileWithNothingToStoreIsRefusedAndMovesNothing() async throws {
        let target = try await Target.make("sqlite")
        let folder = try Self.folder(
            [
                "empty.ndjson": "", "empty.json": "", "none.json": " [ ] ", "header.csv": "id,title,score,tags\n",
                "bad.ndjson": "{\"title\": \"no id\"}\n\n",
                "two.json": #"[{"id": 1, "title": "a"}] [{"id": 2, "title": "b"}]"#,
                "twice.csv": "id,title,title\n7,a,b\n",
                // RFC 4180 quoting broken: the reader took the rest of the file as one cell,
                // and dropped the text after a closing quote (both stored, "imported").
                "unclosed.csv": "id,title,score,tags\n50,a,1,\n51,\"oops,1,\n52,b,1,\n53,c,1,\n",
                "after.csv": "id,title,score,tags\n54,a,1,\n55,\"x\"y,1,\n56,b,1,\n",
                // Read as a write body is: the decoder took both (the first 'title' won).
                "loose.ndjson": "{\"id\": 3, \"title\": \"c\",}\n{\"id\": 4, \"title\": \"d\", \"title\": \"e\"}\n",
            ],
            target
        )
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(
            at: folder.appendingPathComponent("records.json"),
            withIntermediateDirectories: true
        )
        // A device behind a link never ends; a pipe with no writer blocks the open.
        try FileManager.default.createSymbolicLink(
            atPath: folder.appendingPathComponent("zero.ndjson").path,
            withDestinationPath: "/dev/zero"
        )
        #expect(mkfifo(folder.appendingPathComponent("pipe.ndjson").path, 0o600) == 0)
        // Text that is not UTF-8 (Latin-1's ÿ): the CSV reader would cut the cell at it.
        try Data(Array("id,title,score,tags\n1,ok,1,\n2,a".utf8) + [0xFF] + Array("b,2,\n3,c,3,\n".utf8)).write(
            to: folder.appendingPathComponent("latin1.csv")
        )
        for (file, extra, says) in [
            ("empty.ndjson", [], "empty.ndjson: is empty"), ("empty.json", [], "empty.json: is empty"),
            ("records.json", [], "records.json: is a folder"), ("missing.csv", [], "missing.csv: does not exist"),
            ("zero.ndjson", [], "zero.ndjson: is not a regular file"),
            ("pipe.ndjson", [], "pipe.ndjson: is not a regular file"),
            // No record to store: nothing is, and the version stays (no client reloads).
            ("none.json", [], "holds no record to import"), ("header.csv", ["--skip-bad"], "holds no record to import"),
            ("bad.ndjson", ["--skip-bad"], "holds no record to import"),
            ("two.json", ["--skip-bad"], "two.json:1: has more after its array's closing ']'"),
            ("latin1.csv", ["--skip-bad"], "latin1.csv:3: is not UTF-8 text"),
            ("twice.csv", ["--skip-bad"], "twice.csv:1: names the column 'title' twice"),
            ("unclosed.csv", ["--skip-bad"], "unclosed.csv:3: opens a quoted cell that is never closed"),
            ("after.csv", ["--skip-bad"], "after.csv:3: has text after a quoted cell's closing quote"),
            ("loose.ndjson", ["--skip-bad"], "loose.ndjson:1: is not JSON (RFC 8259): at byte 23: a comma before '}'"),
            ("loose.ndjson", ["--skip-bad"], "loose.ndjson:2: names 'title' twice in one object"),
        ] {
            let (status, errors) = try await Self.importing(file, in: folder, target, extra)
            #expect(status == (file == "two.json" ? 0 : 1) && errors.contains(says), "\(file): \(errors)")
        }
        // The list's version did not move: no client is sent to reload.
        let server = try await ServerProcess(
            dataDirectory: folder,
            arguments: ["--config", folder.appendingPathComponent("lists.yaml").path],
            environment: target.environment
        )
        // The one import that stored a record (two.json's first array) moved it, once.
        let page = try Page.decode(try await server.get("/lists/notes/items").body)
        #expect(page.version == 1 && page.items.map(\.id) == ["1"], "\(page.items.map(\.id))")
        #expect(await server.stop() == 0)
    }

    /// A byte order mark at the start is passed over (RFC 8259 8.1 lets a reader ignore
    /// it); a number or a word among a .json array's objects is one bad record, not one a
    /// byte.
    @Test func aByteOrderMarkIsPassedOverAndAScalarElementIsOneBadRecord() async throws {
        let target = try await Target.make("sqlite")
        let folder = try Self.folder(
            [
                "marked.ndjson": "\u{FEFF}{\"id\": 1, \"title\": \"a\"}\n",
                "marked.json": "\u{FEFF}[{\"id\": 2, \"title\": \"b\"}, 12345, true,\n{\"id\": 3, \"title\": \"c\"}]",
            ],
            target
        )
        defer { try? FileManager.default.removeItem(at: folder) }
        let (plain, plainSays) = try await Self.importing("marked.ndjson", in: folder, target)
        #expect(plain == 0 && plainSays.isEmpty, "\(plainSays)")
        let (status, errors) = try await Self.importing("marked.json", in: folder, target, ["--skip-bad"])
        let reported = errors.split(separator: "\n").filter { $0.hasSuffix("marked.json:1: is not a JSON object") }
        #expect(status == 0 && reported.count == 2, "\(errors)")
        #expect(try await Self.served(folder, target).map(\.id) == ["1", "2", "3"])
    }

    @Test func aRecordWithoutItsIdIsNamedSo() async throws {
        let target = try await Target.make("sqlite")
        let folder = try Self.folder(["no-id.csv": "title,score\nfirst,1\n"], target)
        defer { try? FileManager.default.removeItem(at: folder) }
        let (status, errors) = try await Self.importing("no-id.csv", in: folder, target)
        #expect(status == 1 && errors.contains("no-id.csv:2: 'id' is missing: every record needs its id"), "\(errors)")
        // A header's ' id' is named (it was not: the missing id hid it).
        let spaced = try Self.folder(["spaced.csv": " id,title\n1,first\n"], target)
        defer { try? FileManager.default.removeItem(at: spaced) }
        let (refused, why) = try await Self.importing("spaced.csv", in: spaced, target)
        #expect(
            refused == 1 && why.contains("'id' is missing: every record needs its id; ' id' is another field"),
            "\(why)"
        )
    }

    @Test func csvLinesCountTheBreaksInQuotedCells() async throws {
        let target = try await Target.make("sqlite")
        let long = String(repeating: "9x", count: 50_000)
        let csv = "id,title,score\n1,\"two\nlines\",1\n\n2,ok,x\n3,long,\(long)\n"
        let folder = try Self.folder(["multi.csv": csv], target)
        defer { try? FileManager.default.removeItem(at: folder) }
        let (status, errors) = try await Self.importing("multi.csv", in: folder, target, ["--skip-bad"])
        #expect(status == 0 && errors.contains("multi.csv:5: 'score' must be"), "\(errors)")
        // A long bad cell is quoted by its start and its length, not whole.
        #expect(errors.contains("multi.csv:6: 'score' must be") && errors.contains("(100000 characters)"))
        #expect(errors.utf8.count < 2_000, "\(errors.utf8.count) bytes of report")
        let (refused, why) = try await Self.importing("multi.csv", in: folder, target, ["--batch", "0"])
        // Exit 1, as a setting out of range is refused, not 64 (a command line unparsed).
        #expect(refused == 1 && why.contains("--batch must be at least 1"), "\(why)")
        let (negative, negativeSays) = try await Self.importing("multi.csv", in: folder, target, ["--batch", "-5"])
        #expect(negative != 0 && negativeSays.contains("--batch must be at least 1; it is -5"), "\(negativeSays)")
    }

    /// A SQLite import leaves its rows in the store's file, not in its write-ahead log:
    /// the command's connections are not closed at exit, and a backup that copied the file
    /// alone right after an import had none of them (probe 81).
    @Test func aSQLiteImportLeavesItsRowsInTheStoresFile() async throws {
        let target = try await Target.make("sqlite")
        let ndjson = (1...300).map { #"{"id": \#($0), "title": "n\#($0)"}"# }.joined(separator: "\n") + "\n"
        let folder = try Self.folder(["a.ndjson": ndjson], target)
        defer { try? FileManager.default.removeItem(at: folder) }
        let (status, errors) = try await Self.importing("a.ndjson", in: folder, target)
        #expect(status == 0, "\(errors)")
        let copy = folder.appendingPathComponent("copy.sqlite")
        try FileManager.default.copyItem(at: folder.appendingPathComponent("store.sqlite"), to: copy)
        let rows = try await DatabaseQueue(path: copy.path).read {
            try Int.fetchOne($0, sql: "SELECT count(*) FROM notes")
        }
        #expect(rows == 300, "the file alone holds the import")
    }
}
