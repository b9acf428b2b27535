import DataMediator
import Foundation
import GRDB

/// The change log of a writable table list: one row per write and view, written in the
/// write's own transaction, so the log and the table never disagree.
///
/// It keeps the last `history` versions; `data_mediator_history` holds, per list, the
/// version from which the log is complete (its floor).
public struct SQLiteChangeLog: ChangeLog {
    /// The table of changes.
    static let changesTable = "data_mediator_changes"
    /// The table of each list's history floor.
    static let historyTable = "data_mediator_history"

    private let database: DatabasePool
    private let list: String
    private let history: Int
    private let provider: SQLiteDataProvider
    private let layout: ItemLayout

    init(database: DatabasePool, list: ListDefinition, provider: SQLiteDataProvider, columns: [String]) {
        self.database = database
        self.list = list.name
        self.history = list.history
        self.provider = provider
        self.layout = ItemLayout(columns)
    }

    /// Creates the log's tables when missing.
    static func createTables(in db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE IF NOT EXISTS \(changesTable) (
                    list TEXT NOT NULL,
                    view TEXT NOT NULL,
                    version INTEGER NOT NULL,
                    op TEXT NOT NULL,
                    item_id TEXT NOT NULL,
                    item TEXT,
                    section TEXT,
                    section_after TEXT,
                    after TEXT,
                    PRIMARY KEY (list, view, version)
                ) WITHOUT ROWID;
                CREATE TABLE IF NOT EXISTS \(historyTable) (
                    list TEXT PRIMARY KEY NOT NULL,
                    floor INTEGER NOT NULL
                );
                """
        )
    }

    /// Starts the list's history at the current version when it has none yet.
    func start(in db: Database) throws {
        try db.execute(
            sql: "INSERT OR IGNORE INTO \(Self.historyTable) (list, floor) VALUES (?, ?)",
            arguments: [list, try provider.currentVersion(db)]
        )
    }

    /// Records what a write did to each view, and forgets what is older than the history.
    func append(version: Int64, id: String, item: Item?, changes: [String: ViewChange], in db: Database) throws {
        let itemJSON = item.map { String(decoding: $0.objectJSON(), as: UTF8.self) }
        let insert = try db.cachedStatement(
            sql: """
                INSERT OR REPLACE INTO \(Self.changesTable)
                    (list, view, version, op, item_id, item, section, section_after, after)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                """
        )
        for (view, change) in changes.sorted(by: { $0.key < $1.key }) {
            try insert.execute(arguments: [
                list, view, version, change.operation.rawValue, id,
                change.operation == .delete ? nil : itemJSON,
                change.placement?.section, change.placement?.sectionAfter, change.placement?.after,
            ])
        }
        let floor =
            try Int64.fetchOne(
                db,
                sql: "SELECT floor FROM \(Self.historyTable) WHERE list = ?",
                arguments: [list]
            ) ?? 0
        let keepFrom = version - Int64(history)
        if keepFrom > floor {
            try db.execute(
                sql: "DELETE FROM \(Self.changesTable) WHERE list = ? AND version <= ?",
                arguments: [list, keepFrom]
            )
            try db.execute(
                sql: "UPDATE \(Self.historyTable) SET floor = ? WHERE list = ?",
                arguments: [keepFrom, list]
            )
        }
    }

    /// Up to `limit` changes of `view` after `since`, from one snapshot.
    public func changes(of view: View, since: Int64, limit: Int) async throws -> ChangeWindow {
        try await database.read { db in
            let version = try provider.currentVersion(db)
            let floor =
                try Int64.fetchOne(db, sql: "SELECT floor FROM \(Self.historyTable) WHERE list = ?", arguments: [list])
                ?? version
            try DataMediatorError.checkHistory(since: since, floor: floor, version: version)
            let rows = try Row.fetchCursor(
                db.cachedStatement(
                    sql: """
                        SELECT version, op, item_id, item, section, section_after, after
                        FROM \(Self.changesTable)
                        WHERE list = ? AND view = ? AND version > ?
                        ORDER BY version LIMIT ?
                        """
                ),
                arguments: [list, view.name, since, max(0, limit)]
            )
            var changes: [Change] = []
            while let row = try rows.next() {
                let operation = Change.Operation(rawValue: row[1]) ?? .reload
                let section: String? = row[4]
                changes.append(
                    Change(
                        operation: operation,
                        version: row[0],
                        id: row[2],
                        item: (row[3] as String?).flatMap { Item(objectJSON: Array($0.utf8), layout: layout) },
                        placement: section.map { Placement(section: $0, sectionAfter: row[5], after: row[6]) }
                    )
                )
            }
            return ChangeWindow(changes: changes, version: version)
        }
    }
}
