import DataMediator

/// The change log of a writable table list in a SQL store: one row per write and view,
/// written in the write's own transaction, so the log and the table never disagree.
///
/// It keeps the last `history` versions; ``ServiceTables/history`` holds, per list, the
/// version from which the log is complete (its floor).
public struct SQLChangeLog: ChangeLog {
    private let transactions: any SQLTransactions
    private let list: String
    /// The list's table, whose changes the service did not log (``OutsideWrites``) the
    /// feed answers as a `reload`.
    private let table: String
    private let history: Int
    private let layout: ItemLayout
    /// The declared type of each of the layout's fields (nil where none is declared).
    private let types: [FieldType?]
    /// The keys of the views' changes in the log.
    private let keys: LoggedViewKeys
    /// Per view name, what follows a binding in the key of its changes
    /// (``LoggedViewKeys/key(_:)``).
    private let keySuffixes: [String: String]
    /// The keys the list's views are registered by: a write logs a `reload` for every
    /// other key registered for the list.
    let registeredKeys: [String]

    /// The log of `list` over `table`, whose items have `columns` of `fieldTypes`, kept in
    /// the store of `transactions`.
    public init(
        transactions: any SQLTransactions,
        list: ListDefinition,
        table: String,
        columns: [String],
        fieldTypes: [String: FieldType] = [:]
    ) {
        self.transactions = transactions
        self.list = list.name
        self.table = table
        self.history = list.history
        self.layout = ItemLayout(columns)
        self.types = columns.map { fieldTypes[$0] }
        let keys = LoggedViewKeys(list: list, table: table, columns: columns)
        self.keys = keys
        self.keySuffixes = Dictionary(
            list.views.map { ($0.name, keys.suffix(of: $0)) },
            uniquingKeysWith: { a, _ in a }
        )
        self.registeredKeys = list.views.map(keys.registeredKey)
    }

    /// The key of the changes of the view or slice `binding` names in the log.
    private func key(of binding: String) -> String {
        binding + (keySuffixes[String(binding.prefix { $0 != "#" })] ?? "")
    }

    /// Registers the list's views (``LoggedViews/register(list:table:views:history:atStart:_:)``), so that the
    /// writes of replicas that serve the list otherwise log a `reload` for them.
    /// At start (`atStart`), a view whose definition changed since its key was last
    /// registered raises the store's version (``LoggedViews/Reshaped``); a renewal does not.
    public func register(atStart: Bool = false) async throws {
        try await transactions.write { [list, table, registeredKeys, history] session in
            try await LoggedViews.register(
                list: list,
                table: table,
                views: registeredKeys,
                history: history,
                atStart: atStart,
                session
            )
        }
    }

    /// What a write did to each view, for the log (written by
    /// ``record(_:bumping:readingStamp:_:)`` once the write has its version): the item
    /// after the write, and for a `delete`, a `move` or an `update` the item before it
    /// (`old`), which tells where it stood; with the table's stamp before the write
    /// (`stampBefore`) when the list's outlines follow its steps (``StampSteps``).
    func entry(
        id: String,
        item: Item?,
        old: Item?,
        changes: [String: ViewChange],
        stampBefore: Int64?
    ) -> ChangeLogEntry {
        func json(_ item: Item?) -> JSONValue {
            item.map { .string(String(decoding: $0.objectJSON(), as: UTF8.self)) } ?? .null
        }
        let rows = changes.sorted(by: { $0.key < $1.key }).map { view, change in
            let placement = change.placement
            return ChangeLogEntry.Row(
                view: key(of: view),
                values: [
                    .string(change.operation.rawValue), .string(id), Self.text(placement?.section),
                    Self.text(placement?.sectionAfter), Self.text(placement?.after),
                ]
            )
        }
        return ChangeLogEntry(
            list: list,
            table: table,
            history: Int64(history),
            rows: rows,
            item: json(item),
            old: json(old),
            stampBefore: stampBefore,
            ownKeys: registeredKeys
        )
    }

