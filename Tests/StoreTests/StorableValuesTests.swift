import DataMediator
import DataMediatorTesting
import Foundation
import Testing

/// What no store can keep is refused on every store alike, and nothing is stored: text
/// with U+0000 (SQLite would cut it there, PostgreSQL refuses it) in a field, an id, a
/// path's id or a parameter.
@Suite struct StorableValuesTests {
    @Test(arguments: WritableKind.allCases)
    func textWithNULIsRefusedAndNothingIsStored(kind: WritableKind) async throws {
        let subject = try await WritableSubject(kind)
        let adapter = subject.adapter
        let start = try await adapter.currentVersion()
        let data: JSONValue = .object(["title": .string("before\u{0}after"), "score": .integer(1)])
        let refusals: [(String, DataMediatorError.Code, @Sendable () async throws -> Void)] = [
            (
                "create", .invalidItem,
                { _ = try await adapter.create(body: .object(["id": .string("n1"), "data": data])) }
            ),
            (
                "create with the id", .invalidItem,
                { _ = try await adapter.create(body: .object(["id": .string("n\u{0}"), "data": .object([:])])) }
            ),
            ("replace", .invalidItem, { _ = try await adapter.replace(id: "n2", body: .object(["data": data])) }),
            (
                "replace at the id", .invalidItem,
                { _ = try await adapter.replace(id: "n\u{0}3", body: .object(["data": .object([:])])) }
            ),
            (
                "patch at the id", .unknownItem,
                { _ = try await adapter.patch(id: "n\u{0}", body: .object(["data": .object([:])])) }
            ),
            ("delete at the id", .unknownItem, { _ = try await adapter.delete(id: "n\u{0}") }),
            (
                "a parameter", .badParameter,
                {
                    _ = try await adapter.page(
                        view: "by_day",
                        limit: nil,
                        cursor: nil,
                        slice: SliceRequest(parameters: ["kind": ["big\u{0}"]])
                    )
                }
            ),
        ]
        for (name, code, attempt) in refusals {
            let error = await #expect(throws: DataMediatorError.self, "\(name)") { try await attempt() }
            #expect(error?.code == code, "\(name): \(String(describing: error))")
        }
        _ = try await adapter.create(body: .object(["id": .string("n4"), "data": data.withTitle("plain")]))
        let error = await #expect(throws: DataMediatorError.self) {
            _ = try await adapter.patch(id: "n4", body: .object(["data": .object(["title": .string("\u{0}")])]))
        }
        #expect(error?.code == .invalidItem)
        #expect(try await adapter.currentVersion() == start + 1)
        let walk = try await SampleList.walk(adapter, view: "flat", limit: 10)
        #expect(walk.items.map(\.id) == ["n4"])
    }

    /// A page's cursor carries the text of the fields its view sorts and sections by, and
    /// the id: longer than 1,024 bytes, they are refused, so every cursor is one the server
    /// takes back; 1,024 bytes are taken, and paged past.
    @Test(arguments: WritableKind.allCases)
    func keysAndIdsLongerThanACursorCarriesAreRefused(kind: WritableKind) async throws {
        let subject = try await WritableSubject(kind)
        let adapter = subject.adapter
        let start = try await adapter.currentVersion()
        // `group` is a key (by_group sorts and sections by it); 513 × "é" is 1,026 bytes.
        let longKey: JSONValue = .object(["group": .string(String(repeating: "é", count: 513)), "score": .integer(1)])
        let refused = await #expect(throws: DataMediatorError.self) {
            _ = try await adapter.create(body: .object(["id": .string("k1"), "data": longKey]))
        }
        #expect(refused?.fieldProblems.map(\.field) == ["group"])
        let longID = await #expect(throws: DataMediatorError.self) {
            _ = try await adapter.replace(
                id: String(repeating: "i", count: 1_025),
                body: .object(["data": .object([:])])
            )
        }
        #expect(longID?.fieldProblems.map(\.field) == ["id"])
        #expect(try await adapter.currentVersion() == start)
        // Text that is no key may be long; keys and ids of 1,024 bytes are paged past.
        for index in 0..<3 {
            let data: JSONValue = .object([
                "group": .string(String(repeating: "g", count: 1_023) + String(index)), "score": .integer(1),
                "title": .string(String(repeating: "t", count: 5_000)),
            ])
            _ = try await adapter.replace(
                id: String(repeating: "i", count: 1_023) + String(index),
                body: .object(["data": data])
            )
        }
        let check = try await SampleList.walk(adapter, view: "by_group", limit: 1)
        #expect(check.items.count == 3 && check.violations == [])
    }

    /// A whole number written to a `number` field is a number wherever the item is shown:
    /// the change log (which keeps the item a write answers) and a page both say `7.0`
    /// (SQLite's `RETURNING` hands back `7` for the REAL it stored, which write answers and
    /// the log once showed).
    @Test(arguments: WritableKind.allCases)
    func aWholeNumberOfANumberFieldIsShownAsANumberEverywhere(kind: WritableKind) async throws {
        let subject = try await WritableSubject(kind, weighed: true)
        let adapter = subject.adapter
        let start = try await adapter.currentVersion()
        func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }
        let data: JSONValue = .object(["title": .string("w"), "score": .integer(1), "weight": .integer(7)])
        _ = try await adapter.create(body: .object(["id": .string("w1"), "data": data]))
        _ = try await adapter.patch(id: "w1", body: .object(["data": .object(["weight": .integer(2)])]))
        _ = try await adapter.replace(id: "w2", body: .object(["data": data]))
        let changes = text(try await adapter.changes(view: "weighed", since: String(start), limit: nil).json())
        #expect(changes.components(separatedBy: #""weight":"#).count == 4, "\(changes)")
        #expect(!changes.contains(#""weight":7,"#) && !changes.contains(#""weight":7}"#), "\(changes)")
        #expect(!changes.contains(#""weight":2,"#) && !changes.contains(#""weight":2}"#), "\(changes)")
        let page = text(try await adapter.page(view: "weighed", limit: nil, cursor: nil).json())
        #expect(page.contains(#""weight":2.0"#) && page.contains(#""weight":7.0"#), "\(page)")
    }
}

extension JSONValue {
    /// An object's copy with `title` set.
    fileprivate func withTitle(_ title: String) -> JSONValue {
        guard case .object(var members) = self else { return self }
        members["title"] = .string(title)
        return .object(members)
    }
}
