import DataMediator
import DataMediatorSQL
import Logging
import PostgresNIO
import Synchronization

/// The names of the statements a store's reads and writes prepare, so that each connection
/// parses and plans a statement's SQL once and after that only binds and runs it.
///
/// A page's statement is planned anew on every page when it is sent unnamed, and planning
/// costs PostgreSQL more than running an indexed page does (docs/performance.md). PostgresNIO
/// prepares a named statement on a connection the first time it runs there and reuses it
/// after; the name is the statement's SQL and the types of its parameters (a value bound as
/// text and one bound as a number are not one statement). The names are kept for the SQL of
/// ``limit`` statements at most; a store that runs more runs the rest unnamed, so the
/// statements a connection holds stay bounded.
///
/// The names are given first come, and a client chooses some of a statement's text: a
/// page's limit is written into its SQL (``WindowQueries/limited(_:limit:)``), and a
/// write's columns are the fields its body names. So that one client cannot take every
/// name (about 500 pages with other `limit`s would have, and every statement first run
/// after them was planned on every run until a restart), the texts that differ only in
/// their limits take ``limitsPerFamily`` names at most, and writes half of ``limit``.
final class PreparedStatements: Sendable {
    /// The statement's SQL and the types its parameters are bound as (see
    /// ``DataMediator/JSONValue/bind(to:)``: one letter a value).
    private struct Key: Hashable {
        let sql: String
        let types: String

        init(_ sql: String, _ values: [JSONValue]) {
            self.sql = sql
            types = String(
                values.map { value -> Character in
                    switch value {
                    case .null: "n"
                    case .bool: "b"
                    case .integer: "i"
                    case .number: "d"
                    case .string, .array, .object: "t"
                    }
                }
            )
        }
    }

    /// A statement's name, and its SQL with PostgreSQL's numbered placeholders.
    struct Statement: Sendable {
        let name: String
        let text: String
    }

    private struct Names {
        var byKey: [Key: Statement] = [:]
        var next = 1
        /// How many names each family of texts that differ only in their limits holds.
        var families: [String: Int] = [:]
        /// How many names writes hold.
        var writes = 0
        /// Statements the server refused to prepare, run unnamed until `until`; `pause` is
        /// the rest that led there (``refused(_:binding:)``).
        var resting: [Key: (until: ContinuousClock.Instant, pause: Duration)] = [:]
    }

    private let names = Mutex(Names())
    /// Whether statements are prepared at all (a PgBouncer in transaction mode cannot keep a
    /// prepared statement across transactions).
    let enabled: Bool
    /// How many statements are prepared at most.
    let limit: Int

    /// No statement prepared: every one runs unnamed.
    static let none = PreparedStatements(enabled: false)

    /// The clock of the rests (``refused(_:binding:)``): the tests' own, which does not
    /// move while a loaded machine runs them slowly.
    private let now: @Sendable () -> ContinuousClock.Instant

    init(enabled: Bool, limit: Int = 512, now: @escaping @Sendable () -> ContinuousClock.Instant = { .now }) {
        self.enabled = enabled
        self.limit = limit
        self.now = now
    }

    /// The statement `sql` binding `values` is prepared as, or nil when it runs unnamed.
    func statement(of sql: String, binding values: [JSONValue]) -> Statement? {
        guard enabled else { return nil }
        let key = Key(sql, values)
        if let known = names.withLock({ $0.byKey[key] }) { return known }
        let text = SQL.numbered(sql)
        return names.withLock { names in
            if let known = names.byKey[key] { return known }
            if let rest = names.resting[key], now() < rest.until { return nil }
            guard names.byKey.count < limit else { return nil }
            let family = Self.family(of: sql)
            let write = Self.isWrite(sql)
            if let family, names.families[family, default: 0] >= Self.limitsPerFamily { return nil }
            if write, names.writes >= limit / 2 { return nil }
            let statement = Statement(name: "dm_statement_\(names.next)", text: text)
            names.next += 1
            names.byKey[key] = statement
            if let family { names.families[family, default: 0] += 1 }
            if write { names.writes += 1 }
            return statement
        }
    }

    /// The most names the texts that differ only in their limits take.
    static let limitsPerFamily = 8

