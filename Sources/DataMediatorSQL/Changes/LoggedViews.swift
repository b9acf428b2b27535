import DataMediator
import Foundation

/// The views whose changes the replicas of a store log, each by its definition: replicas
/// of one store may serve a list with other views (during a rolling change of the config),
/// and a write logs its changes only in the views of the replica that makes it.
///
/// So the change log keys a view's changes by what places an item in it and picks its
/// slices (``LoggedViewKeys``): a replica reads only changes placed by its own definition.
/// Each replica registers its views' keys
/// (``register(list:table:views:history:_:)``), and every write logs a `reload` for each
/// registered key of a list over its table that is not one of its own
/// (``reloadSQL(version:count:)``, ``otherListsReloadSQL(version:count:)``): a feed of a
/// view that the writer does not serve, or serves otherwise, answers a reload rather than
/// nothing or places computed in another order. A view's changes are complete from the
/// version at which it was registered (``registeredAtSQL``); before it, a feed answers a
/// reload.
public enum LoggedViews {
    /// The table of registered views: per list and key, the list's table, the store's
    /// version when it was registered and when a replica serving it last said so (seconds
    /// since 1970).
    static let table = "data_mediator_logged_views"

    /// Per list, the `history`s that replicas serving it registered, each with when one
    /// last did: the log keeps the longest (``longestHistorySQL(_:)``).
    static let histories = "data_mediator_logged_histories"

    /// How long a key no replica registered again stays (seconds): replicas register
    /// theirs at start and then every ``renewal``, so one that is gone stops costing each
    /// write a `reload` row a day after.
    static let lifetime: Int64 = 86_400

    /// How often a serving replica registers its views again.
    public static let renewal: Duration = .seconds(3_600)

    /// The statement that creates the table when missing.
    static func schema(_ dialect: SQLDialect) -> [String] {
        [
            ServiceTables.keyedTable(
                table,
                [
                    ("list", \.text), ("view", \.text), ("source", \.text), ("registered_at", \.integer),
                    ("seen_at", \.integer),
                ],
                key: ["list", "view"],
                dialect
            ),
            ServiceTables.keyedTable(
                histories,
                [("list", \.text), ("history", \.integer), ("seen_at", \.integer)],
                key: ["list", "history"],
                dialect
            ),
        ]
    }

    /// Registers `views` (their ``LoggedViewKeys/registeredKey(_:)``s) for `list`, in a write that
    /// holds the store's version lock (``registerStatements(list:table:views:history:_:)``).
    static func register(
        list: String,
        table source: String,
        views keys: [String],
        history: Int,
        _ session: any SQLSession
    ) async throws {
        try await StoreVersion.lock(session)
        for statement in registerStatements(list: list, table: source, views: keys, history: history, session.dialect) {
            try await session.execute(statement.sql, statement.arguments)
        }
    }

    /// The statements that register `keys` for `list`, to run in a write that holds the
    /// store's version lock (SQLite's every write does): every write after it logs a
    /// `reload` for those its writer does not serve; a key new to the store is registered
    /// at the version now (a feed of it from before answers a reload). The list's `history`
    /// is registered beside them. They forget the keys and histories no replica registered
    /// for a ``lifetime``.
    static func registerStatements(
        list: String,
        table source: String,
        views keys: [String],
        history: Int,
        _ dialect: SQLDialect
    ) -> [(sql: String, arguments: [JSONValue])] {
        let now = Int64(Date().timeIntervalSince1970)
        let register = Set(keys).sorted().flatMap { key in
            [
                reshapedBump(list: list, table: source, key: key, dialect),
                (
                    """
                    INSERT INTO \(table) (list, view, source, registered_at, seen_at)
                    VALUES (?, ?, ?, (\(StoreVersion.currentSQL(dialect))), ?)
                    ON CONFLICT (list, view) DO UPDATE SET source = excluded.source, seen_at = excluded.seen_at
                    """,
                    [JSONValue.string(list), .string(key), .string(source), .integer(now)]
                ),
            ]
        }
        let kept = (
            """
            INSERT INTO \(histories) (list, history, seen_at) VALUES (?, ?, ?)
            ON CONFLICT (list, history) DO UPDATE SET seen_at = excluded.seen_at
            """,
            [JSONValue.string(list), .integer(Int64(history)), .integer(now)]
        )
        let forget = [table, histories].map {
            ("DELETE FROM \($0) WHERE seen_at < ?", [JSONValue.integer(now - lifetime)])
        }
        return register + [kept] + forget
    }

