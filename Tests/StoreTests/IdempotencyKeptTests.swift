import DataMediatorTesting
import Foundation
import Testing

@testable import DataMediator
@testable import DataMediatorSQL

/// What the SQL stores keep of idempotency keys: a write deletes a bounded batch of the
/// expired ones, and a caller's key of any length is kept.
@Suite struct IdempotencyKeptTests {
    /// The expired keys of `list` the store keeps.
    static func expired(_ subject: WritableSubject) async throws -> Int {
        let rows = try await ChangeItemsTests.transactions(subject).read { session in
            try await session.rows(
                "SELECT COUNT(*) FROM \(ServiceTables.idempotency) WHERE created_at < ?",
                [.number(SQLItemWriter.oldestKept())]
            )
        }
        return Int(try #require(rows.first?.first?.integerValue))
    }

    /// A backlog of expired keys is deleted a batch at a time, the write that deletes one
    /// answered as any other: one delete of every expired key held the store's every write
    /// while it ran, and on PostgreSQL met the statement timeout each time, failing the
    /// write and deleting nothing (review 104 F1).
    @Test(arguments: [WritableKind.sqlite, .postgres])
    func aWriteDeletesABatchOfExpiredKeys(kind: WritableKind) async throws {
        let subject = try await WritableSubject(kind)
        let backlog = SQLItemWriter.purgeBatch * 5 / 2
        let stored = Date().timeIntervalSince1970
        try await ChangeItemsTests.transactions(subject).write { session in
            try await session.execute(
                """
                WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(backlog))
                INSERT INTO \(ServiceTables.idempotency) (list, key, fingerprint, item, version, created_at)
                SELECT 'notes', 'old-' || i, 'f', '{}', 1, ? - i FROM n
                """,
                [.number(stored - 25 * 3600)]
            )
            try await session.execute(
                """
                INSERT INTO \(ServiceTables.idempotency) (list, key, fingerprint, item, version, created_at)
                VALUES ('notes', 'fresh', 'f', '{}', 1, ?)
                """,
                [.number(stored)]
            )
        }
        #expect(try await Self.expired(subject) == backlog)
        let written = try await subject.adapter.create(
            body: .object(["id": .string("a"), "data": .object(["title": .string("a"), "score": .integer(1)])]),
            idempotencyKey: "new"
        )
        #expect(written.created && !written.replayed)
        #expect(try await Self.expired(subject) == backlog - SQLItemWriter.purgeBatch)
        // The oldest went first; the fresh key is kept.
        let left = try await ChangeItemsTests.transactions(subject).read { session in
            try await session.rows(
                "SELECT key FROM \(ServiceTables.idempotency) WHERE key IN ('old-\(backlog)', 'old-1', 'fresh') ORDER BY key",
                []
            )
        }
        #expect(left.compactMap { $0.first?.stringValue } == ["fresh", "old-1"])
    }

    /// A caller's key is kept however long its caller's name (a JWT's `iss` and `sub`,
    /// a slice value): PostgreSQL's index refused such a key, and every keyed create of
    /// the caller was `422`, telling it to shorten the item's fields (review 104 F2).
    @Test(arguments: [WritableKind.sqlite, .postgres])
    func aLongCallersKeyIsKept(kind: WritableKind) async throws {
        let subject = try await WritableSubject(kind)
        // Of random text, which PostgreSQL's index cannot compress to fit.
        let caller = "jwt " + (0..<120).map { _ in UUID().uuidString }.joined()
        let body = JSONValue.object(["data": .object(["title": .string("a"), "score": .integer(1)])])
        let first = try await subject.adapter.create(body: body, idempotencyKey: "k", caller: caller)
        let again = try await subject.adapter.create(body: body, idempotencyKey: "k", caller: caller)
        #expect(first.created && again.replayed && again.cell.id == first.cell.id)
        let other = await #expect(throws: DataMediatorError.self) {
            _ = try await subject.adapter.create(
                body: .object(["data": .object(["title": .string("b"), "score": .integer(1)])]),
                idempotencyKey: "k",
                caller: caller
            )
        }
        #expect(other?.code == .idempotencyKeyReused)
        // Another caller of the same long name but one letter is another key.
        let apart = try await subject.adapter.create(body: body, idempotencyKey: "k", caller: caller + "j")
        #expect(!apart.replayed && apart.cell.id != first.cell.id)
        // A long key an earlier release kept joined replays too (review 108 #1).
        let earlier = IdempotencyKey(key: "e", caller: "jwt " + String(repeating: "j", count: 600), fingerprint: "f")
        try await ChangeItemsTests.transactions(subject).write { session in
            try await session.execute(
                """
                INSERT INTO \(ServiceTables.idempotency) (list, key, fingerprint, item, version, created_at)
                VALUES ('notes', ?, ?, ?, ?, ?)
                """,
                [
                    .string(earlier.joinedKey), .string(earlier.fingerprint),
                    .string(#"{"id":"old","title":"kept","score":1}"#), .integer(1),
                    .number(Date().timeIntervalSince1970),
                ]
            )
        }
        #expect(earlier.storedKey != earlier.joinedKey)
        let writer = try #require(subject.adapter.writer)
        let replayed = try await writer.insert(id: nil, fields: [:], idempotency: earlier, precondition: nil)
        #expect(replayed.replayed && replayed.item["id"] == .string("old"))
        // Short keys are kept as they were (a retry across the upgrade replays).
        #expect(IdempotencyKey(key: "k", caller: "token ab", fingerprint: "f").storedKey == "token ab\nk")
    }
}
