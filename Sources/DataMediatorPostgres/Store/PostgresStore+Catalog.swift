import DataMediator
import DataMediatorSQL
import Foundation
import Logging
import PostgresNIO

extension PostgresStore {
    /// What the database holds under `table` as the store's search path finds it
    /// (``TableSchema/Relation``): a view, a materialized view, a foreign table or a
    /// sequence takes no triggers or indexes, and PostgreSQL's own catalog is not a list's.
    static func relation(
        _ table: String,
        _ connection: PostgresConnection,
        logger: Logger
    ) async throws -> TableSchema.Relation {
        let rows = try await connection.query(
            """
            SELECT c.relkind::text, n.nspname::text FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
            WHERE c.oid = to_regclass(\(SQL.quote(table)))
            """,
            logger: logger
        )
        for try await (kind, schema) in rows.decode((String, String).self) {
            if schema == "pg_catalog" || schema == "information_schema" || schema.hasPrefix("pg_toast") {
                return .other("PostgreSQL's own catalog")
            }
            let kinds = [
                "r": "table", "p": "table", "v": "a view", "m": "a materialized view", "f": "a foreign table",
                "S": "a sequence", "i": "an index", "I": "an index", "c": "a composite type",
            ]
            let what = kinds[kind] ?? "a relation of kind '\(kind)'"
            return what == "table" ? .table : .other(what)
        }
        return .missing
    }

    /// The columns of a table or subquery and their types, from a read of no rows.
    static func columnTypes(
        of from: String,
        _ connection: PostgresConnection,
        logger: Logger
    ) async throws
        -> [String: PostgresDataType]
    {
        let rows = try await connection.query(
            PostgresQuery(unsafeSQL: "SELECT * FROM \(from) LIMIT 0"),
            logger: logger
        )
        var types: [String: PostgresDataType] = [:]
        for column in rows.columns { types[column.name] = column.dataType }
        for try await _ in rows {}
        return types
    }

    /// Those of `rights` the database user lacks on `table` (one `has_table_privilege` each:
    /// given several, it is true when any is held), and ``SourceCheck/owner`` last when
    /// `owning` and the user is not the table's owner (nor a member of its role).
    static func withheldRights(
        _ rights: [String],
        owning: Bool = false,
        on table: String,
        _ connection: PostgresConnection,
        logger: Logger
    ) async throws -> [String] {
        let query: PostgresQuery = """
            SELECT granted.name FROM unnest(\(rights)::text[]) WITH ORDINALITY AS granted(name, place)
            WHERE NOT has_table_privilege(\(SQL.quote(table)), granted.name)
            UNION ALL SELECT \(SourceCheck.owner) FROM pg_class WHERE \(owning)
            AND oid = to_regclass(\(SQL.quote(table))) AND NOT pg_has_role(relowner, 'USAGE')
            """
        var withheld: [String] = []
        for try await right in try await connection.query(query, logger: logger).decode(String.self) {
            withheld.append(right)
        }
        return withheld
    }

    static func notNullColumns(
        of table: String,
        _ connection: PostgresConnection,
        logger: Logger
    ) async throws
        -> Set<String>
    {
        let rows = try await connection.query(
            """
            SELECT attname::text FROM pg_attribute
            WHERE attrelid = to_regclass(\(SQL.quote(table))) AND attnum > 0 AND NOT attisdropped AND attnotnull
            """,
            logger: logger
        )
        var names: Set<String> = []
        for try await name in rows.decode(String.self) { names.insert(name) }
        return names
    }

    /// The sequence `column` of `table` draws from (a `serial` column's, an identity
    /// column's), nil for none.
    static func idSequence(
        of table: String,
        column: String,
        _ connection: PostgresConnection,
        logger: Logger
    ) async throws -> IDSequence? {
        let rows = try await connection.query(
            """
            SELECT pg_get_serial_sequence(\(SQL.quote(table)), \(column)),
                COALESCE((SELECT attidentity::text FROM pg_attribute
                    WHERE attrelid = to_regclass(\(SQL.quote(table))) AND attname = \(column)), '')
            """,
            logger: logger
        )
        for try await (name, identity) in rows.decode((String?, String).self) {
            return name.map { IDSequence(name: $0, always: identity == "a") }
        }
        return nil
    }

    /// Refuses a table whose id column is not unique (no unique index or constraint on it
    /// alone, partial ones aside): its items would repeat in every walk, and an id would
    /// name several. A view is not checked: it has no keys to tell.
    ///
    /// - Throws: `StoreError` naming the column and the way out.
    static func checkUniqueID(
        _ list: ListDefinition,
        table: String,
        _ connection: PostgresConnection,
        logger: Logger
    ) async throws {
        let column = list.idField
        let rows = try await connection.query(
            """
            SELECT c.relkind IN ('r', 'p'), EXISTS (SELECT 1 FROM pg_index AS i
                JOIN pg_attribute AS a ON a.attrelid = i.indrelid AND a.attnum = i.indkey[0]
                WHERE i.indrelid = c.oid AND i.indisunique AND i.indnkeyatts = 1 AND i.indpred IS NULL
                AND a.attname = \(column))
            FROM pg_class AS c WHERE c.oid = to_regclass(\(SQL.quote(table)))
            """,
            logger: logger
        )
        for try await (isTable, isUnique) in rows.decode((Bool, Bool).self) where isTable && !isUnique {
            throw StoreError(
                list: list.name,
                "its id column '\(column)' is not unique in table '\(table)' (no primary key or unique index "
                    + "on it alone): declare a unique column as the id, or add a unique index on it "
                    + "(CREATE UNIQUE INDEX ON \(SQL.quote(table)) (\(SQL.quote(column))))"
            )
        }
    }

