import DataMediator

/// The change log of a writable table list in a SQL store: one row per write and view,
/// written in the write's own transaction, so the log and the table never disagree.
///
/// It keeps the last `history` versions; ``ServiceTables/history`` holds, per list, the
/// version from which the log is complete (its floor).
public struct SQLChangeLog: ChangeLog {
    private let transactions: any SQLTransactions
    private let list: String
    private let history: Int
    private let layout: ItemLayout
    /// The declared type of each of the layout's fields (nil where none is declared).
    private let types: [FieldType?]

    /// The log of `list`, whose items have `columns` of `fieldTypes`, kept in the store of
    /// `transactions`.
    public init(
        transactions: any SQLTransactions,
        list: ListDefinition,
        columns: [String],
        fieldTypes: [String: FieldType] = [:]
    ) {
        self.transactions = transactions
        self.list = list.name
        self.history = list.history
        self.layout = ItemLayout(columns)
        self.types = columns.map { fieldTypes[$0] }
    }

    /// Records what a write did to each view, in the write's transaction, and forgets what
    /// is older than the history: the item after the write, and for a `delete`, a `move` or
    /// an `update` the item before it (`old`), which tells where it stood; with the step the
    /// write made to the table's stamp (``StampSteps``), when the list's outlines follow it.
    public func append(
        version: Int64,
        id: String,
        item: Item?,
        old: Item?,
        changes: [String: ViewChange],
        stampStep: (before: Int64, after: Int64)? = nil,
        _ session: any SQLSession
    ) async throws {
        func json(_ item: Item?) -> JSONValue {
            item.map { .string(String(decoding: $0.objectJSON(), as: UTF8.self)) } ?? .null
        }
        let itemJSON = json(item)
        let oldJSON = json(old)
        // The changes to every view in one insert (the views are distinct, so no row is
        // written twice), and on PostgreSQL the insert, the stamp's step and the raise of
        // the floor in one statement: each statement is a round trip to a database server.
        let rows = changes.sorted(by: { $0.key < $1.key }).map { view, change in
            let placement = change.placement
            let keepsOld = change.operation != .insert
            return [
                JSONValue.string(list), .string(view), .integer(version), .string(change.operation.rawValue),
                .string(id), change.operation == .delete ? .null : itemJSON,
                Self.text(placement?.section), Self.text(placement?.sectionAfter), Self.text(placement?.after),
                keepsOld ? oldJSON : .null,
            ]
        }
        var writes: [(sql: String, arguments: [JSONValue])] = []
        if !rows.isEmpty {
            let values = Array(repeating: "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", count: rows.count).joined(separator: ", ")
            let insert = """
                INSERT INTO \(ServiceTables.changes)
                    (list, view, version, op, item_id, item, section, section_after, after, old_item)
                VALUES \(values)
                ON CONFLICT (list, view, version) DO UPDATE SET
                    op = excluded.op, item_id = excluded.item_id, item = excluded.item, section = excluded.section,
                    section_after = excluded.section_after, after = excluded.after, old_item = excluded.old_item
                """
            writes.append((insert, rows.flatMap { $0 }))
        }
        if let stampStep, stampStep.after != stampStep.before {
            let arguments = StampSteps.arguments(
                list: list,
                before: stampStep.before,
                after: stampStep.after,
                version: version
            )
            writes.append((StampSteps.recordSQL, arguments))
        }
        let keepFrom = version - Int64(history)
        // The floor only rises; the update finds nothing to do while it is at or past keepFrom.
        let raise = "UPDATE \(ServiceTables.history) SET floor = ? WHERE list = ? AND floor < ? RETURNING floor"
        let raiseArguments: [JSONValue] = [.integer(keepFrom), .string(list), .integer(keepFrom)]
        let forget: [JSONValue] = [.string(list), .integer(keepFrom)]
        guard session.dialect == .postgres else {
            for write in writes { try await session.execute(write.sql, write.arguments) }
            if try await !session.rows(raise, raiseArguments).isEmpty {
                try await session.execute(Self.trimSQL, forget)
                try await StampSteps.forget(list: list, through: keepFrom, session)
            }
            return
        }
        // Data-modifying WITH parts run whether or not the statement reads them; the trims
        // run when the floor rose (every write, once the history is full), in the same
        // statement: the rows they delete are older than any this write adds.
        let parts =
            writes.enumerated().map { "written_\($0.offset) AS (\($0.element.sql))" } + [
                "raised AS (\(raise))",
                "trimmed AS (\(Self.trimSQL) AND EXISTS (SELECT 1 FROM raised))",
                "forgotten AS (\(StampSteps.forgetSQL) AND EXISTS (SELECT 1 FROM raised))",
            ]
        try await session.execute(
            "WITH \(parts.joined(separator: ", ")) SELECT floor FROM raised",
            writes.flatMap(\.arguments) + raiseArguments + forget + forget
        )
    }

    /// Forgets a list's changes at or below a version (arguments: the list, the version):
    /// after every write once the list's history is full, served by the index
    /// `data_mediator_changes_age` on (list, version).
    static let trimSQL = "DELETE FROM \(ServiceTables.changes) WHERE list = ? AND version <= ?"

    /// Up to `limit` changes of `view` after `since`, from one snapshot.
    public func changes(of view: View, since: Int64, limit: Int) async throws -> ChangeWindow {
        try await transactions.read { [list, layout, types] session in
            let version = try await StoreVersion.current(session)
            let floors = try await session.rows(
                "SELECT floor FROM \(ServiceTables.history) WHERE list = ?",
                [.string(list)]
            )
            var floor = version
            if case .integer(let stored)? = floors.first?.first { floor = stored }
            try DataMediatorError.checkHistory(since: since, floor: floor, version: version)
            let rows = try await session.rows(
                """
                SELECT version, op, item_id, item, section, section_after, after, old_item
                FROM \(ServiceTables.changes)
                WHERE list = ? AND view = ? AND version > ?
                ORDER BY version LIMIT ?
                """,
                [.string(list), .string(view.binding), .integer(since), .integer(Int64(max(0, limit)))]
            )
            let changes = rows.map { row in
                let section = row[4].stringValue
                return Change(
                    operation: row[1].stringValue.flatMap(Change.Operation.init(rawValue:)) ?? .reload,
                    version: row[0].integerValue ?? 0,
                    id: row[2].stringValue ?? row[2].idString,
                    item: row[3].stringValue.flatMap { Item(objectJSON: Array($0.utf8), layout: layout, types: types) },
                    placement: section.map {
                        Placement(section: $0, sectionAfter: row[5].stringValue, after: row[6].stringValue)
                    },
                    old: row[7].stringValue.flatMap { Item(objectJSON: Array($0.utf8), layout: layout, types: types) }
                )
            }
            return ChangeWindow(changes: changes, version: version)
        }
    }

    /// Restarts the list's change history at `version` (after a bulk load, which logs no
    /// changes item by item): a client holding older pages gets `410` and reloads.
    public static func restart(list: String, at version: Int64, _ session: any SQLSession) async throws {
        try await session.execute("DELETE FROM \(ServiceTables.changes) WHERE list = ?", [.string(list)])
        try await StampSteps.forget(list: list, session)
        try await session.execute(
            """
            INSERT INTO \(ServiceTables.history) (list, floor) VALUES (?, ?)
            ON CONFLICT (list) DO UPDATE SET floor = excluded.floor
            """,
            [.string(list), .integer(version)]
        )
    }

    private static func text(_ value: String?) -> JSONValue {
        value.map { .string($0) } ?? .null
    }
}
