import DataMediator
import DataMediatorSQL
import Foundation
import Logging
import PostgresNIO

/// The store's lists: each list's source checked and prepared, its provider and adapter.
extension PostgresStore {
    /// Checks a list's source against the database (creating a missing table and each
    /// view's index) and returns its provider.
    ///
    /// - Throws: `StoreError` naming the missing table, column or the failing query.
    public func provider(for list: ListDefinition, source: StoreSource) async throws -> PostgresDataProvider {
        let schema = TableSchema(list: list, source: source, dialect: .postgres)
        do {
            return try await changeSchema { connection in
                var added: [String: Set<String>] = [:]
                return try await self.prepare(
                    list,
                    source: source,
                    schema: schema,
                    connection,
                    rehearsal: false,
                    added: &added
                )
            }
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError(list: list.name, Self.describe(error))
        }
    }

    /// Checks each list's source as ``provider(for:source:)`` does (a missing table made, a
    /// missing revision column added, each view's window run once), in the given order, in
    /// one transaction that is rolled back: a config refused for one list leaves nothing
    /// made for the others, and a query list reads a table an earlier list makes. The
    /// indexes are not built. Returns what is wrong, a `StoreError` for each list refused
    /// (as ``provider(for:source:)`` and
    /// ``DataMediatorSQL/SQLListAssembly/writes(for:source:reader:tableWriters:)`` refuse).
    ///
    /// With `serviceTables`, the service's own tables and functions are made first in the
    /// same transaction (rolled back too), for a database ``prepare()`` never saw
    /// (``check(_:bounded:)``). `bounded` keeps the session's statement and lock bounds.
    ///
    /// - Throws: when the database cannot be reached.
    public func rehearse(
        _ lists: [(list: ListDefinition, source: StoreSource)],
        serviceTables: Bool = false,
        bounded: Bool = false
    ) async throws -> [StoreError] {
        do {
            try await changeSchema(bounded: bounded) { connection in
                // Only where they are missing: on a served database their statements would
                // lock the service's tables (`ALTER TABLE ... IF NOT EXISTS` takes its lock
                // first) for the whole rehearsal.
                if serviceTables, try await !Self.serviceTableProblems(connection, logger: self.logger).missing.isEmpty
                {
                    for statement in ServiceTables.schema(.postgres) {
                        try await connection.query(PostgresQuery(unsafeSQL: statement), logger: self.logger)
                    }
                }
                var problems: [StoreError] = []
                // The columns the rehearsal added to each table (rolled back at its end).
                var added: [String: Set<String>] = [:]
                for (list, source) in lists {
                    let addedBefore = added
                    do {
                        _ = try source.writeTarget(of: list)
                        let schema = TableSchema(list: list, source: source, dialect: .postgres)
                        // A failed statement ends the transaction's work: a list refused is
                        // rolled back to before it, and the next list goes on.
                        try await connection.query("SAVEPOINT data_mediator_list", logger: self.logger)
                        do {
                            _ = try await self.prepare(
                                list,
                                source: source,
                                schema: schema,
                                connection,
                                rehearsal: true,
                                added: &added
                            )
                        } catch {
                            added = addedBefore
                            try await connection.query("ROLLBACK TO SAVEPOINT data_mediator_list", logger: self.logger)
                            throw error
                        }
                    } catch let error as StoreError {
                        problems.append(error)
                    } catch let error as PSQLError where error.code == .server {
                        problems.append(StoreError(list: list.name, Self.describe(error)))
                    }
                }
                throw Rehearsed(problems: problems)
            }
        } catch let rehearsed as Rehearsed {
            return rehearsed.problems
        }
        return []
    }

