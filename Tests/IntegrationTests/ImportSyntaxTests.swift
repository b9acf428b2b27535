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
                    + "8,h,+3,\n9,i,007,\"[1]\"\n10,j,1.0,\n11,k,2e2,\n12,l,1.5,\n",
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
                    "cells.csv:2: 'score' must be", "cells.csv:3: 'tags' must be", "cells.csv:4: 'tags' must be",
                    "cells.csv:5: 'score' must be", "cells.csv:9: 'score' must be",
                ]
            ),
        ] {
            let (status, report) = try await Self.importing(file, in: folder, target, ["--skip-bad"])
            #expect(status == 0, "\(file): \(report)")
            for text in says { #expect(report.contains(text), "\(text) in \(report)") }
        }
        let served = try await Self.served(folder, target)
        #expect(served.map(\.id) == ["1", "3", "4", "9", "10", "11"])
        let nine = served.first { $0.id == "9" }
        #expect(nine?.data.objectValue?["score"] == .integer(7))
        #expect(nine?.data.objectValue?["tags"] == .array([.integer(1)]))
        // A whole number with a fraction or an exponent is one, as in a JSON record.
        #expect(served.suffix(2).map { $0.data.objectValue?["score"] } == [.integer(1), .integer(200)])
    }
}
