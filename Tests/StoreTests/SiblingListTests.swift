import DataMediator
import DataMediatorTesting
import Testing

/// Lists over one table that declare different fields: a write through one logs the item
/// in every other as that list reads it, the columns the writing list does not declare
/// among them (a write cuts each list's item from the row it read, and reads the row again
/// for a list it cannot cut it for).
@Suite struct SiblingListTests {
    @Test(arguments: [WritableKind.sqlite, .postgres])
    func aWriteThroughAListThatLacksAColumnLogsItWhereAnotherListReadsIt(kind: WritableKind) async throws {
        let subject = try await WritableSubject(kind, weighed: true)
        let weighed = subject.adapter
        var lean = WritableSubject.fields
        lean["weight"] = nil
        let sibling = try #require(try await subject.sibling("lean", scope: nil, fields: lean))
        let data: [String: JSONValue] = ["title": .string("first"), "score": .integer(1), "weight": .number(2.5)]
        _ = try await weighed.create(body: .object(["id": .string("n1"), "data": .object(data)]), scope: nil)
        _ = try await weighed.create(
            body: .object(["id": .string("n2"), "data": .object(data.merging(["weight": .number(1)]) { $1 })]),
            scope: nil
        )
        let start = try await weighed.currentVersion()

        let patched = try await sibling.patch(
            id: "n1",
            body: .object(["data": .object(["title": .string("renamed")])]),
            scope: nil
        )
        guard case .object(let written) = patched.cell.data else { throw FixtureError("no data in \(patched)") }
        #expect(written["weight"] == nil, "the lean list shows no weight")

        let changes = try await weighed.changes(view: "weighed", since: String(start), limit: nil)
        let entry = try #require(changes.entries.first as ChangeSet.Entry?)
        #expect(changes.entries.count == 1)
        #expect(entry.operation == Change.Operation.update, "the weight did not change, so the item stayed in place")
        guard case .object(let logged)? = entry.cell?.data else { throw FixtureError("no data in \(entry)") }
        #expect(logged["title"] == .string("renamed"))
        #expect(logged["weight"] == .number(2.5))

        // And the other way: the lean list logs the writes through the weighed one.
        let leanStart = try await sibling.currentVersion()
        _ = try await weighed.patch(id: "n2", body: .object(["data": .object(["weight": .number(9)])]), scope: nil)
        let leanChanges = try await sibling.changes(view: "flat", since: String(leanStart), limit: nil)
        #expect(leanChanges.entries.map(\.id) == ["n2"])
    }
}
