import DataMediator

/// How a write logs what it did: the row's placements in every list over the table,
/// before and after, compared into each list's change log.
extension SQLItemWriter {

    /// Runs a write of one row and logs what it did to each view of every list over the
    /// table: the row's placements in each list before and after, compared, at the version
    /// the write produced.
    func record(
        old: Item?,
        stampBefore: Int64?,
        _ session: any SQLSession,
        write: () async throws -> Item
    ) async throws -> (result: WriteResult, carry: OutlineCarry) {
        var written: Item?
        let key = old.map { $0[idField] }
        let recorded = try await record(key: key, id: nil, old: old, stampBefore: stampBefore, session) {
            let item = try await write()
            written = item
            return item
        }
        guard let written else { throw DataMediatorError(.unavailable, "The write stored no row.") }
        return (WriteResult(item: written, version: recorded.version, created: old == nil), recorded.carry)
    }

    /// Runs `write` (which answers the row written, or nil for a delete) between reading the
    /// row's placements in every list over the table and logging what changed in each; with
    /// the table's stamps around it and the row as each list reads it, for the outlines.
    /// `old` is the row before, as this writer read it (nil: there was none).
    func record(
        key: JSONValue?,
        id: String?,
        old writerOld: Item?,
        stampBefore: Int64?,
        _ session: any SQLSession,
        write: () async throws -> Item?
    ) async throws -> (version: Int64, carry: OutlineCarry) {
        let observers = tableWriters.observers(of: table)
        // Lists that read this table alone keep outlines at its stamp.
        var olds: [Item?] = []
        var before: [[String: Placement]] = []
        for observer in observers {
            var old: Item?
            if let writerOld, let key { old = try await item(writerOld, key: key, as: observer.reader, session) }
            olds.append(old)
            before.append(try await placements(of: old, in: observer, withSectionAfter: false, session))
        }
        let item = try await write()
        // The stamp after is read in the version's statement (the lock is held since the read
        // before).
        let (version, stampAfter) = try await StoreVersion.bump(
            for: table,
            reading: TableStamps.readSQL(of: table, locking: false, session.dialect),
            session
        )
        let newKey = item?[idField] ?? key
        var writes: [(reader: SQLListReader, write: OutlineWrite)] = []
        for (index, observer) in observers.enumerated() {
            var new: Item?
            if let item, let newKey { new = try await self.item(item, key: newKey, as: observer.reader, session) }
            let after = try await placements(of: new, in: observer, withSectionAfter: true, session)
            // For the outlines of other replicas, which carry theirs from the log: the step
            // the write made to the stamp of a list that reads this table alone.
            var stampStep: (before: Int64, after: Int64)?
            if observer.reader.versionTables == [table], let stampBefore, let stampAfter {
                stampStep = (stampBefore, stampAfter)
                writes.append(
                    (observer.reader, OutlineWrite(old: olds[index], new: new, version: version, placements: after))
                )
            }
            try await observer.changeLog.append(
                version: version,
                id: id ?? item?[idField].idString ?? "",
                item: new,
                old: olds[index],
                changes: observer.recorder.changes(old: before[index], new: after),
                stampStep: stampStep,
                session
            )
        }
        guard let stampBefore, let stampAfter else { return (version, .none) }
        return (version, OutlineCarry(before: stampBefore, after: stampAfter, writes: writes))
    }

    /// The row as `reader` reads it, cut from `row` (the same row as this writer read it in
    /// the same transaction) when the writer reads every column the reader does, shown the
    /// same way; read by its key otherwise.
    func item(
        _ row: Item,
        key: JSONValue,
        as reader: SQLListReader,
        _ session: any SQLSession
    ) async throws -> Item? {
        var values: [JSONValue]? = row.layout.names == layout.names ? [] : nil
        for (column, type) in zip(reader.columns, reader.columnTypes) where values != nil {
            guard let index = layout.index(of: column), columnTypes[index] == type else {
                values = nil
                break
            }
            values?.append(row.value(at: index))
        }
        guard let values else { return try await reader.item(withKey: key, session) }
        return Item(layout: reader.layout, values: values)
    }

    func placements(
        of item: Item?,
        in observer: TableWriters.Observer,
        withSectionAfter: Bool,
        _ session: any SQLSession
    ) async throws -> [String: Placement] {
        try await observer.recorder.placements(of: item, withSectionAfter: withSectionAfter) { reads in
            try await observer.reader.answers(to: reads, session)
        }
    }

}