    /// `sql` with each limit written in it (`LIMIT 51`) as `LIMIT #`: the family of texts
    /// that differ only there; nil for a text that writes no limit.
    static func family(of sql: String) -> String? {
        guard sql.contains("LIMIT ") else { return nil }
        var family = ""
        var rest = Substring(sql)
        var found = false
        while let range = rest.firstRange(of: "LIMIT ") {
            family += rest[..<range.upperBound]
            rest = rest[range.upperBound...]
            let digits = rest.prefix { $0.isASCII && $0.isNumber }
            if !digits.isEmpty {
                family += "#"
                rest = rest.dropFirst(digits.count)
                found = true
            }
        }
        return found ? family + rest : nil
    }

    /// Whether `sql` writes rows (its columns may be the fields a body names).
    static func isWrite(_ sql: String) -> Bool {
        ["INSERT ", "UPDATE ", "DELETE ", "WITH inserted "].contains { sql.hasPrefix($0) }
    }

    /// Drops the name of `key`, and its count in its family and among writes.
    private static func drop(_ key: Key, in names: inout Names) {
        guard names.byKey.removeValue(forKey: key) != nil else { return }
        if let family = family(of: key.sql) {
            names.families[family, default: 1] -= 1
            if names.families[family] == 0 { names.families[family] = nil }
        }
        if isWrite(key.sql) { names.writes -= 1 }
    }

    /// Forgets the name of `query`, so that it is prepared anew under another name: for a
    /// preparation that failed for a passing reason (a lock not granted in time, say), which
    /// PostgresNIO would otherwise answer for that name on that connection from then on.
    func forget(_ sql: String, binding values: [JSONValue]) {
        let key = Key(sql, values)
        names.withLock { names in Self.drop(key, in: &names) }
    }

    /// The longest a refused statement runs unnamed before it is prepared again.
    static let longestRest = Duration.seconds(60)

    /// Forgets the name of `sql` binding `values`, which the server refused to prepare
    /// (a table or column not there yet: a read replica that has not replayed it, a table
    /// being made again). PostgresNIO keeps a refusal for its name on each connection that
    /// met it and answers it from then on, however the database changes: the statement
    /// runs unnamed for a rest (1 s, doubled at each refusal soon after the last, up to
    /// ``longestRest``), then is prepared under a new name. The rest bounds the refusals
    /// each connection keeps while the cause lasts.
    func refused(_ sql: String, binding values: [JSONValue]) {
        let key = Key(sql, values)
        let now = now()
        names.withLock { names in
            Self.drop(key, in: &names)
            var pause = Duration.seconds(1)
            if let last = names.resting[key], now < last.until + last.pause * 2 {
                pause = min(last.pause * 2, Self.longestRest)
            }
            if names.resting.count >= limit { names.resting = names.resting.filter { now < $0.value.until } }
            names.resting[key] = (now + pause, pause)
        }
    }
}

/// A statement PostgresNIO prepares per connection under a name chosen at run time.
///
/// PostgresNIO takes a prepared statement's name and SQL from its type, which suits SQL
/// written in the source; a list's SQL is made from its config when the service starts.
/// The name and SQL of the one being run are therefore bound to the task for the call
/// (PostgresNIO reads them in the caller's task before the first suspension, and again
/// only to describe an error).
private struct NamedStatement: PostgresPreparedStatement {
    typealias Row = PostgresRow

    struct Text: Sendable {
        let name: String
        let sql: String
    }

    @TaskLocal static var text = Text(name: "", sql: "")

    static var name: String { text.name }
    static var sql: String { text.sql }

    let bindings: PostgresBindings

    func makeBindings() throws -> PostgresBindings { bindings }
    func decodeRow(_ row: PostgresRow) throws -> PostgresRow { row }
}

extension PostgresConnection {
    /// The rows of the statement `sql` (with `?` placeholders) binding `values`, prepared on this
    /// connection the first time it runs here when `statements` has a name for it, and sent
    /// unnamed otherwise.
    func rows(
        of sql: String,
        binding values: [JSONValue],
        preparedIn statements: PreparedStatements,
        logger: Logger
    ) async throws -> AsyncThrowingMapSequence<PostgresRowSequence, PostgresRow> {
        guard let statement = statements.statement(of: sql, binding: values) else {
            return try await self.query(PostgresQuery(sql: sql, values: values), logger: logger).map { $0 }
        }
        let bindings = PostgresBindings(values)
        do {
            return try await NamedStatement.$text.withValue(
                NamedStatement.Text(name: statement.name, sql: statement.text)
            ) {
                try await execute(NamedStatement(bindings: bindings), logger: logger)
            }
        } catch {
            if PostgresStore.isUnavailable(error) {
                statements.forget(sql, binding: values)
            } else if PostgresStore.isRefusedStatement(error) {
                statements.refused(sql, binding: values)
            }
            throw error
        }
    }
}
