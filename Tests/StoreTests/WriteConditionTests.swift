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

    /// A create's target is the list, whose tag is its first page's: `If-Match` holds while
    /// the list stays at that page's version, checked in the write's own transaction.
    @Test(arguments: WritableKind.allCases)
    func createsHoldOnlyWhileTheListIsAsExpected(kind: WritableKind) async throws {
        let subject = try await WritableSubject(kind)
        let adapter = subject.adapter
        func tag() async throws -> String {
            EntityTag.of(try await adapter.page(view: nil, limit: nil, cursor: nil, slice: .whole).json())
        }
        typealias Tags = Set<String>?
        func create(
            _ index: Int,
            _ ifMatch: Tags,
            _ ifNoneMatch: Tags = nil,
            key: String? = nil
        ) async throws
            -> WrittenItem
        {
            try await adapter.create(
                body: Self.data("new \(index)", Int64(index)),
                idempotencyKey: key,
                condition: .init(ifMatch: ifMatch, ifNoneMatch: ifNoneMatch)
            )
        }
        let empty = try await tag()
        let first = try await create(0, [empty], key: "k")
        let refusals: [(Tags, Tags)] = [([empty], nil), (nil, ["*"]), (nil, [try await tag()])]
        for (ifMatch, ifNoneMatch) in refusals {
            let error = await #expect(throws: DataMediatorError.self) { try await create(1, ifMatch, ifNoneMatch) }
            #expect(error?.code == .preconditionFailed)
        }
        // A retry of the first create (its key, its stale tag) answers as the first did.
        let retried = try await create(0, [empty], key: "k")
        #expect(retried.replayed && retried.cell.id == first.cell.id)
        _ = try await create(2, ["*"], [empty])

        // Twenty creates that all name the same page: one is stored.
        let current = try await tag()
        let start = try await adapter.currentVersion()
        let outcomes = try await withThrowingTaskGroup(of: Bool.self) { group in
            for index in 10..<30 {
                group.addTask {
                    do {
                        _ = try await create(index, [current])
                        return true
                    } catch let error as DataMediatorError where error.code == .preconditionFailed {
                        return false
                    }
                }
            }
            return try await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(outcomes.filter { $0 }.count == 1)
        #expect(try await adapter.currentVersion() == start + 1)
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
