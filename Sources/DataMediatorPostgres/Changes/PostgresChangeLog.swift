import DataMediator
import Logging
import PostgresNIO

/// The change log of a writable table list: one row per write and view, written in the
/// write's own transaction, so the log and the table never disagree.
///
/// It keeps the last `history` versions; `data_mediator_history` holds, per list, the
/// version from which the log is complete (its floor).
public struct PostgresChangeLog: ChangeLog {
    /// The table of changes.
    static let changesTable = "data_mediator_changes"
    /// The table of each list's history floor.
    static let historyTable = "data_mediator_history"

    private let store: PostgresStore
    private let list: String
    private let history: Int
    private let layout: ItemLayout

    init(store: PostgresStore, list: ListDefinition, columns: [String]) {
        self.store = store
        self.list = list.name
        self.history = list.history
        self.layout = ItemLayout(columns)
    }

    private var logger: Logger { store.logger }

    /// Starts the list's history at the current version when it has none yet.
    func start(_ connection: PostgresConnection) async throws {
        let version = try await PostgresStore.version(connection, logger: logger)
        try await connection.query(
            """
            INSERT INTO \(unescaped: Self.historyTable) (list, floor) VALUES (\(list), \(version))
            ON CONFLICT DO NOTHING
            """,
            logger: logger
        )
    }

    /// Records what a write did to each view, and forgets what is older than the history.
    func append(
        version: Int64,
        id: String,
        item: Item?,
        changes: [String: ViewChange],
        _ connection: PostgresConnection
    ) async throws {
        let itemJSON = item.map { String(decoding: $0.objectJSON(), as: UTF8.self) }
        for (view, change) in changes.sorted(by: { $0.key < $1.key }) {
            let stored = change.operation == .delete ? nil : itemJSON
            try await connection.query(
                """
                INSERT INTO \(unescaped: Self.changesTable)
                    (list, view, version, op, item_id, item, section, section_after, after)
                VALUES (\(list), \(view), \(version), \(change.operation.rawValue), \(id), \(stored),
                    \(change.placement?.section), \(change.placement?.sectionAfter), \(change.placement?.after))
                ON CONFLICT (list, view, version) DO UPDATE SET
                    op = EXCLUDED.op, item_id = EXCLUDED.item_id, item = EXCLUDED.item, section = EXCLUDED.section,
                    section_after = EXCLUDED.section_after, after = EXCLUDED.after
                """,
                logger: logger
            )
        }
        let keepFrom = version - Int64(history)
        // The floor only rises; the update finds nothing to do while it is at or past keepFrom.
        let rows = try await connection.query(
            """
            UPDATE \(unescaped: Self.historyTable) SET floor = \(keepFrom)
            WHERE list = \(list) AND floor < \(keepFrom) RETURNING floor
            """,
            logger: logger
        )
        var raised = false
        for try await _ in rows { raised = true }
        if raised {
            try await connection.query(
                "DELETE FROM \(unescaped: Self.changesTable) WHERE list = \(list) AND version <= \(keepFrom)",
                logger: logger
            )
        }
    }

    /// Up to `limit` changes of `view` after `since`, from one snapshot.
    public func changes(of view: View, since: Int64, limit: Int) async throws -> ChangeWindow {
        try await store.read { connection in
            let version = try await PostgresStore.version(connection, logger: logger)
            var floor = version
            let floors = try await connection.query(
                "SELECT floor FROM \(unescaped: Self.historyTable) WHERE list = \(list)",
                logger: logger
            )
            for try await value in floors.decode(Int64.self) { floor = value }
            try DataMediatorError.checkHistory(since: since, floor: floor, version: version)
            let rows = try await connection.query(
                """
                SELECT version, op, item_id, item, section, section_after, after
                FROM \(unescaped: Self.changesTable)
                WHERE list = \(list) AND view = \(view.name) AND version > \(since)
                ORDER BY version LIMIT \(Int64(max(0, limit)))
                """,
                logger: logger
            )
            var changes: [Change] = []
            for try await (version, op, id, item, section, sectionAfter, after) in rows.decode(
                (Int64, String, String, String?, String?, String?, String?).self
            ) {
                changes.append(
                    Change(
                        operation: Change.Operation(rawValue: op) ?? .reload,
                        version: version,
                        id: id,
                        item: item.flatMap { Item(objectJSON: Array($0.utf8), layout: layout) },
                        placement: section.map { Placement(section: $0, sectionAfter: sectionAfter, after: after) }
                    )
                )
            }
            return ChangeWindow(changes: changes, version: version)
        }
    }
}
