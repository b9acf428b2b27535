import DataMediator
import Foundation

extension SQLItemWriter {
    /// The stored result of an earlier insert with this key, or nil when the key is new
    /// (or older than the retention, and forgotten).
    ///
    /// - Throws: `idempotencyKeyReused` when the key came with another body.
    func replay(_ idempotency: IdempotencyKey, _ session: any SQLSession) async throws -> WriteResult? {
        let rows = try await session.rows(
            """
            SELECT fingerprint, item, version FROM \(ServiceTables.idempotency)
            WHERE list = ? AND key IN (?, ?) AND created_at >= ?
            ORDER BY CASE WHEN key = ? THEN 0 ELSE 1 END LIMIT 1
            """,
            [
                .string(list), .string(idempotency.storedKey), .string(idempotency.joinedKey),
                .number(Self.oldestKept()), .string(idempotency.storedKey),
            ]
        )
        guard let row = rows.first, row.count == 3 else { return nil }
        guard row[0].stringValue == idempotency.fingerprint else {
            throw DataMediatorError(
                .idempotencyKeyReused,
                "The Idempotency-Key '\(idempotency.key)' was used with another body; use a new key for a new item."
            )
        }
        guard let json = row[1].stringValue, let version = row[2].integerValue,
            let item = Item(objectJSON: Array(json.utf8), layout: layout, types: columnTypes)
        else { return nil }
        return WriteResult(item: item, version: version, created: true, replayed: true)
    }

    /// Stores the answer to a key (replacing an expired use of the same key), and deletes
    /// at most ``purgeBatch`` expired keys, the oldest, at most once a second
    /// (``SQLItemWriter/purge``): the write holds the store's version lock, and a backlog
    /// (a keyed batch, then a day without keyed writes) is worked off a batch at a time.
    /// One unbounded delete held every write of the store for tens of seconds, and on
    /// PostgreSQL met the statement timeout each time: the write failed, nothing was
    /// deleted, and the table grew for good (review 104 F1).
    func remember(_ idempotency: IdempotencyKey, result: WriteResult, _ session: any SQLSession) async throws {
        if purge.isDue() {
            // By the age index, the oldest first.
            try await session.execute(
                """
                DELETE FROM \(ServiceTables.idempotency) WHERE (list, key) IN (
                    SELECT list, key FROM \(ServiceTables.idempotency) WHERE created_at < ?
                    ORDER BY created_at LIMIT \(Self.purgeBatch)
                )
                """,
                [.number(Self.oldestKept())]
            )
        }
        try await session.execute(
            """
            INSERT INTO \(ServiceTables.idempotency) (list, key, fingerprint, item, version, created_at)
            VALUES (?, ?, ?, ?, ?, ?)
            ON CONFLICT (list, key) DO UPDATE SET fingerprint = excluded.fingerprint, item = excluded.item,
                version = excluded.version, created_at = excluded.created_at
            """,
            [
                .string(list), .string(idempotency.storedKey), .string(idempotency.fingerprint),
                .string(String(decoding: result.item.objectJSON(), as: UTF8.self)),
                .integer(result.version), .number(Date().timeIntervalSince1970),
            ]
        )
    }

    /// The most expired keys one write deletes.
    static let purgeBatch = 1_000

    /// When the oldest idempotency key still honoured was stored (seconds since 1970).
    static func oldestKept() -> Double {
        Date().timeIntervalSince1970 - Double(IdempotencyKey.retention.components.seconds)
    }
}
