import DataMediator

/// The steps of a table's stamp (``TableStamps``) that the service's writes made, per list
/// over the table, logged in the write's transaction beside its changes: the stamp before
/// and after the write, and the version it produced.
///
/// A replica that kept a view's outline at one stamp and finds the table at a later one
/// carries the outline over the writes between, read from the change log, when every step
/// between the two stamps is logged: the writes of every replica (and of this one, when
/// another list over the table made them) are placed without a pass over the view. A step
/// missing from the chain (a write by another program, an import, a step older than the
/// list's history) leaves the outline to be read again.
public enum StampSteps {
    /// The table of steps.
    static let table = "data_mediator_stamp_steps"

    /// The statement that creates the table when missing.
    static func schema(_ dialect: SQLDialect) -> [String] {
        let types = SQLTypes(dialect)
        let clustered = dialect == .sqlite ? " WITHOUT ROWID" : ""
        return [
            """
            CREATE TABLE IF NOT EXISTS \(table) (
                list \(types.text) NOT NULL,
                stamp_after \(types.integer) NOT NULL,
                stamp_before \(types.integer) NOT NULL,
                version \(types.integer) NOT NULL,
                PRIMARY KEY (list, stamp_after)
            )\(clustered)
            """
        ]
    }

    /// Logs that a write of `list`'s table at `version` moved its stamp from `before` to
    /// `after`, in the write's transaction.
    static func record(
        list: String,
        before: Int64,
        after: Int64,
        version: Int64,
        _ session: any SQLSession
    ) async throws {
        guard after != before else { return }
        try await session.execute(
            """
            INSERT INTO \(table) (list, stamp_after, stamp_before, version) VALUES (?, ?, ?, ?)
            ON CONFLICT (list, stamp_after) DO UPDATE SET
                stamp_before = excluded.stamp_before, version = excluded.version
            """,
            [.string(list), .integer(after), .integer(before), .integer(version)]
        )
    }

    /// Forgets the steps of `list` at or before `version` (with the change log's rows), or
    /// all of them.
    static func forget(list: String, through version: Int64? = nil, _ session: any SQLSession) async throws {
        if let version {
            try await session.execute(
                "DELETE FROM \(table) WHERE list = ? AND version <= ?",
                [.string(list), .integer(version)]
            )
        } else {
            try await session.execute("DELETE FROM \(table) WHERE list = ?", [.string(list)])
        }
    }

    /// The most logged writes an outline is carried over; past it, reading the view again
    /// is the cheaper way.
    static let maximumWrites = 1_000

    /// The writes of `list` that took its table from stamp `from` to `to`, in order, each
    /// as the view `binding` logged it (a write that did not touch the view changes
    /// nothing in it) with the stamp after it; nil when one step between the two is not
    /// logged, one is a `reload`, or there are more than ``maximumWrites``.
    static func writes(
        list: String,
        binding: String,
        layout: ItemLayout,
        from: Int64,
        to: Int64,
        _ session: any SQLSession
    ) async throws -> [(stamp: Int64, write: OutlineWrite)]? {
        guard from < to else { return from == to ? [] : nil }
        let steps = try await session.rows(
            """
            SELECT stamp_before, stamp_after, version FROM \(table)
            WHERE list = ? AND stamp_after > ? AND stamp_after <= ? ORDER BY stamp_after LIMIT ?
            """,
            [.string(list), .integer(from), .integer(to), .integer(Int64(maximumWrites + 1))]
        )
        // The chain: each step starts where the one before ended, from `from` to `to`.
        var reached = from
        var versions: [Int64] = []
        for step in steps {
            guard step[0].integerValue == reached, let after = step[1].integerValue, let version = step[2].integerValue
            else { return nil }
            reached = after
            versions.append(version)
        }
        guard reached == to, versions.count <= maximumWrites, let first = versions.first, let last = versions.last
        else { return nil }
        let rows = try await session.rows(
            """
            SELECT version, op, item, old_item, section, section_after, after FROM \(ServiceTables.changes)
            WHERE list = ? AND view = ? AND version >= ? AND version <= ?
            """,
            [.string(list), .string(binding), .integer(first), .integer(last)]
        )
        var logged: [Int64: [JSONValue]] = [:]
        for row in rows { if let version = row[0].integerValue { logged[version] = row } }
        var writes: [(stamp: Int64, write: OutlineWrite)] = []
        writes.reserveCapacity(steps.count)
        for (step, version) in zip(steps, versions) {
            let stamp = step[1].integerValue ?? to
            guard let row = logged[version] else {
                writes.append((stamp, OutlineWrite(old: nil, new: nil, version: version, placements: [:])))
                continue
            }
            guard let operation = row[1].stringValue.flatMap(Change.Operation.init(rawValue:)), operation != .reload
            else { return nil }
            func item(_ value: JSONValue) -> Item? {
                value.stringValue.flatMap { Item(objectJSON: Array($0.utf8), layout: layout) }
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
