import DataMediator
import DataMediatorTesting
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
}

extension JSONValue {
    /// An object's copy with `title` set.
    fileprivate func withTitle(_ title: String) -> JSONValue {
        guard case .object(var members) = self else { return self }
        members["title"] = .string(title)
        return .object(members)
    }
}