    /// The SQL term of the longest history a writer of a list keeps (arguments: its own,
    /// then the list): its own, or a longer one a replica serving the list registered with
    /// its views, so that no replica trims what another's clients may still ask for.
    static func longestHistorySQL(_ dialect: SQLDialect) -> String {
        let greatest = dialect == .sqlite ? "MAX" : "GREATEST"
        return "\(greatest)(?, (SELECT COALESCE(MAX(history), 0) FROM \(histories) WHERE list = ?))"
    }

    /// The statement that logs a `reload` at `version` (a SQL term) for each key registered
    /// for a list over a table but its writer's own `count` (arguments: the list, the
    /// table, then the writer's keys).
    static func reloadSQL(version: String, count: Int) -> String {
        let marks = Array(repeating: "?", count: max(1, count)).joined(separator: ", ")
        return insertReloads(version: version, where: "list = ? AND source = ? AND view NOT IN (\(marks))")
    }

    /// The statement that logs a `reload` at `version` (a SQL term) for each key registered
    /// for the lists over a table that its writer does not serve, `count` of them
    /// (arguments: the table, then the writer's lists over it): a list of another name in
    /// another config (one renamed, say) gets every write to its table too.
    static func otherListsReloadSQL(version: String, count: Int) -> String {
        let marks = Array(repeating: "?", count: max(1, count)).joined(separator: ", ")
        return insertReloads(version: version, where: "source = ? AND list NOT IN (\(marks))")
    }

    private static func insertReloads(version: String, where condition: String) -> String {
        """
        INSERT INTO \(ServiceTables.changes) (list, view, version, op, item_id)
        SELECT list, view, \(version), '\(Change.Operation.reload.rawValue)', '' FROM \(table)
        WHERE \(condition)
        ON CONFLICT (list, view, version) DO NOTHING
        """
    }

    /// The SQL term of the version at which a key was registered for a list (arguments:
    /// the list, then the key), NULL when it is not (any more): its changes are complete
    /// after it.
    /// The statement that raises the store's version by one before `key` is registered,
    /// when it is new and another key of its view is registered (the view's definition
    /// changed: its sort, sections, filter): registered at the version its pages were
    /// last read at, a feed resumed from there (`since` = that version, not before it)
    /// answered nothing, then changes placed by the new definition, with sections and
    /// neighbours the client does not hold (review 110 #2). Raised, that version is
    /// before the registration, and such a feed answers one `reload`. A view new to the
    /// list raises nothing: no page of it was read before.
    static func reshapedBump(
        list: String,
        table source: String,
        key: String,
        _ dialect: SQLDialect
    ) -> (sql: String, arguments: [JSONValue]) {
        // The view's name ends at its binding's `@` (``LoggedViewKeys/registeredKey(_:)``).
        let prefix = String(key.prefix { $0 != "@" }) + "@"
        let reshaped = """
            EXISTS (SELECT 1 FROM \(table) WHERE list = ? AND substr(view, 1, CAST(? AS integer)) = ? AND view <> ?)
                AND NOT EXISTS (SELECT 1 FROM \(table) WHERE list = ? AND view = ?)
            """
        let arguments: [JSONValue] = [
            .string(list), .integer(Int64(prefix.unicodeScalars.count)), .string(prefix), .string(key), .string(list),
            .string(key),
        ]
        switch dialect {
        case .sqlite:
            return (
                """
                UPDATE \(ServiceTables.versions)
                SET version = version + 1,
                    changed_at = (SELECT COALESCE(SUM(version), 0) FROM \(ServiceTables.versions)) + 1
                WHERE source = ? AND \(reshaped)
                """,
                [.string(source)] + arguments
            )
        case .postgres:
            return (
                """
                WITH bumped AS (UPDATE \(ServiceTables.store) SET version = version + 1 WHERE \(reshaped) RETURNING version)
                UPDATE \(ServiceTables.versions) SET changed_at = (SELECT version FROM bumped)
                WHERE source = ? AND EXISTS (SELECT 1 FROM bumped)
                """,
                arguments + [.string(source)]
            )
        }
    }

    static let registeredAtSQL = "(SELECT registered_at FROM \(table) WHERE list = ? AND view = ?)"
}