    /// Forgets a list's changes at or below a version (arguments: the list, then those of
    /// `bound`, the SQL term of the version): after every write once the list's history is
    /// full, served by the index `data_mediator_changes_age` on (list, version).
    static func trimSQL(through bound: String) -> String {
        "DELETE FROM \(ServiceTables.changes) WHERE list = ? AND version <= \(bound)"
    }

    /// ``trimSQL(through:)`` with the version a placeholder.
    static let trimSQL = trimSQL(through: "?")

    /// Up to `limit` changes of `view` after `since`, from one snapshot: those logged, and
    /// when the table changed otherwise after `since` (``OutsideWrites``), or a replica that
    /// serves the view otherwise wrote (``LoggedViews``), those logged before the first such
    /// change and then a `reload` at its version, which stands for the rest. Before the view
    /// was registered (its replicas' first start, or a change of its definition), the log
    /// may lack changes: a feed from there is one `reload`.
    public func changes(of view: View, since: Int64, limit: Int) async throws -> ChangeWindow {
        let key = keys.key(view)
        let registeredKey = keys.registeredKey(view)
        return try await transactions.read { [list, table, layout, types] session in
            // The version, the history's floor and the view's registration: one statement.
            let head = try await session.rows(
                "SELECT (\(StoreVersion.currentSQL(session.dialect))), "
                    + "(SELECT floor FROM \(ServiceTables.history) WHERE list = ?), \(LoggedViews.registeredAtSQL)",
                [.string(list), .string(list), .string(registeredKey)]
            )
            guard let row = head.first, row.count == 3, case .integer(let version) = row[0] else {
                throw DataMediatorError(.unavailable, "The store has no version row.")
            }
            try DataMediatorError.checkHistory(since: since, floor: row[1].integerValue ?? version, version: version)
            // A key not (or no longer) registered: complete from nowhere, so from the version now.
            let registered = row[2].integerValue ?? version
            if since < registered {
                let reload = Change(operation: .reload, version: registered, id: "", item: nil, placement: nil)
                return ChangeWindow(changes: limit > 0 ? [reload] : [], version: version)
            }
            // At most ``ChangeReadBudget/bytes`` of items, in whole versions: the statement
            // names the first version it leaves out (column 8; ``ChangeReadBudget/uncut``
            // when none).
            let rows = try await session.rows(
                ViewChangeReads.windowSQL(session.dialect),
                ViewChangeReads.windowArguments(list: list, keys: (key, registeredKey), since: since, limit: limit)
            )
            let isCut = (rows.first?[8].integerValue ?? ChangeReadBudget.uncut) != ChangeReadBudget.uncut
            var outside = try await OutsideWrites.firstVersion(of: table, after: since, session)
            // A `reload` a replica logged for a view it does not serve ends the feed as an
            // outside change does.
            if let first = rows.first(where: { $0[1].stringValue == Change.Operation.reload.rawValue }),
                let at = first[0].integerValue, outside <= since || at < outside
            {
                outside = at
            }
            let logged = outside > since ? rows.filter { ($0[0].integerValue ?? 0) < outside } : rows
            var changes = logged.map { row in
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
            // A `reload` stands for every change after it, those a cut read left out too.
            if outside > since, changes.count < limit {
                changes.append(Change(operation: .reload, version: outside, id: "", item: nil, placement: nil))
                return ChangeWindow(changes: changes, version: version)
            }
            return ChangeWindow(changes: changes, version: version, isCut: isCut)
        }
    }

    /// Restarts the list's change history at `version` (after a bulk load, which logs no
    /// changes item by item): a client holding older pages gets `410` and reloads.
    public static func restart(list: String, at version: Int64, _ session: any SQLSession) async throws {
        try await session.execute("DELETE FROM \(ServiceTables.changes) WHERE list = ?", [.string(list)])
        try await session.execute("DELETE FROM \(ChangeItems.table) WHERE list = ?", [.string(list)])
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
