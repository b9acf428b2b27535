import DataMediator
import Foundation

/// The views whose changes the replicas of a store log, each by its definition: replicas
/// of one store may serve a list with other views (during a rolling change of the config),
/// and a write logs its changes only in the views of the replica that makes it.
///
/// So the change log keys a view's changes by what places an item in it and picks its
/// slices (``LoggedViewKeys``): a replica reads only changes placed by its own definition.
/// Each replica registers its views' keys
/// (``register(list:table:views:history:atStart:_:)``), and every write logs a `reload` for each
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
    /// holds the store's version lock (``registerStatements(list:table:views:history:atStart:_:)``).
    static func register(
        list: String,
        table source: String,
        views keys: [String],
        history: Int,
        atStart: Bool,
        _ session: any SQLSession
    ) async throws {
        try await StoreVersion.lock(session)
        let statements = registerStatements(
            list: list,
            table: source,
            views: keys,
            history: history,
            atStart: atStart,
            session.dialect
        )
        for statement in statements { try await session.execute(statement.sql, statement.arguments) }
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
        atStart: Bool,
        _ dialect: SQLDialect
    ) -> [(sql: String, arguments: [JSONValue])] {
        let now = Int64(Date().timeIntervalSince1970)
        let register = Set(keys).sorted().flatMap { key in
            let reshaped = Reshaped(list: list, key: key)
            // At start, a key registered again after another of its view was (a definition
            // rolled back) takes the version raised before it; a renewal keeps its version.
            let again =
                atStart
                ? ", registered_at = CASE WHEN \(reshaped.condition(against: table)) "
                    + "THEN excluded.registered_at ELSE \(table).registered_at END" : ""
            let insert = (
                """
                INSERT INTO \(table) (list, view, source, registered_at, seen_at)
                VALUES (?, ?, ?, (\(StoreVersion.currentSQL(dialect))), ?)
                ON CONFLICT (list, view) DO UPDATE SET source = excluded.source, seen_at = excluded.seen_at\(again)
                """,
                [JSONValue.string(list), .string(key), .string(source), .integer(now)]
                    + (atStart ? reshaped.arguments(registeredAt: nil) : [])
            )
            return atStart ? [reshaped.bump(table: source, dialect), insert] : [insert]
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
    static let registeredAtSQL = "(SELECT registered_at FROM \(table) WHERE list = ? AND view = ?)"
}

extension LoggedViews {
    /// A view's key registered at start while another key of the view was registered
    /// later, or never before (the view's definition changed: its sort, sections, filter;
    /// or changed back): the store's version is raised by one before it is registered
    /// there. Registered at the version its pages were last read at, a feed resumed from
    /// there (`since` = that version, not before it) answered nothing, then changes placed
    /// by the new definition, with sections and neighbours the client does not hold
    /// (review 110 #2, and review 114 #1 for a definition changed back). A view new to the
    /// list, or started again as it was, raises nothing.
    struct Reshaped {
        let list: String
        let key: String

        /// The view's keys begin with its name up to its binding's `@`
        /// (``LoggedViewKeys/registeredKey(_:)``).
        var prefix: String { String(key.prefix { $0 != "@" }) + "@" }

        /// Whether another key of the view was registered at `registeredAt` (a SQL term;
        /// the key's own registration when nil) or after it, with ``arguments(registeredAt:)``.
        func condition(against table: String, registeredAt: String? = nil) -> String {
            "EXISTS (SELECT 1 FROM \(table) AS other WHERE other.list = ? AND substr(other.view, 1, CAST(? AS integer)) = ? "
                + "AND other.view <> ? AND other.registered_at >= \(registeredAt ?? "\(table).registered_at"))"
        }

        /// The arguments of ``condition(against:registeredAt:)``, then those of `registeredAt`.
        func arguments(registeredAt: [JSONValue]?) -> [JSONValue] {
            [.string(list), .integer(Int64(prefix.unicodeScalars.count)), .string(prefix), .string(key)]
                + (registeredAt ?? [])
        }

        /// The statement that raises the store's version (marking `source` changed) when
        /// the key is not registered, or another key of the view was registered at or after it.
        func bump(table source: String, _ dialect: SQLDialect) -> (sql: String, arguments: [JSONValue]) {
            let own = "COALESCE((SELECT registered_at FROM \(LoggedViews.table) WHERE list = ? AND view = ?), -1)"
            let condition = condition(against: LoggedViews.table, registeredAt: own)
            let arguments = arguments(registeredAt: [.string(list), .string(key)])
            switch dialect {
            case .sqlite:
                return (
                    """
                    UPDATE \(ServiceTables.versions)
                    SET version = version + 1,
                        changed_at = (SELECT COALESCE(SUM(version), 0) FROM \(ServiceTables.versions)) + 1
                    WHERE source = ? AND \(condition)
                    """,
                    [.string(source)] + arguments
                )
            case .postgres:
                return (
                    """
                    WITH bumped AS (UPDATE \(ServiceTables.store) SET version = version + 1 WHERE \(condition) RETURNING version)
                    UPDATE \(ServiceTables.versions) SET changed_at = (SELECT version FROM bumped)
                    WHERE source = ? AND EXISTS (SELECT 1 FROM bumped)
                    """,
                    arguments + [.string(source)]
                )
            }
        }
    }
}