    /// Checks each list as ``rehearse(_:serviceTables:bounded:)`` does, on a database this
    /// service may never have served, for `check --store` and for `serve` before it makes
    /// the service's own tables: nothing is left made in it, not even those. `bounded` as
    /// there: a check beside a serving service gives up on a table another program holds
    /// locked, where a start waits (for another replica's start, say).
    ///
    /// - Throws: `StoreError` saying why the database cannot be reached.
    public func check(
        _ lists: [(list: ListDefinition, source: StoreSource)],
        bounded: Bool = true
    ) async throws -> [StoreError] {
        if let failure = await lastingConnectionFailure() { throw StoreError(list: nil, failure) }
        do {
            return try await rehearse(lists, serviceTables: true, bounded: bounded)
        } catch let error as StoreError {
            throw error
        } catch {
            if let failure = await connectionFailure() { throw StoreError(list: nil, failure) }
            throw StoreError(list: nil, "cannot check the lists against the PostgreSQL store: \(Self.describe(error))")
        }
    }

    /// Reads a query list's first row in a read-only savepoint, rolled back: a query that
    /// calls a function that writes (which no look at its text can tell) is refused at start,
    /// rather than answering `500` to every read (reads run read-only, so it writes nothing
    /// then either).
    private func checkReadsOnly(_ list: ListDefinition, from: String, _ connection: PostgresConnection) async throws {
        try await connection.query("SAVEPOINT data_mediator_reads_only", logger: logger)
        do {
            try await connection.query("SET LOCAL transaction_read_only = on", logger: logger)
            let rows = try await connection.query(
                PostgresQuery(unsafeSQL: "SELECT * FROM \(from) LIMIT 1"),
                logger: logger
            )
            for try await _ in rows {}
        } catch {
            try await connection.query("ROLLBACK TO SAVEPOINT data_mediator_reads_only", logger: logger)
            if let error = error as? PSQLError, error.serverInfo?[.sqlState] == "25006" {
                throw StoreError(
                    list: list.name,
                    "its query writes (\(error.serverInfo?[.message] ?? "a statement that writes")); a query list "
                        + "only reads: call no function that writes"
                )
            }
            throw StoreError(list: list.name, "its query does not run: \(Self.describe(error))")
        }
        try await connection.query("ROLLBACK TO SAVEPOINT data_mediator_reads_only", logger: logger)
    }

    /// Thrown at the end of a rehearsal, so that its transaction is rolled back.
    private struct Rehearsed: Error {
        let problems: [StoreError]
    }

