import DataMediatorSQL
import Foundation
import GRDB

/// The built-in demo's data: a points game (`transactions`) and a catalog (`expansions`),
/// generated deterministically into a new SQLite file.
///
/// Transaction ids run from 1 to the count, and `created_at` grows strictly with the id,
/// so the newest-first view puts the item of id `count - p` at position `p`.
public enum DemoData {
    /// Writes the demo to `path` unless a file is already there.
    ///
    /// The data is written to a temporary file first and moved into place at the end, so
    /// an interrupted start never leaves a half-made store behind.
    ///
    /// - Returns: whether the demo was created (false when the file already existed).
    @discardableResult
    public static func create(at path: String, transactions: Int) throws -> Bool {
        let files = FileManager.default
        if files.fileExists(atPath: path) { return false }
        let partial = path + ".partial"
        try? files.removeItem(atPath: partial)
        do {
            let queue = try DatabaseQueue(path: partial)
            try queue.writeWithoutTransaction { db in
                try db.execute(sql: "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF")
            }
            try queue.inTransaction { db in
                try createTransactions(count: transactions, in: db)
                try createExpansions(in: db)
                return .commit
            }
            try queue.close()
            try files.moveItem(atPath: partial, toPath: path)
        } catch {
            try? files.removeItem(atPath: partial)
            throw error
        }
        return true
    }

    private static func createTransactions(count: Int, in db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE transactions (
                    id INTEGER PRIMARY KEY NOT NULL,
                    player TEXT NOT NULL,
                    points INTEGER NOT NULL,
                    reason TEXT NOT NULL,
                    created_at TEXT NOT NULL,
                    game INTEGER,
                    rev INTEGER NOT NULL DEFAULT 1
                )
                """
        )
        let insert = try db.makeStatement(
            sql: "INSERT INTO transactions (id, player, points, reason, created_at, game) VALUES (?, ?, ?, ?, ?, ?)"
        )
        for row in DemoRows.transactions(count: count) {
            try insert.execute(arguments: [row.id, row.player, row.points, row.reason, row.createdAt, row.game])
        }
    }

    private static func createExpansions(in db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE expansions (
                    id TEXT PRIMARY KEY NOT NULL,
                    name TEXT NOT NULL,
                    category TEXT NOT NULL,
                    released_on TEXT NOT NULL,
                    price REAL NOT NULL,
                    rev INTEGER NOT NULL DEFAULT 1
                )
                """
        )
        let insert = try db.makeStatement(
            sql: "INSERT INTO expansions (id, name, category, released_on, price) VALUES (?, ?, ?, ?, ?)"
        )
        for row in DemoRows.expansions() {
            try insert.execute(arguments: [row.id, row.name, row.category, row.releasedOn, row.price])
        }
    }
}