    /// The columns of `table` whose type is a domain, with the domain's name as PostgreSQL's
    /// messages give it (`format_type`): a row's description gives the domain's base type.
    /// A domain's type modifier (`varchar(4)`'s) is the domain's, not the column's: it is
    /// put in `modifiers` for the columns that have none of their own.
    static func domains(
        of table: String,
        modifiers: inout [String: Int32],
        _ connection: PostgresConnection,
        logger: Logger
    ) async throws -> [String: String] {
        let rows = try await connection.query(
            """
            SELECT a.attname::text, format_type(a.atttypid, NULL), t.typtypmod FROM pg_attribute AS a
            JOIN pg_type AS t ON t.oid = a.atttypid
            WHERE a.attrelid = to_regclass(\(SQL.quote(table))) AND a.attnum > 0 AND NOT a.attisdropped
            AND t.typtype = 'd'
            """,
            logger: logger
        )
        var domains: [String: String] = [:]
        for try await (column, name, modifier) in rows.decode((String, String, Int32).self) {
            domains[column] = name
            if (modifiers[column] ?? -1) < 0 { modifiers[column] = modifier }
        }
        return domains
    }

    /// A number bound for a `numeric` column, written or compared: through its shortest
    /// text (PostgreSQL's cast of a double keeps 15 significant digits; compared as a
    /// double, the column is read as one and no index serves the comparison).
    static let numericValue = "CAST(CAST(? AS text) AS numeric)"

    /// The largest whole number a column of `type` holds: an id column's (a `smallint`'s
    /// and an `integer`'s are less than 64 bits').
    static func largestValue(of type: PostgresDataType?) -> Int64 {
        switch type {
        case .int2: return Int64(Int16.max)
        case .int4: return Int64(Int32.max)
        default: return .max
        }
    }

    /// The rules (``ColumnRule``) of the columns among `types` that hold less than their
    /// fields' types say: arrays (`arrays`' columns, with their elements' rules), `smallint`
    /// and `integer`, `real`, `uuid`, `numeric(p, s)`, and `varchar(n)` and `char(n)` (`modifiers`:
    /// their type modifiers, which an array column's elements share), and the domains'
    /// columns (`domains`: their domains' names).
    static func columnRules(
        types: [String: PostgresDataType],
        modifiers: [String: Int32],
        arrays: [String: String],
        domains: [String: String] = [:]
    ) -> [String: ColumnRule] {
        var rules: [String: ColumnRule] = [:]
        for (column, type) in types {
            if arrays[column] != nil {
                let element = elementTypes[type].flatMap { rule(of: $0, modifier: modifiers[column], suffix: "[]") }
                rules[column] = .array(of: element)
            } else if let rule = rule(of: type, modifier: modifiers[column]) {
                rules[column] = rule
            }
        }
        for column in arrays.keys where rules[column] == nil { rules[column] = .array(of: nil) }
        for (column, domain) in domains { rules[column] = .domain(domain, base: rules[column]) }
        return rules
    }

    /// The element types of the array types whose elements have a rule.
    private static let elementTypes: [PostgresDataType: PostgresDataType] = [
        .int2Array: .int2, .int4Array: .int4, .uuidArray: .uuid, .numericArray: .numeric, .varcharArray: .varchar,
        .bpcharArray: .bpchar, .float4Array: .float4,
    ]

    /// The rule of a value of `type` with type modifier `modifier` (n + 4 for `varchar(n)`,
    /// (precision << 16 | scale) + 4 for `numeric`; -1 or nil: none), its type named with
    /// `suffix` (`[]` for an array's element); nil when the type needs none.
    private static func rule(of type: PostgresDataType, modifier: Int32?, suffix: String = "") -> ColumnRule? {
        switch type {
        case .int2: return .wholeNumbers(Int64(Int16.min)...Int64(Int16.max), type: "smallint" + suffix)
        case .int4: return .wholeNumbers(Int64(Int32.min)...Int64(Int32.max), type: "integer" + suffix)
        case .uuid: return .uuid
        case .float4: return .real32(type: "real" + suffix)
        case .numeric:
            guard let modifier, modifier >= 4 else { return nil }
            let (precision, scale) = (Int((modifier - 4) >> 16) & 0xFFFF, Int(modifier - 4) & 0xFFFF)
            guard scale <= precision else { return nil }
            return .below(digits: precision - scale, scale: scale, type: "numeric(\(precision), \(scale))" + suffix)
        case .varchar, .bpchar:
            guard let modifier, modifier > 4 else { return nil }
            let name = type == .varchar ? "varchar" : "char"
            return .characters(Int(modifier) - 4, type: "\(name)(\(modifier - 4))" + suffix)
        default: return nil
        }
    }

    /// An error of a command's work on the store, for its message: the server's words, how
    /// the connection failed, or the service's own (`"\(error)"` of PostgresNIO's error
    /// says only that it hides its details).
    public static func reason(of error: any Error) -> String {
        guard let error = error as? PSQLError else {
            return (error as? DataMediatorError)?.message ?? "\(error)"
        }
        if let message = error.serverInfo?[.message] { return "the database said: \(message)" }
        return "the connection to the database failed (\(error.code))"
    }

    /// A database error as one line: PostgreSQL's own message when there is one.
    static func describe(_ error: any Error) -> String {
        if let error = error as? PSQLError {
            if let message = error.serverInfo?[.message] { return message }
            return "\(error.code)"
        }
        return "\(error)"
    }
}