    /// Checks a list's source on `connection` and prepares it (unless `rehearsal`: the
    /// service's triggers, version rows and indexes are left out), returning its provider.
    /// `added` holds the columns this transaction added to each table (a revision column),
    /// which a refusal does not name among those the table has.
    private func prepare(
        _ list: ListDefinition,
        source: StoreSource,
        schema: TableSchema,
        _ connection: PostgresConnection,
        rehearsal: Bool,
        added: inout [String: Set<String>]
    ) async throws -> PostgresDataProvider {
        let session = PostgresSession(connection: connection, logger: self.logger)
        var relations: [String: TableSchema.Relation] = [:]
        var tables = source.versionTables
        if case .table(let table) = source.kind { tables.append(table) }
        for table in tables where relations[table] == nil {
            relations[table] = try await Self.relation(table, connection, logger: self.logger)
        }
        try schema.checkTables { relations[$0] ?? .missing }
        var notNull: Set<String> = []
        var modifiers: [String: Int32] = [:]
        var domains: [String: String] = [:]
        var idSequence: IDSequence?
        var addedHere: Set<String> = []
        if case .table(let table) = source.kind {
            if relations[table] == .missing {
                try await session.execute(schema.createTable(table), [])
            }
            // Before the table is read: a right withheld is named, not PostgreSQL's
            // "permission denied" for whatever statement meets it first.
            let withheld = try await Self.withheldRights(
                SourceCheck.startRights(writable: list.isWritable),
                owning: true,
                on: table,
                connection,
                logger: self.logger
            )
            if !withheld.isEmpty { throw StoreError(list: list.name, SourceCheck.withheld(withheld, table: table)) }
            if let revision = list.revisionField, let statement = schema.addRevisionColumn(to: table),
                try await !Self.columnTypes(of: SQL.quote(table), connection, logger: self.logger).keys
                    .contains(revision)
            {
                try await session.execute(statement, [])
                added[table, default: []].insert(revision)
            }
            addedHere = added[table] ?? []
            try await Self.checkUniqueID(list, table: table, connection, logger: self.logger)
            notNull = try await Self.notNullColumns(of: table, connection, logger: self.logger)
            modifiers = try await Self.typeModifiers(of: table, connection, logger: self.logger)
            domains = try await Self.domains(of: table, modifiers: &modifiers, connection, logger: self.logger)
            idSequence = try await Self.idSequence(
                of: table,
                column: list.idField,
                connection,
                logger: self.logger
            )
        }
        try schema.checkQueryPlaceholders()
        let types: [String: PostgresDataType]
        do {
            types = try await Self.columnTypes(of: schema.from, connection, logger: self.logger)
        } catch {
            throw StoreError(list: list.name, "its query does not run: \(Self.describe(error))")
        }
        // Each check below that finds the source unfit for the list is named, and the list
        // refused once all ran: `check --store` names every problem of a list at once.
        var problems: [String] = []
        func collecting<T>(_ fallback: T, _ check: () throws -> T) throws -> T {
            do {
                return try check()
            } catch let error as StoreError {
                problems.append(error.message)
                return fallback
            }
        }
        try collecting(()) {
            try schema.checkColumnsAndTypes(types.keys.sorted(), kinds: Self.columnKinds(types), added: addedHere)
        }
        if !source.isTable {
            do {
                try await checkReadsOnly(list, from: schema.from, connection)
            } catch let error as StoreError {
                problems.append(error.message)
            }
        }
        // Writes raise the revision by one (`rev + 1`), which only an integer column takes.
        if list.isWritable, let revision = list.revisionField, let type = types[revision],
            ![PostgresDataType.int2, .int4, .int8].contains(type)
        {
            problems.append(
                "column '\(revision)' holds the items' revision, which every write raises by one: it must be "
                    + "a bigint, integer or smallint column, not \(type.description.lowercased())"
            )
        }
        if !source.isTable, types.values.contains(where: { [.timestamptz, .timestamp, .time].contains($0) }) {
            modifiers = try await Self.typeModifiers(ofQuery: schema.from, session, logger: self.logger)
        }
        let (enums, arrays) = try await Self.namedTypes(types, connection, logger: self.logger)
        // A missing column was named above, not as one of a type the service cannot show.
        let unsupported = schema.columns.filter {
            types[$0].map { PostgresColumnKind($0) == nil } == true && enums[$0] == nil && arrays[$0] == nil
        }
        if !unsupported.isEmpty {
            problems.append(
                "column \(unsupported.map { "'\($0)'" }.joined(separator: ", ")) has a type the service "
                    + "cannot show; cast it to text, a number or a boolean in a query list"
            )
        }
        // Views compare and order a uuid column as its text (``KeysetSQL/column(_:)``);
        // a section of one would be a section per item, or of a few hex digits.
        let uuidSections = list.views.compactMap(\.section?.field).filter { types[$0] == .uuid }
        if let field = uuidSections.first {
            problems.append(
                "a view sections by column '\(field)', a uuid: section by another column, or "
                    + "read it as text (CAST(column AS text)) in a query list"
            )
        }
        // Writes bind a json field as its JSON text, and a string as text, which
        // PostgreSQL takes into a json, jsonb, uuid, time or enum column only through
        // a cast (text that is not one is then a value the column cannot hold: 422).
        var writeCasts: [String: String] = [:]
        for (column, type) in types {
            switch type {
            case .json: writeCasts[column] = "json"
            case .jsonb: writeCasts[column] = "jsonb"
            case .uuid: writeCasts[column] = "uuid"
            // A `char(n)` id bound as text cast the column: each write by id scanned the table.
            case .bpchar where column == list.idField: writeCasts[column] = "bpchar"
            // PostgreSQL casts a double to numeric with 15 significant digits; its
            // text is the shortest decimal that is the double, every digit kept.
            case .numeric: writeCasts[column] = Self.numericValue
            default:
                writeCasts[column] =
                    Self.timeKind(type).map {
                        TimeText.written(
                            column,
                            kind: $0,
                            digits: TimeText.digits(typeModifier: modifiers[column])
                        )
                    } ?? enums[column]
            }
        }
        let arrayForms = try collecting((read: [String: String](), write: [String: String]())) {
            try Self.arrayForms(of: list, source: source, arrays: arrays, types: types, modifiers: modifiers)
        }
        let textForms = try collecting([:]) {
            try Self.textForms(of: list, source: source, types: types, modifiers: modifiers, enums: enums)
        }
        if !problems.isEmpty { throw StoreError(list: list.name, problems.joined(separator: "; ")) }
        writeCasts.merge(arrayForms.write) { _, array in array }
        let keyset = KeysetSQL(
            dialect: .postgres,
            notNullColumns: notNull,
            textColumns: Set(types.filter { PostgresColumnKind($0.value) == .text && $0.value != .uuid }.keys)
                .union(enums.keys),
            uuidColumns: Set(types.filter { $0.value == .uuid }.keys),
            textForms: textForms.merging(arrayForms.read) { _, array in array },
            valueForms: types.filter { $0.value == .numeric }.mapValues { _ in Self.numericValue },
            integerColumns: Set(
                types.filter { PostgresColumnKind($0.value) == .integer && source.fieldTypes[$0.key] == .number }.keys
            )
        )
        for statement in rehearsal ? [] : schema.prepareStatements(keyset: keyset, indexes: self.indexes) {
            try await session.execute(statement.sql, statement.arguments)
        }
        let reader = SQLListReader(
            list: list.name,
            transactions: self.transactions,
            viewsAreIndexed: source.isTable,
            from: schema.from,
            columns: schema.columns,
            idField: list.idField,
            idIsInteger: PostgresColumnKind(types[list.idField] ?? .null) == .integer,
            idMaximum: Self.largestValue(of: types[list.idField]),
            fieldTypes: source.fieldTypes,
            keyset: keyset,
            versionTables: source.allVersionTables,
            windows: WindowQueries.versioned(columns: schema.columns, from: schema.from, keyset: keyset),
            writeCasts: writeCasts,
            columnRules: Self.columnRules(
                types: types,
                modifiers: modifiers,
                arrays: arrayForms.write,
                domains: domains
            ),
            idSequence: idSequence,
            loggedKeys: schema.loggedKeys
        )
        let provider = PostgresDataProvider(store: self, reader: reader)
        for view in list.views {
            do {
                try await provider.check(view, session)
            } catch {
                throw StoreError(
                    list: list.name,
                    "view '\(view.name)' does not fit its columns' types: \(Self.describe(error))"
                )
            }
        }
        return provider
    }

    /// The adapter of a list over this store: its provider, and for a writable list its
    /// writer and change log.
    ///
    /// - Throws: `StoreError` as ``provider(for:source:)`` and
    ///   ``DataMediatorSQL/SQLListAssembly/writes(for:source:reader:tableWriters:)`` do.
    public func adapter(
        for list: ListDefinition,
        source: StoreSource,
        signer: CursorSigner,
        notifier: ChangeNotifier = ChangeNotifier()
    ) async throws -> ListAdapter {
        let provider = try await provider(for: list, source: source)
        let adapter = try SQLListAssembly.adapter(
            for: list,
            source: source,
            provider: provider,
            tableWriters: tableWriters,
            signer: signer,
            notifier: notifier
        )
        // In a write of their own that takes the version lock (``DataMediatorSQL/LoggedViews``).
        if let changeLog = adapter.changeLog as? SQLChangeLog {
            do {
                try await changeLog.register(atStart: true)
            } catch {
                throw StoreError(list: list.name, "its views could not be registered: \(Self.describe(error))")
            }
        }
        return adapter
    }
}
