import DataMediator
import DataMediatorSQL
import Logging
import PostgresNIO

extension PostgresStore {
    /// The kind of a time column's type, nil for another type.
    static func timeKind(_ type: PostgresDataType) -> TimeText.Kind? {
        switch type {
        case .timestamptz: return .timestamptz
        case .timestamp: return .timestamp
        case .date: return .date
        case .time: return .time
        default: return nil
        }
    }

    /// The kinds of time of the arrays of times.
    private static let timeArrayKinds: [PostgresDataType: TimeText.Kind] = [
        .timestamptzArray: .timestamptz, .timestampArray: .timestamp, .dateArray: .date, .timeArray: .time,
    ]

    /// The text forms (``DataMediatorSQL/KeysetSQL/textForms``) of `list`'s time, enum and
    /// `char(n)` columns: a time keeping the fractional digits its column declares
    /// (`modifiers`, a table's or a query's), an enum (`enums`: its columns' types' names)
    /// as its label, a `char(n)` without the blanks that pad it.
    ///
    /// - Throws: `StoreError` naming every such column that is the list's id (ids are
    ///   compared and addressed exactly, by their stored type) or whose field is declared
    ///   another type than string (both are written and shown as text).
    static func textForms(
        of list: ListDefinition,
        source: StoreSource,
        types: [String: PostgresDataType],
        modifiers: [String: Int32],
        enums: [String: String]
    ) throws -> [String: String] {
        var forms: [String: String] = [:]
        var misfits: [String] = []
        for (column, type) in types.sorted(by: { $0.key < $1.key }) {
            if type == .bpchar {
                // `char(n)` pads its text with blanks that PostgreSQL's comparisons ignore
                // ('a' = 'a   '); read as such text, a cursor's value (padded) and the
                // rows' order disagreed. Its cast to text drops them (and is IMMUTABLE).
                forms[column] = "CAST(\(SQL.quote(column)) AS text)"
                continue
            }
            let kind: String
            if let time = timeKind(type) {
                kind = time.rawValue
                forms[column] = TimeText.form(
                    of: column,
                    kind: time,
                    digits: TimeText.digits(typeModifier: modifiers[column])
                )
            } else if let name = enums[column] {
                kind = "\(name) (an enum)"
                forms[column] = EnumText.form(of: column)
            } else {
                continue
            }
            if column == list.idField {
                misfits.append("the id column '\(column)' is a \(kind): an id is an integer, text or a uuid")
            } else if let declared = source.fieldTypes[column], declared != .string {
                misfits.append(
                    "field '\(column)' is declared \(declared.rawValue) but its column is a \(kind), "
                        + "which the service shows as text: declare it string"
                )
            }
        }
        if !misfits.isEmpty { throw StoreError(list: list.name, misfits.joined(separator: "; ")) }
        return forms
    }

    /// The enum and array types among `types` (those the store has no kind for), each
    /// column's type's name as a cast spells it.
    static func namedTypes(
        _ types: [String: PostgresDataType],
        _ connection: PostgresConnection,
        logger: Logger
    ) async throws -> (enums: [String: String], arrays: [String: String]) {
        let unknown = Set(types.values.filter { PostgresColumnKind($0) == nil }.map(\.rawValue))
        if unknown.isEmpty { return ([:], [:]) }
        // Type ids are numbers: written into the statement.
        let rows = try await connection.query(
            PostgresQuery(
                // `character[]` is an array of `character(1)` and `bit[]` of `bit(1)`: a cast to
                // them cut each element to its first character or bit, where `bpchar[]` and
                // `varbit[]` keep them whole for the column's own type.
                unsafeSQL: "SELECT CAST(oid AS bigint), typtype = 'e', "
                    + "CASE WHEN oid = CAST('bpchar[]' AS regtype) THEN 'bpchar[]' "
                    + "WHEN oid = CAST('bit[]' AS regtype) THEN 'varbit[]' ELSE format_type(oid, NULL) END "
                    + "FROM pg_type "
                    + "WHERE (typtype = 'e' OR typcategory = 'A') "
                    + "AND oid IN (\(unknown.map(String.init).joined(separator: ", ")))"
            ),
            logger: logger
        )
        var enums: [UInt32: String] = [:]
        var arrays: [UInt32: String] = [:]
        for try await (oid, isEnum, name) in rows.decode((Int64, Bool, String).self) {
            if isEnum { enums[UInt32(oid)] = name } else { arrays[UInt32(oid)] = name }
        }
        return (types.compactMapValues { enums[$0.rawValue] }, types.compactMapValues { arrays[$0.rawValue] })
    }

