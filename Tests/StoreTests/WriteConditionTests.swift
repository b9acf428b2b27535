import DataMediator
import DataMediatorTesting
import Testing

/// A write's condition (HTTP's `If-Match`, `If-None-Match`) is checked against the item
/// as it stands, in the write's own transaction, on every store: of many writes that expect
/// one state, exactly one is stored.
@Suite struct WriteConditionTests {
    static func data(_ title: String, _ score: Int64) -> JSONValue {
        .object(["data": .object(["title": .string(title), "score": .integer(score)])])
    }

    @Test(arguments: WritableKind.allCases)
    func writesHoldOnlyWhileTheItemIsAsExpected(kind: WritableKind) async throws {
        let subject = try await WritableSubject(kind)
        let adapter = subject.adapter
        let first = try await adapter.replace(id: "n1", body: Self.data("one", 1))
        let tag = first.cell.entityTag
        let start = try await adapter.currentVersion()
        // Each refused: the write, the item, If-Match, If-None-Match.
        let refusals: [(Write, String, Set<String>?, Set<String>?)] = [
            (.patch, "n1", ["\"0\""], nil), (.replace, "n1", [], nil), (.replace, "n2", ["*"], nil),
            (.replace, "n1", nil, ["*"]), (.delete, "n1", nil, [tag]), (.delete, "n1", ["\"0\""], nil),
        ]
        for (write, id, ifMatch, ifNoneMatch) in refusals {
            let condition = WriteCondition(ifMatch: ifMatch, ifNoneMatch: ifNoneMatch)
            let error = await #expect(throws: DataMediatorError.self, "\(write) \(id)") {
                try await write.run(on: adapter, id: id, condition: condition)
            }
            #expect(error?.code == .preconditionFailed, "\(write) \(id): \(String(describing: error))")
        }
        #expect(try await adapter.currentVersion() == start)
        // The current tag, `*`, and a create where none is, pass.
        let second = try await adapter.patch(
            id: "n1",
            body: Self.data("two", 2),
            condition: .init(ifMatch: [tag], ifNoneMatch: nil)
        )
        #expect(second.cell.entityTag != tag)
        _ = try await adapter.replace(
            id: "n1",
            body: Self.data("three", 3),
            condition: .init(ifMatch: ["*"], ifNoneMatch: ["\"0\""])
        )
        let created = try await adapter.replace(
            id: "n2",
            body: Self.data("new", 1),
            condition: .init(ifMatch: nil, ifNoneMatch: ["*"])
        )
        #expect(created.created)

        // Twenty writes that all expect the same state: one is stored.
        let current = try await adapter.locate(id: "n1", view: nil).item.entityTag
        let outcomes = try await withThrowingTaskGroup(of: Bool.self) { group in
            for index in 0..<20 {
                group.addTask {
                    do {
                        _ = try await adapter.patch(
                            id: "n1",
                            body: Self.data("race \(index)", Int64(index)),
                            condition: .init(ifMatch: [current], ifNoneMatch: nil)
                        )
                        return true
                    } catch let error as DataMediatorError where error.code == .preconditionFailed {
                        return false
                    }
                }
            }
            return try await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(outcomes.filter { $0 }.count == 1)
        #expect(try await adapter.locate(id: "n1", view: nil).item.rev == "4")
    }

    /// A write of the item `id` under a condition.
    enum Write {
        case replace, patch, delete

        func run(on adapter: ListAdapter, id: String, condition: WriteCondition) async throws {
            switch self {
            case .replace:
                _ = try await adapter.replace(id: id, body: WriteConditionTests.data("x", 2), condition: condition)
            case .patch:
                _ = try await adapter.patch(id: id, body: WriteConditionTests.data("x", 2), condition: condition)
            case .delete: _ = try await adapter.delete(id: id, condition: condition)
            }
        }
    }
}
