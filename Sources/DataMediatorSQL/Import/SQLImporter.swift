import DataMediator

/// Loads records into a table list's table in a SQL store in bulk: each record is checked
/// against the list's field rules and inserted, many to a transaction, each transaction
/// holding the store's version lock (the service's writes wait for it).
///
/// Without `skipBad`, the whole import is one transaction: the first bad record (or an id
/// that exists) stops it and nothing of it is stored. With `skipBad`, bad records are
/// reported and left out, and every `batch` records are committed. Each committed
/// transaction that stored a record raises the store's version by one and restarts the
/// list's change history (a client holding older pages gets `410` from `/changes`, and
/// `event: reload` on its stream, and reloads), and (PostgreSQL) every replica is
/// notified: what an import has committed is never served without its version moving.
public struct SQLImporter: Sendable {
    private let transactions: any SQLTransactions
    private let plan: ImportPlan

    /// An importer into `list`, a list over a table of the store whose `reader` the store
    /// has made with the list's provider (so its table exists and its columns are known).
    ///
    /// - Throws: `StoreError` when the list is over a query.
    public init(reader: SQLListReader, list: ListDefinition, source: StoreSource) throws {
        self.transactions = reader.transactions
        self.plan = try ImportPlan(
            list: list,
            source: source,
            casts: reader.writeCasts,
            sequence: reader.idSequence,
            columnRules: reader.columnRules,
            numericTextFields: reader.numericTextFields
        )
    }

    /// Imports `records`; `progress` is called after every `batch` records with the count so far.
    ///
    /// - Throws: `ImportStopped` for the first bad record when `skipBad` is false (nothing
    ///   is stored then); database errors.
    public func run(
        _ records: some Sequence<ImportRecord>,
        skipBad: Bool,
        batch: Int = 10_000,
        progress: (Int) -> Void = { _ in }
    ) async throws -> ImportSummary {
        var summary = ImportSummary()
        var iterator = records.makeIterator()
        var finished = false
        // Without skipBad, one transaction for everything; with it, one per batch.
        let perTransaction = skipBad ? max(1, batch) : Int.max
        /// One transaction of the import: all of it, or a batch with `skipBad`.
        func transaction() async throws {
            try await transactions.bulkWrite { session in
                try await StoreVersion.lock(session)
                if summary.began == nil { summary.began = .now }
                // The table's stamp is raised once, by `finish`, not once per record.
                try await TableStamps.beginBulk(of: plan.table, session)
                let storedBefore = summary.imported
                // A record whose text its table did not keep is found once inserted
                // (``KeptText``), and undone under its savepoint.
                let guarded = skipBad && (session.errorsEndTheTransaction || !plan.textColumns.isEmpty)
                let rowsPerStatement = rowsPerStatement(session)
                var count = 0
                // Checked records not inserted yet, inserted together; a bad one is counted
                // after those before it, so the first bad record is the first reported.
                var pending: [Row] = []
                func insertPending() async throws {
                    for rejection in try await insert(pending, session, guarded: guarded) {
                        try summary.count(rejection, skipBad: skipBad, batch: batch, progress: progress)
                    }
                    pending = []
                }
                while count < perTransaction {
                    guard let record = iterator.next() else {
                        finished = true
                        break
                    }
                    count += 1
                    let values: [JSONValue]
                    do {
                        values = try plan.values(of: record)
                    } catch let error as DataMediatorError {
                        try await insertPending()
                        let rejection = ImportRejection(record: record, error: error)
                        try summary.count(rejection, skipBad: skipBad, batch: batch, progress: progress)
                        continue
                    }
                    pending.append(Row(record: record, values: values, given: plan.given(by: record)))
                    if pending.count >= rowsPerStatement { try await insertPending() }
                }
                try await insertPending()
                // A transaction that stored nothing (the records ended with the one before,
                // or all of its were bad) leaves the version and the change history alone:
                // clients would reload for nothing.
                if summary.imported > storedBefore {
                    summary.version = try await plan.finish(session)
                } else if summary.version == 0 {
                    summary.version = try await StoreVersion.current(session)
                }
            }
        }
        while !finished {
            let rejectedBefore = summary.rejections.count
            do {
                try await transaction()
            } catch let stopped as ImportStopped {
                throw ImportStopped(rejection: await everyCastNamed(stopped.rejection))
            }
            for index in rejectedBefore..<summary.rejections.count {
                summary.rejections[index] = await everyCastNamed(summary.rejections[index])
            }
        }
        progress(summary.imported + summary.rejected)
        return summary
    }

    /// `rejection` with each of its record's other values that their columns' casts refuse
    /// named too (``CastRefusals``), once the transaction that refused one ended.
    private func everyCastNamed(_ rejection: ImportRejection) async -> ImportRejection {
        guard !rejection.unnamedCasts.isEmpty,
            let problems = await plan.castRefusals.problems(
                of: rejection.unnamedCasts.map { ($0.field, $0.value) },
                in: transactions
            ),
            !problems.isEmpty
        else { return rejection }
        let more = problems.map { "field '\($0.field)': \($0.detail)" }
        return ImportRejection(line: rejection.line, reason: ([rejection.reason] + more).joined(separator: "; "))
    }

    /// A record checked against the list's rules, its values in the plan's columns, and
    /// which of them it gives.
    private struct Row {
        let record: ImportRecord
        let values: [JSONValue]
        let given: [Bool]

        /// The values the insert binds: those given.
        var bound: [JSONValue] { zip(values, given).filter(\.1).map(\.0) }
    }

