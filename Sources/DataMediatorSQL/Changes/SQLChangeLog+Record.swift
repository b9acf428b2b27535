import DataMediator

/// One list's part of what a write logs, made before the write has its version
/// (``SQLChangeLog/entry(id:item:old:changes:stampBefore:)``).
struct ChangeLogEntry: Sendable {
    /// A change to one view: its row of the log but for the list and the version.
    struct Row: Sendable {
        let view: String
        /// The operation, the item's id, the section, the section after and the item
        /// before it in its section, in the log's column order.
        let values: [JSONValue]
    }

    let list: String
    /// The list's table.
    let table: String
    /// How many versions the list's log keeps.
    let history: Int64
    let rows: [Row]
    /// The item after the write and the item before it, as JSON text (null: none), kept
    /// once for every view's row (``ChangeItems``).
    let item: JSONValue
    let old: JSONValue
    /// The table's stamp before the write, when the list's outlines follow its steps (nil:
    /// no step is logged).
    let stampBefore: Int64?
    /// The keys the writer's views of the list are registered by (``LoggedViews``): every
    /// other key registered for the list gets a `reload`.
    let ownKeys: [String]

    /// A value the log's statements use: the SQL term and the values of its placeholders.
    struct Term {
        let sql: String
        let arguments: [JSONValue]

        /// A value bound to a placeholder.
        static func value(_ value: Int64) -> Term { Term(sql: "?", arguments: [.integer(value)]) }
    }

    /// The SQL term of the version at or below which the list's log is forgotten after a
    /// write at `version`: its `history` versions back, or more when a replica serving the
    /// list with a longer history registered its views (``LoggedViews``): the log is shared.
    func keepFrom(version: Term, _ dialect: SQLDialect) -> Term {
        let longest = LoggedViews.longestHistorySQL(dialect)
        return Term(
            sql: "\(version.sql) - \(longest)",
            arguments: version.arguments + [.integer(history), .string(list)]
        )
    }

    /// The statements that log this entry at `version`, forgetting what is at or below
    /// `keepFrom` (the floor of the list's history) once the floor rose to it, with
    /// `stampAfter` the table's stamp after the write (nil: unknown, no step is logged):
    /// the writes (its changes to every view in one insert, the `reload`s of the views
    /// other replicas serve and it does not, its stamp's step), the raise of
    /// the floor (answering a row when it rose) and the trims to run when it did.
    func statements(
        version: Term,
        keepFrom: Term,
        stampAfter: Term?
    ) -> (
        writes: [(sql: String, arguments: [JSONValue])], raise: (sql: String, arguments: [JSONValue]),
        trims: [(sql: String, arguments: [JSONValue])]
    ) {
        var writes: [(sql: String, arguments: [JSONValue])] = []
        if !rows.isEmpty {
            // The changes to every view in one insert (the views are distinct, so no row is
            // written twice).
            let row = "(?, ?, \(version.sql), ?, ?, ?, ?, ?)"
            writes.append(
                (
                    """
                    INSERT INTO \(ServiceTables.changes) (list, view, version, op, item_id, section, section_after, after)
                    VALUES \(Array(repeating: row, count: rows.count).joined(separator: ", "))
                    ON CONFLICT (list, view, version) DO UPDATE SET
                        op = excluded.op, item_id = excluded.item_id, item = NULL, section = excluded.section,
                        section_after = excluded.section_after, after = excluded.after, old_item = NULL
                    """,
                    rows.flatMap { [.string(list), .string($0.view)] + version.arguments + $0.values }
                )
            )
            // The items, once for all of those rows.
            if item != .null || old != .null {
                writes.append(
                    (
                        ChangeItems.insertSQL(version: version.sql),
                        [.string(list)] + version.arguments + ChangeItems.arguments(item: item, old: old)
                    )
                )
            }
        }
        // The views of other replicas' definitions, which this write cannot place: a reload.
        writes.append(
            (
                LoggedViews.reloadSQL(version: version.sql, count: ownKeys.count),
                version.arguments + [.string(list), .string(table)]
                    + (ownKeys.isEmpty ? [.null] : ownKeys.map(JSONValue.string))
            )
        )
        if let stampBefore, let stampAfter {
            let before = JSONValue.integer(stampBefore)
            writes.append(
                (
                    StampSteps.recordSQL(version: version.sql, after: stampAfter.sql),
                    [.string(list)] + version.arguments + [before] + stampAfter.arguments + stampAfter.arguments
                        + [before]
                )
            )
        }
        // The floor only rises; the update finds nothing to do while it is at or past keepFrom.
        let raise = (
            "UPDATE \(ServiceTables.history) SET floor = \(keepFrom.sql) WHERE list = ? AND floor < \(keepFrom.sql) "
                + "RETURNING floor",
            keepFrom.arguments + [.string(list)] + keepFrom.arguments
        )
        let forget = [JSONValue.string(list)] + keepFrom.arguments
        let trims = [
            (SQLChangeLog.trimSQL(through: keepFrom.sql), forget),
            (ChangeItems.trimSQL(through: keepFrom.sql), forget),
            (StampSteps.forgetSQL(through: keepFrom.sql), forget),
        ]
        return (writes, raise, trims)
    }
}