    /// How `list`'s array columns (`arrays`: their types' names) are read and written: as
    /// the JSON array of their elements (`to_json`), and from one (its elements cast to the
    /// array's type, an array of arrays as one of two dimensions; JSON `null` is `NULL`, a
    /// JSON value that is no array of such elements a value the column cannot hold). An
    /// array of times (`types`: the columns' types) shows and checks each element as a time
    /// column of its kind does (``TimeText``), keeping the fractional digits its column
    /// declares (`modifiers`).
    ///
    /// - Throws: `StoreError` naming every array column whose field is declared another
    ///   type than json.
    static func arrayForms(
        of list: ListDefinition,
        source: StoreSource,
        arrays: [String: String],
        types: [String: PostgresDataType],
        modifiers: [String: Int32]
    ) throws -> (read: [String: String], write: [String: String]) {
        var read: [String: String] = [:]
        var write: [String: String] = [:]
        var misfits: [String] = []
        for (column, type) in arrays.sorted(by: { $0.key < $1.key }) {
            if let declared = source.fieldTypes[column], declared != .json {
                misfits.append(
                    "field '\(column)' is declared \(declared.rawValue) but its column is an array (\(type)), "
                        + "which the service shows as a JSON array: declare it json"
                )
                continue
            }
            let times = types[column].flatMap { Self.timeArrayKinds[$0] }
            let digits = TimeText.digits(typeModifier: modifiers[column])
            // A `char(n)` element without the blanks that pad it, as a `char(n)` column shows.
            let shown = type == "bpchar[]" ? "CAST(\(SQL.quote(column)) AS text[])" : SQL.quote(column)
            read[column] =
                times.map { TimeText.arrayForm(of: column, kind: $0, digits: digits) }
                ?? "CAST(to_json(\(shown)) AS text)"
            // An element of times is checked as a time column is, naming its place (n in its
            // row, m its row's) when refused.
            func element(place: String) -> String {
                times.map { TimeText.written(column, kind: $0, digits: digits, given: "e", place: place) } ?? "e"
            }
            // Two dimensions when the first element is an array (``ColumnRule`` let through
            // only rows all as long): an array of the rows' arrays.
            write[column] = """
                (SELECT CASE WHEN j IS NULL THEN NULL \
                WHEN json_typeof(j -> 0) = 'array' THEN CAST(ARRAY(SELECT ARRAY(SELECT \
                \(element(place: "(m - 1) || ', ' || (n - 1)")) \
                FROM json_array_elements_text(r) WITH ORDINALITY AS t(e, n) ORDER BY n) \
                FROM json_array_elements(j) WITH ORDINALITY AS u(r, m) ORDER BY m) AS \(type)) \
                ELSE CAST(ARRAY(SELECT \(element(place: "CAST(n - 1 AS text)")) FROM json_array_elements_text(j) \
                WITH ORDINALITY AS t(e, n) ORDER BY n) AS \(type)) END FROM (SELECT CAST(? AS json) AS j) AS v)
                """
        }
        if !misfits.isEmpty { throw StoreError(list: list.name, misfits.joined(separator: "; ")) }
        return (read, write)
    }

    /// The type modifier of each column a query reads (`from`, a subquery with its alias), as
    /// a temporary view of it tells them (a query's result does not): empty when no view can
    /// be made of it (the probe is undone, the transaction goes on).
    static func typeModifiers(
        ofQuery from: String,
        _ session: PostgresSession,
        logger: Logger
    ) async throws -> [String: Int32] {
        let probe = "data_mediator_probe"
        try await session.execute("SAVEPOINT \(probe)", [])
        do {
            try await session.execute("CREATE TEMPORARY VIEW \(probe) AS SELECT * FROM \(from)", [])
            let modifiers = try await typeModifiers(of: probe, session.connection, logger: logger)
            try await session.execute("ROLLBACK TO SAVEPOINT \(probe)", [])
            return modifiers
        } catch {
            try await session.execute("ROLLBACK TO SAVEPOINT \(probe)", [])
            return [:]
        }
    }

    /// The type modifier of each column of `table` (`atttypmod`: a time's fractional digits).
    static func typeModifiers(
        of table: String,
        _ connection: PostgresConnection,
        logger: Logger
    ) async throws -> [String: Int32] {
        let rows = try await connection.query(
            """
            SELECT attname::text, atttypmod FROM pg_attribute
            WHERE attrelid = to_regclass(\(SQL.quote(table))) AND attnum > 0 AND NOT attisdropped
            """,
            logger: logger
        )
        var modifiers: [String: Int32] = [:]
        for try await (name, modifier) in rows.decode((String, Int32).self) { modifiers[name] = modifier }
        return modifiers
    }
}