    /// The most records one statement inserts: one on SQLite, whose statements cost no
    /// round trip; on PostgreSQL up to 100, within its 65,535 parameters a statement.
    private func rowsPerStatement(_ session: any SQLSession) -> Int {
        session.dialect == .postgres ? max(1, min(100, 65_535 / max(1, plan.columns.count))) : 1
    }

    /// Inserts `rows` by one statement; why each was left out, or nil when it was stored,
    /// in order. A refused value fails the statement: its rows are then inserted one at a
    /// time to tell which, up to the first one refused when the import stops there (not
    /// `guarded`: the transaction has ended).
    private func insert(_ rows: [Row], _ session: any SQLSession, guarded: Bool) async throws -> [ImportRejection?] {
        if rows.isEmpty { return [] }
        if rows.count == 1 { return [try await insert(rows[0], session, guarded: guarded)] }
        let idColumn = SQL.quote(plan.columns[0])
        let returned: [[JSONValue]]
        try await session.execute("SAVEPOINT data_mediator_rows", [])
        do {
            returned = try await session.rows(
                plan.insertSQL(given: rows.map(\.given)) + " ON CONFLICT DO NOTHING RETURNING \(idColumn)",
                rows.flatMap(\.bound)
            )
            try await session.execute("RELEASE SAVEPOINT data_mediator_rows", [])
        } catch {
            guard session.refusal(of: error) != nil else { throw error }
            try await session.execute("ROLLBACK TO SAVEPOINT data_mediator_rows", [])
            var rejections: [ImportRejection?] = []
            for row in rows {
                let rejection = try await insert(row, session, guarded: guarded)
                rejections.append(rejection)
                if rejection != nil, !guarded { break }
            }
            return rejections
        }
        // An id stored once per time it came back; a record whose id did not (it exists,
        // or an earlier record of the statement has it) was left out.
        var stored: [ExactText: Int] = [:]
        for row in returned { stored[ExactText(row.first?.idString ?? ""), default: 0] += 1 }
        var rejections: [ImportRejection?] = []
        for row in rows {
            let id = ExactText(row.values.first?.idString ?? "")
            if let times = stored[id], times > 0 {
                stored[id] = times - 1
                rejections.append(nil)
                continue
            }
            let rejection = try await skipped(row, session, guarded: guarded)
            rejections.append(rejection)
            if rejection != nil, !guarded { break }
        }
        return rejections
    }

    /// Why `row`, which an insert skipped (`ON CONFLICT DO NOTHING` skips a row that any
    /// unique index refuses), was left out: its id exists (in the table, or from an earlier
    /// record), or else what an insert of it alone without that clause answers (another
    /// unique index holds one of its values; nil when that insert stores it).
    private func skipped(_ row: Row, _ session: any SQLSession, guarded: Bool) async throws -> ImportRejection? {
        let id = row.values.first ?? .null
        if try await !session.rows(plan.idExistsSQL, [id]).isEmpty {
            return Self.existing(id.idString, line: row.record.line)
        }
        return try await insert(row, session, guarded: guarded, skipping: false)
    }

    private static func existing(_ id: String, line: Int) -> ImportRejection {
        ImportRejection(
            line: line,
            reason: "the id '\(id)' exists already (in the table, or on an earlier line of the file)"
        )
    }

    /// Inserts one record; why it was left out, or nil when it was stored. With `guarded`
    /// (bad records are skipped on a store whose errors end the transaction), the insert
    /// runs under a savepoint, so that a refused record leaves the rest of the batch.
    /// `skipping`: with `ON CONFLICT DO NOTHING` (a row skipped is then told apart by
    /// ``skipped(_:_:guarded:)``).
    private func insert(
        _ row: Row,
        _ session: any SQLSession,
        guarded: Bool,
        skipping: Bool = true
    ) async throws -> ImportRejection? {
        let record = row.record
        if guarded { try await session.execute("SAVEPOINT data_mediator_record", []) }
        do {
            let read = (["1"] + plan.textColumns.map { SQL.quote(plan.columns[$0]) }).joined(separator: ", ")
            let sql =
                plan.insertSQL(given: [row.given]) + (skipping ? " ON CONFLICT DO NOTHING" : "") + " RETURNING \(read)"
            let inserted = try await session.rows(sql, row.bound)
            let unkept = plan.unkept(row.values, given: row.given, stored: Array(inserted.first?.dropFirst() ?? []))
            if let refusal = KeptText.refusal(unkept) {
                // Without `guarded` the import stops here, and its transaction stores nothing.
                if guarded { try await session.execute("ROLLBACK TO SAVEPOINT data_mediator_record", []) }
                return ImportRejection(line: record.line, error: refusal)
            }
            if guarded { try await session.execute("RELEASE SAVEPOINT data_mediator_record", []) }
            guard inserted.isEmpty, skipping else { return nil }
            return try await skipped(row, session, guarded: guarded)
        } catch {
            guard let refusal = session.refusal(of: error) else { throw error }
            if guarded { try await session.execute("ROLLBACK TO SAVEPOINT data_mediator_record", []) }
            let reason = refusal.message
            // The column, when the database names it; PostgreSQL's cast names the value it
            // refused instead.
            let named = refusal.fieldProblems.map(\.field).filter { $0 != "data" }
            guard
                let field = named.count == 1
                    ? named[0] : ConstraintRefusal.field(quotedIn: reason, among: record.fields)
            else {
                return ImportRejection(line: record.line, reason: reason)
            }
            var rejection = ImportRejection(line: record.line, reason: "field '\(field)': \(reason)")
            rejection.unnamedCasts = plan.columns.indices.compactMap { index in
                let column = plan.columns[index]
                guard row.given[index], column != field, plan.castRefusals.casts(column) else { return nil }
                return ImportRejection.FieldValue(field: column, value: row.values[index])
            }
            return rejection
        }
    }
}
