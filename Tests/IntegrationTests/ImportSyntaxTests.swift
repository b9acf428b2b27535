import DataMediator
import DataMediatorTesting
import Foundation
import Testing

extension ImportTests {
    /// A `.json` file's array is JSON to the letter (`[a b]`, `[,a]` and `[a,]` are bad
    /// records, as the elements with a missing or extra comma), and CSV cells are read as
    /// their type's text: numbers as decimal text (no `0x10`, no `+3`; a whole number may be
    /// written `1.0` or `2e2`, as in a JSON record), JSON cells as RFC
    /// 8259 (no member named twice, no trailing comma). All were stored as read loosely.
    @Test func arraysAndCSVCellsAreReadToTheLetter() async throws {
        let target = try await Target.make("sqlite")
        let folder = try Self.folder(
            [
                "nocomma.json": #"[{"id": 1, "title": "a"} {"id": 2, "title": "b"}]"#,
                "leading.json": #"[,{"id": 3, "title": "c"}]"#,
                "trailing.json": #"[{"id": 4, "title": "d"},]"#,
                "cells.csv": "id,title,score,tags\n5,e,0x10,\n6,f,1,\"{\"\"a\"\":1,\"\"a\"\":2}\"\n7,g,1,\"[1,]\"\n"
                    + "8,h,+3,\n9,i,007,\"[1]\"\n10,j,1.0,\n11,k,2e2,\n12,l,1.5,\n"
                    // 30 levels is what a write's body takes of a field's value (32 in all).
                    + "13,m,1,\(String(repeating: "[", count: 30) + String(repeating: "]", count: 30))\n"
                    + "14,n,1,\(String(repeating: "[", count: 31) + String(repeating: "]", count: 31))\n"
                    + "15,o,1,1e400\n",
            ],
            target
        )
        defer { try? FileManager.default.removeItem(at: folder) }
        for (file, says) in [
            ("nocomma.json", ["nocomma.json:1: follows the element before it with no comma between them"]),
            ("leading.json", ["leading.json:1: has a comma with no element before it"]),
            ("trailing.json", ["trailing.json:1: has a comma before the array's ']'"]),
            (
                "cells.csv",
                [
                    "cells.csv:2: 'score' must be", "cells.csv:3: 'tags' must be", "names 'a' twice in one object",
                    "cells.csv:4: 'tags' must be", "it is not JSON (RFC 8259): at byte",
                    "cells.csv:5: 'score' must be", "cells.csv:9: 'score' must be",
                    "cells.csv:11: 'tags' must be", "more than 30 levels deep",
                    "cells.csv:12: 'tags' must be any JSON value; got '1e400'; it holds a number out of range",
                ]
            ),
        ] {
            let (status, report) = try await Self.importing(file, in: folder, target, ["--skip-bad"])
            #expect(status == 0, "\(file): \(report)")
            for text in says { #expect(report.contains(text), "\(text) in \(report)") }
        }
        let served = try await Self.served(folder, target)
        #expect(served.map(\.id) == ["1", "3", "4", "9", "10", "11", "13"])
        let nine = served.first { $0.id == "9" }
        #expect(nine?.data.objectValue?["score"] == .integer(7))
        #expect(nine?.data.objectValue?["tags"] == .array([.integer(1)]))
        // A whole number with a fraction or an exponent is one, as in a JSON record.
        #expect(served.dropLast().suffix(2).map { $0.data.objectValue?["score"] } == [.integer(1), .integer(200)])
    }
}

extension ImportTests {
    /// A CSV cell's zero is stored as a JSON record's or a write body's is: `-0.0` and `-0`
    /// as 0 (CSV stored -0, shown `-0.0`, where NDJSON and the API store 0), and a number
    /// no double holds but 0 (`1e-400`) is refused as theirs is (CSV stored 0).
    @Test(arguments: stores)
    func aCSVZeroIsStoredAsAJSONRecordsIs(store: String) async throws {
        let target = try await Target.make(store)
        let csv = "id,title,weight\n1,a,-0.0\n2,b,-0\n3,c,-0e5\n4,d,1e-400\n5,e,-2.5\n6,f,0.0\n"
        let ndjson = #"{"id": 7, "title": "g", "weight": -0.0}"# + "\n"
        let folder = try Self.folder(["w.csv": csv, "w.ndjson": ndjson], target)
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data(
            Self.config(target).replacingOccurrences(of: "tags: json}", with: "tags: json, weight: number}").utf8
        ).write(to: folder.appendingPathComponent("lists.yaml"))
        for file in ["w.csv", "w.ndjson"] {
            let (status, report) = try await Self.importing(file, in: folder, target, ["--skip-bad"])
            #expect(status == 0, "\(file): \(report)")
            if file == "w.csv" { #expect(report.contains("w.csv:5: 'weight' must be"), "\(report)") }
        }
        let server = try await ServerProcess(
            dataDirectory: folder,
            arguments: ["--config", folder.appendingPathComponent("lists.yaml").path],
            environment: target.environment
        )
        let answer = try await server.get("/lists/notes/items?limit=50")
        #expect(await server.stop() == 0)
        let page = try Page.decode(answer.body)
        let weights = page.sections.flatMap(\.items).map { "\($0.id)=\($0.data.objectValue?["weight"] ?? .null)" }
        #expect(weights.count == 6, "\(weights)")
        let body = String(decoding: answer.body, as: UTF8.self)
        #expect(!body.contains(#""weight":-0"#), "\(body)")
        #expect(body.contains(#""weight":-2.5"#), "\(body)")
    }
}

extension ImportTests {
    /// A record larger as JSON than `DATA_MEDIATOR_MAX_BODY_BYTES` is a bad record, named
    /// with the setting: a write of it is refused `413`, so served it could not be written
    /// back, and a page of such items costs what the setting bounds (review 106 #5: a 30 MB
    /// record was imported, its page 31 MB). A setting that is no number refuses the import.
    @Test func aRecordLargerThanTheBodyLimitIsABadRecord() async throws {
        let base = try await Target.make("sqlite")
        let target = Target(store: base.store, environment: ["DATA_MEDIATOR_MAX_BODY_BYTES": "2048"])
        let big = String(repeating: "x", count: 3_000)
        let folder = try Self.folder(
            ["big.ndjson": #"{"id": 1, "title": "a"}"# + "\n" + #"{"id": 2, "title": "\#(big)"}"# + "\n"],
            target
        )
        defer { try? FileManager.default.removeItem(at: folder) }
        let (status, report) = try await Self.importing("big.ndjson", in: folder, target, ["--skip-bad"])
        #expect(status == 0, "\(report)")
        #expect(report.contains("big.ndjson:2: is 3028 bytes as JSON, more than DATA_MEDIATOR_MAX_BODY_BYTES (2048)"))
        #expect(try await Self.served(folder, target).map(\.id) == ["1"])
        let refused = Target(store: base.store, environment: ["DATA_MEDIATOR_MAX_BODY_BYTES": "lots"])
        let (code, said) = try await Self.importing("big.ndjson", in: folder, refused, ["--skip-bad"])
        #expect(code == 1 && said.contains("DATA_MEDIATOR_MAX_BODY_BYTES must be a whole number"), "\(said)")
    }
}
