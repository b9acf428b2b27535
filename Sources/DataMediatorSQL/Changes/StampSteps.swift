import DataMediator

/// The steps of a table's stamp (``TableStamps``) that the service's writes made, per list
/// over the table, logged in the write's transaction beside its changes: the stamp before
/// and after the write, and the version it produced.
///
/// A replica that kept a view's outline at one stamp and finds the table at a later one
/// carries the outline over the writes between, read from the change log, when every step
/// between the two stamps is logged: other replicas' writes are placed without a pass over
/// the view, as a replica's own are when it makes them (``OutlineCarry``). A step missing
/// from the chain (a write by another program, an import, a step older than the list's
/// history) leaves the outline to be read again.
enum StampSteps {
    /// The table of steps.
    static let table = "data_mediator_stamp_steps"

    /// The statement that creates the table when missing.
    static func schema(_ dialect: SQLDialect) -> [String] {
        [
            ServiceTables.keyedTable(
                table,
                [("list", \.text), ("version", \.integer), ("stamp_before", \.integer), ("stamp_after", \.integer)],
                key: ["list", "version"],
                dialect
            )
        ]
    }

    /// Forgets a list's steps at or below a version (arguments: the list, then those of
    /// `bound`, the SQL term of the version).
    static func forgetSQL(through bound: String) -> String {
        "DELETE FROM \(table) WHERE list = ? AND version <= \(bound)"
    }

    /// The statement that logs that a write of a list's table at a version moved its stamp
    /// by its one step, in the write's transaction, when it did: a write that changed the
    /// table more (through a trigger of the table) logs no step, so no outline is carried
    /// over it (arguments: the
    /// list, those of `version`, the stamp before, those of `after`, those of `after`
    /// again, the stamp before again). `version` and `after` are SQL terms: placeholders,
    /// or on PostgreSQL the answers of the version's raise in the same statement
    /// (``SQLChangeLog/record(_:bumping:readingStamp:_:)``).
    static func recordSQL(version: String, after: String) -> String {
        """
        INSERT INTO \(table) (list, version, stamp_before, stamp_after)
        SELECT ?, \(version), ?, \(after) WHERE \(after) = ? + 1
        ON CONFLICT (list, version) DO UPDATE SET
            stamp_before = excluded.stamp_before, stamp_after = excluded.stamp_after
        """
    }

    /// Forgets the steps of `list` at or before `version` (with the change log's rows), or
    /// all of them.
    static func forget(list: String, through version: Int64? = nil, _ session: any SQLSession) async throws {
        if let version {
            try await session.execute(forgetSQL(through: "?"), [.string(list), .integer(version)])
        } else {
            try await session.execute("DELETE FROM \(table) WHERE list = ?", [.string(list)])
        }
    }

    /// The most logged writes an outline is carried over; past it, reading the view again
    /// is the cheaper way.
    static let maximumWrites = 1_000

    /// The writes of `list` that took its table from stamp `from` (at the store's version
    /// `since`) to stamp `to`, in order, each as the view `binding` (whose changes the log
    /// holds under `keys`: its own and its registered key, ``LoggedViews``) logged it (a write that
    /// did not touch the view changes nothing in it) with the stamp after it; nil when one
    /// step between the two stamps is not logged, one is a `reload`, or there are more than
    /// ``maximumWrites``. Read in the snapshot whose stamp is `to`.
    ///
    /// The service's writes take the store's write lock, so a list's steps rise in version
    /// and stamp together: those after `since` are the ones after `from`.
    static func writes(
        list: String,
        binding: String,
        keys: [String],
        layout: ItemLayout,
        types: [FieldType?] = [],
        from: Int64,
        since: Int64,
        to: Int64,
        _ session: any SQLSession
    ) async throws -> [(stamp: Int64, write: OutlineWrite)]? {
        guard from < to else { return from == to ? [] : nil }
        let steps = try await session.rows(
            """
            SELECT version, stamp_before, stamp_after FROM \(table)
            WHERE list = ? AND version > ? ORDER BY version LIMIT ?
            """,
            [.string(list), .integer(since), .integer(Int64(maximumWrites))]
        )
        // The chain: each step starts where the one before ended, from `from` to `to`.
        var chain: [(version: Int64, stamp: Int64)] = []
        var reached = from
        for step in steps where reached != to {
            guard let version = step[0].integerValue, step[1].integerValue == reached, let after = step[2].integerValue
            else { return nil }
            chain.append((version, after))
            reached = after
        }
        guard reached == to, let first = chain.first?.version, let last = chain.last?.version else { return nil }
        let rows = try await session.rows(
            """
            SELECT c.version, c.op, \(ChangeItems.itemSQL), \(ChangeItems.oldItemSQL), c.section, c.section_after,
                c.after
            FROM \(ServiceTables.changes) AS c \(ChangeItems.joinSQL)
            WHERE c.list = ? AND c.view IN (?, ?) AND c.version >= ? AND c.version <= ?
            """,
            [
                .string(list), .string(keys.first ?? binding), .string(keys.last ?? binding), .integer(first),
                .integer(last),
            ]
        )
        var logged: [Int64: [JSONValue]] = [:]
        for row in rows { if let version = row[0].integerValue { logged[version] = row } }
        var writes: [(stamp: Int64, write: OutlineWrite)] = []
        writes.reserveCapacity(chain.count)
        for (version, stamp) in chain {
            guard let row = logged[version] else {
                writes.append((stamp, OutlineWrite(old: nil, new: nil, version: version, placements: [:])))
                continue
            }
            guard let operation = row[1].stringValue.flatMap(Change.Operation.init(rawValue:)), operation != .reload
            else { return nil }
            func item(_ value: JSONValue) -> Item? {
                value.stringValue.flatMap { Item(objectJSON: Array($0.utf8), layout: layout, types: types) }
            }
            let placement = row[4].stringValue.map {
                Placement(section: $0, sectionAfter: row[5].stringValue, after: row[6].stringValue)
            }
            let write = OutlineWrite(
                old: operation == .insert ? nil : item(row[3]),
                new: operation == .delete ? nil : item(row[2]),
                version: version,
                placements: placement.map { [binding: $0] } ?? [:]
            )
            writes.append((stamp, write))
        }
        return writes
    }
}
