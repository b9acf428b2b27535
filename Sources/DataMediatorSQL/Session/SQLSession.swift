import DataMediator

/// A connection of a SQL store inside one transaction (or one read snapshot), as the rules
/// every SQL store shares use it: bound statements in, rows of neutral values out.
///
/// Each store implements it over its own connection (GRDB's `Database`, PostgresNIO's
/// connection) and converts values there; everything above it (statement text, change log,
/// writes, idempotency, locate and section counts) is written once in this module.
public protocol SQLSession {
    /// The store's flavour of SQL.
    var dialect: SQLDialect { get }

    /// The rows of a statement with `?` placeholders bound to `arguments`, each row's
    /// columns in order as stored (not yet shown as a field's declared type says).
    func rows(_ sql: String, _ arguments: [JSONValue]) async throws -> [[JSONValue]]

    /// Runs a statement with `?` placeholders bound to `arguments`, reading no rows.
    func execute(_ sql: String, _ arguments: [JSONValue]) async throws

    /// The item's refusal (``ConstraintRefusal``, its field named when the database names
    /// the column), when `error` (thrown by a statement of this session) is the store's
    /// refusal of a row's values: a constraint of the table, or (PostgreSQL) a value its
    /// column cannot hold; nil for any other error.
    func refusal(of error: any Error) -> DataMediatorError?

    /// Whether an error ends the transaction (PostgreSQL: every later statement fails until
    /// it rolls back, or back to a savepoint); SQLite's goes on.
    var errorsEndTheTransaction: Bool { get }

    /// Told once the transaction holds the store's version lock (``StoreVersion/lock(_:)``):
    /// from then on a lock wait of the transaction holds every other write of the store
    /// (PostgreSQL's session bounds such waits short, and its store runs a write ended so
    /// again, ``StoreVersion/underLockWait``); SQLite's single writer waits for no row.
    func tookVersionLock()

    /// How long the transaction waits for a row lock once it holds the version lock
    /// (``StoreVersion/underLockWait`` unless the store shortens it for a write that ran
    /// into a held row before).
    var underLockWait: String { get }

    /// Whether a write takes its item's row lock before the version lock (waiting for a row
    /// another program holds without holding the store's other writes), or after it, as a
    /// write's first run does: no queued write of the store then holds a row its triggers,
    /// foreign keys or cascades need (``StoreVersion/lock(_:reading:thenLocking:)``).
    var rowLockFirst: Bool { get }
}

extension SQLSession {
    /// None: no error is taken for a refusal of the row.
    public func refusal(of error: any Error) -> DataMediatorError? { nil }

    /// True: the safe assumption.
    public var errorsEndTheTransaction: Bool { true }

    /// Nothing to note.
    public func tookVersionLock() {}

    /// ``StoreVersion/underLockWait``.
    public var underLockWait: String { StoreVersion.underLockWait }

    /// True: the row first (SQLite's single writer takes no row lock at all).
    public var rowLockFirst: Bool { true }

    /// The first column of the statement's first row as a whole number (0 when there is
    /// no row or it is `NULL`): a count, a version.
    public func integer(_ sql: String, _ arguments: [JSONValue] = []) async throws -> Int64 {
        try await integers(sql, arguments).first ?? 0
    }

    /// The columns of the statement's first row as whole numbers, as ``integer(_:_:)``
    /// reads one (empty when there is no row): several counters read in one statement.
    public func integers(_ sql: String, _ arguments: [JSONValue] = []) async throws -> [Int64] {
        guard let row = try await rows(sql, arguments).first else { return [] }
        return row.map { value in
            switch value {
            case .integer(let whole): return whole
            case .number(let real): return Int64(exactly: real.rounded()) ?? 0
            case .bool(let flag): return flag ? 1 : 0
            default: return 0
            }
        }
    }

    /// The items a statement reads, each row's columns laid out by `layout` and shown as
    /// `types` says (one type per column, nil for a field shown as stored).
    public func items(
        _ sql: String,
        _ arguments: [JSONValue],
        layout: ItemLayout,
        types: [FieldType?]
    ) async throws -> [Item] {
        try await rows(sql, arguments).map { row in Item(row: row, layout: layout, types: types) }
    }
}

extension Item {
    /// The item a statement's row holds in its first columns, laid out by `layout` and
    /// shown as `types` says (one type per column, nil for a field shown as stored); the
    /// columns past them are left out.
    public init(row: [JSONValue], layout: ItemLayout, types: [FieldType?]) {
        var values: [JSONValue] = []
        values.reserveCapacity(types.count)
        for (index, value) in row.enumerated() where index < types.count {
            values.append(types[index].map { $0.present(value) } ?? value)
        }
        self.init(layout: layout, values: values)
    }
}

/// The transactions of a SQL store, in which the shared rules run their statements.
public protocol SQLTransactions: Sendable {
    /// Runs `body` in one read snapshot: everything it reads agrees.
    func read<Result: Sendable>(
        _ body: @escaping @Sendable (any SQLSession) async throws -> Result
    ) async throws -> Result

    /// Runs `body` in one write transaction, committed when it returns and rolled back when
    /// it throws; writes of the store run one at a time, and an answered write is durable.
    func write<Result: Sendable>(
        _ body: @escaping @Sendable (any SQLSession) async throws -> Result
    ) async throws -> Result

    /// Runs `body` in one write transaction with no deadline, for bulk work such as an
    /// import that reads its records as it goes; committed when it returns, rolled back
    /// when it throws.
    func bulkWrite<Result: Sendable>(_ body: (any SQLSession) async throws -> Result) async throws -> Result

    /// Runs `body`, a read of a few rows by index (no scan), in one read snapshot, the
    /// store's cheapest way: a store whose reads switch threads may run it on the calling
    /// thread, as it runs a page.
    func shortRead<Result: Sendable>(
        _ body: @escaping @Sendable (any SQLSession) async throws -> Result
    ) async throws -> Result

    /// Runs `body`'s reads on one connection outside a transaction, as cheaply as
    /// ``shortRead(_:)`` runs: each statement reads from a snapshot of its own, which
    /// saves a transaction's begin and end (two round trips on a server). `body` reads what
    /// must agree in one statement, or checks that its statements agree (the tables' stamp
    /// read again in each, say).
    func readStatements<Result: Sendable>(
        _ body: @escaping @Sendable (any SQLSession) async throws -> Result
    ) async throws -> Result

    /// Waits until the reads reach the store's `version` (a read replica behind its
    /// primary), and says how that went (``CatchUp``).
    func catchUp(to version: Int64) async throws -> CatchUp
}

extension SQLTransactions {
    /// ``CatchUp/notBehind``: the reads see every write at once (one server, or one file).
    public func catchUp(to version: Int64) async throws -> CatchUp { .notBehind }

    /// ``read(_:)``, for a store with no cheaper way.
    public func shortRead<Result: Sendable>(
        _ body: @escaping @Sendable (any SQLSession) async throws -> Result
    ) async throws -> Result {
        try await read(body)
    }

    /// ``shortRead(_:)``, for a store with no cheaper way: one snapshot agrees by itself.
    public func readStatements<Result: Sendable>(
        _ body: @escaping @Sendable (any SQLSession) async throws -> Result
    ) async throws -> Result {
        try await shortRead(body)
    }
}
