import DataMediatorTesting
import Testing

@testable import DataMediator
@testable import DataMediatorSQL

/// A write's items are kept once per list and version (``ChangeItems``), not once per view
/// of the list it changed: a list of six views logged a 200 KB item and the one before it
/// six times. Rows logged with their items inline (before the table) are still read.
@Suite struct ChangeItemsTests {
    static func transactions(_ subject: WritableSubject) throws -> any SQLTransactions {
        guard let provider = subject.adapter.provider as? any SQLDataProvider else {
            throw DataMediatorError(.unavailable, "not a SQL provider")
        }
        return provider.reader.transactions
    }

    /// Each view's changes since `since`: the operation, the id, the title and the title
    /// of the item before (for changes whose item before the log keeps).
    static func feeds(_ subject: WritableSubject, since: Int64) async throws -> [String: [String]] {
        var feeds: [String: [String]] = [:]
        for view in subject.adapter.definition.views.map(\.name) {
            let answer = try await subject.adapter.changes(view: view, since: String(since), limit: "100")
            feeds[view] = answer.entries.map { entry in
                guard case .object(let data)? = entry.cell?.data else { return "\(entry.operation) \(entry.id)" }
                return "\(entry.operation) \(entry.id) \(data["title"]?.stringValue?.count ?? -1)"
            }
        }
        return feeds
    }

    @Test(arguments: [WritableKind.sqlite, .postgres])
    func aWriteKeepsItsItemsOnceHoweverManyViewsItChanges(kind: WritableKind) async throws {
        let subject = try await WritableSubject(kind)
        let start = try await subject.adapter.currentVersion()
        let title = String(repeating: "t", count: 10_000)
        _ = try await subject.adapter.create(
            body: .object(["id": .string("a"), "data": .object(["title": .string(title), "score": .integer(1)])])
        )
        let version = try await subject.adapter.replace(
            id: "a",
            body: .object(["data": .object(["title": .string(title + "u"), "score": .integer(2)])])
        ).version
        let rows = try await Self.transactions(subject).read { session in
            try await session.rows(
                """
                SELECT (SELECT COUNT(*) FROM \(ServiceTables.changes) WHERE list = 'notes' AND version = ?),
                    (SELECT COUNT(*) FROM \(ServiceTables.changes) WHERE list = 'notes' AND item IS NOT NULL),
                    (SELECT COUNT(*) FROM \(ChangeItems.table) WHERE list = 'notes' AND version = ?)
                """,
                [.integer(version), .integer(version)]
            )
        }
        let counts = try #require(rows.first).map(\.integerValue)
        #expect((counts[0] ?? 0) >= 3, "the update changed \(counts[0] ?? 0) views")
        #expect(counts[1] == 0 && counts[2] == 1, "\(counts)")
        // Its size, which a read's budget sums without reading the items.
        let kept = try await Self.transactions(subject).read { session in
            try await session.rows(
                "SELECT item, old_item, bytes FROM \(ChangeItems.table) WHERE list = 'notes' AND version = ?",
                [.integer(version)]
            )
        }
        let row = try #require(kept.first)
        let measured = (row[0].stringValue?.utf8.count ?? 0) + (row[1].stringValue?.utf8.count ?? 0)
        #expect(measured > 20_000 && row[2].integerValue == Int64(measured), "\(measured) \(row[2])")
        // Every view's feed gets the item after and, for its update, the item before.
        let feeds = try await Self.feeds(subject, since: start)
        #expect(
            feeds["flat"] == ["insert a 10000", "update a 10001"]
                || feeds["flat"] == ["insert a 10000", "move a 10001"]
        )
        let update = try await subject.adapter.changeLog?.changes(
            of: try subject.adapter.definition.view(named: "flat"),
            since: version - 1,
            limit: 10
        )
        #expect(update?.changes.first?.old?["title"] == .string(title))
        #expect(update?.changes.first?.item?["title"] == .string(title + "u"))
    }

    @Test(arguments: [WritableKind.sqlite, .postgres])
    func changesLoggedWithTheirItemsInlineAreReadAsBefore(kind: WritableKind) async throws {
        let subject = try await WritableSubject(kind)
        let start = try await subject.adapter.currentVersion()
        for (index, score) in [3, 1, 2].enumerated() {
            _ = try await subject.adapter.create(
                body: .object([
                    "id": .string("n\(index)"),
                    "data": .object(["title": .string("n\(index)"), "score": .integer(Int64(score))]),
                ])
            )
        }
        _ = try await subject.adapter.replace(
            id: "n1",
            body: .object(["data": .object(["title": .string("moved"), "score": .integer(9)])])
        )
        _ = try await subject.adapter.delete(id: "n0")
        let before = try await Self.feeds(subject, since: start)
        // As a release before the table logged them: the items in each row of the log.
        try await Self.transactions(subject).write { session in
            try await session.execute(
                """
                UPDATE \(ServiceTables.changes) SET
                    item = CASE WHEN op IN ('insert', 'update', 'move') THEN (SELECT i.item FROM \(ChangeItems.table) AS i
                        WHERE i.list = \(ServiceTables.changes).list AND i.version = \(ServiceTables.changes).version) END,
                    old_item = CASE WHEN op IN ('update', 'move', 'delete') THEN (SELECT i.old_item FROM \(ChangeItems.table) AS i
                        WHERE i.list = \(ServiceTables.changes).list AND i.version = \(ServiceTables.changes).version) END
                """,
                []
            )
            try await session.execute("DELETE FROM \(ChangeItems.table)", [])
        }
        #expect(try await Self.feeds(subject, since: start) == before)
        #expect(before.values.allSatisfy { $0.count >= 1 }, "\(before)")
    }
}