extension SQLChangeLog {
    /// The statement that logs a `reload` at `version` for the registered views of lists
    /// over `table` that the writer does not serve (``LoggedViews``); nil for a write that
    /// logs no list.
    static func otherLists(
        _ entries: [ChangeLogEntry],
        table: String,
        version: ChangeLogEntry.Term
    ) -> (sql: String, arguments: [JSONValue])? {
        guard !entries.isEmpty else { return nil }
        let lists = Set(entries.map(\.list)).sorted()
        return (
            LoggedViews.otherListsReloadSQL(version: version.sql, count: lists.count),
            version.arguments + [.string(table)] + lists.map(JSONValue.string)
        )
    }

    /// Raises the store's version for a write to `table` (``StoreVersion``) and logs what
    /// the write did in each list's log (`entries`), forgetting what each list keeps no
    /// longer; answers the version and what `stampSQL` (the table's stamp, a `SELECT` of one
    /// value; nil: none) read after the raise. The write's own change to the table's stamp
    /// moves into its counter (``TableStamps/foldOwn(_:_:)``), so the watch of other
    /// programs' writes passes over it (``OutsideWrites``).
    ///
    /// On PostgreSQL all of it is one statement: the raise's, whose data-modifying `WITH`
    /// parts write the log at the version it produced (each statement is a round trip to
    /// the server, and under load a wait for a core as well); the trims run when the floor
    /// rose (every write, once the history is full), and the rows they delete are older
    /// than any the write adds. On SQLite the raise, then each list's statements.
    static func record(
        _ entries: [ChangeLogEntry],
        bumping table: String,
        readingStamp stampSQL: String?,
        _ session: any SQLSession
    ) async throws -> (version: Int64, stamp: Int64?) {
        guard session.dialect == .postgres else {
            let (version, stamp) = try await StoreVersion.bump(for: table, reading: stampSQL, session)
            try await TableStamps.foldOwn(table, session)
            for entry in entries {
                let statements = entry.statements(
                    version: .value(version),
                    keepFrom: entry.keepFrom(version: .value(version), .sqlite),
                    stampAfter: stamp.map(ChangeLogEntry.Term.value)
                )
                for write in statements.writes { try await session.execute(write.sql, write.arguments) }
                guard try await !session.rows(statements.raise.sql, statements.raise.arguments).isEmpty else {
                    continue
                }
                for trim in statements.trims { try await session.execute(trim.sql, trim.arguments) }
            }
            if let others = otherLists(entries, table: table, version: .value(version)) {
                try await session.execute(others.sql, others.arguments)
            }
            return (version, stamp)
        }
        var parts: [(sql: String, arguments: [JSONValue])] = []
        for (index, entry) in entries.enumerated() {
            let statements = entry.statements(
                version: ChangeLogEntry.Term(sql: StoreVersion.bumpedVersion, arguments: []),
                keepFrom: entry.keepFrom(
                    version: ChangeLogEntry.Term(sql: StoreVersion.bumpedVersion, arguments: []),
                    .postgres
                ),
                stampAfter: stampSQL == nil ? nil : ChangeLogEntry.Term(sql: StoreVersion.readAfterBump, arguments: [])
            )
            parts += statements.writes.enumerated().map {
                ("written_\(index)_\($0.offset) AS (\($0.element.sql))", $0.element.arguments)
            }
            parts.append(("raised_\(index) AS (\(statements.raise.sql))", statements.raise.arguments))
            parts += statements.trims.enumerated().map {
                (
                    "trimmed_\(index)_\($0.offset) AS (\($0.element.sql) AND EXISTS (SELECT 1 FROM raised_\(index)))",
                    $0.element.arguments
                )
            }
        }
        if let others = otherLists(
            entries,
            table: table,
            version: ChangeLogEntry.Term(sql: StoreVersion.bumpedVersion, arguments: [])
        ) {
            parts.append(("other_lists AS (\(others.sql))", others.arguments))
        }
        parts += TableStamps.ownFoldParts(of: table)
        let statement = StoreVersion.postgresBump(for: table, reading: stampSQL, with: parts)
        let rows = try await session.rows(statement.sql, statement.arguments)
        guard let row = rows.first, case .integer(let version)? = row.first else {
            throw DataMediatorError(.unavailable, "The store has no version row.")
        }
        guard stampSQL != nil else { return (version, nil) }
        return (version, StoreVersion.wholeNumber(row.count > 1 ? row[1] : .null))
    }
}
