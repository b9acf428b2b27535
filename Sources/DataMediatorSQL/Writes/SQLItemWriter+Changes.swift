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
        writing values: [String: JSONValue],
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
        guard var written else { throw DataMediatorError(.unavailable, "The write stored no row.") }
        if recorded.changedMore, let stored = try await current(written[idField], session) {
            // A trigger of the table changed it again in the write's statement: the row is
            // answered as it is now (the lists reload, ``OutsideWrites``).
            written = stored
        }
        try keptInSlice(written, values: values)
        return (WriteResult(item: written, version: recorded.version, created: old == nil), recorded.carry)
    }

    /// Runs `write` (which answers the row written, or nil for a delete) between reading the
    /// row's placements in every list over the table and logging what changed in each; with
    /// the table's stamps around it and the row as each list reads it, for the outlines.
    /// `old` is the row before, as this writer read it (nil: there was none).
    ///
    /// `changedMore` tells that the table's stamp moved by more than the write's one
    /// statement: a trigger of the table changed it again (an `AFTER` trigger that updates
    /// the row, a cascade to the table's own rows). What was logged is the write as its
    /// statement answered it; its row of the stamp's log stays for the watch, so every list
    /// over the table reloads (``OutsideWrites``), and no outline is carried over it.
    func record(
        key: JSONValue?,
        id: String?,
        old writerOld: Item?,
        stampBefore: Int64?,
        _ session: any SQLSession,
        write: () async throws -> Item?
    ) async throws -> (version: Int64, carry: OutlineCarry, changedMore: Bool) {
        let observers = tableWriters.observers(of: table)
        // Lists that read this table alone keep outlines at its stamp.
        var olds: [Item?] = []
        for observer in observers {
            var old: Item?
            if let writerOld, let key { old = try await item(writerOld, key: key, as: observer.reader, session) }
            olds.append(old)
        }
        let before = try await placements(of: olds, in: observers, withSectionAfter: false, session)
        let item = try await write()
        let newKey = item?[idField] ?? key
        var news: [Item?] = []
        for observer in observers {
            var new: Item?
            if let item, let newKey { new = try await self.item(item, key: newKey, as: observer.reader, session) }
            news.append(new)
        }
        let afters = try await placements(of: news, in: observers, withSectionAfter: true, session)
        var entries: [ChangeLogEntry] = []
        for (index, observer) in observers.enumerated() {
            // For the outlines of other replicas, which carry theirs from the log: the step
            // the write made to the stamp of a list that reads this table alone.
            let followsStamp = observer.reader.versionTables == [table]
            entries.append(
                observer.changeLog.entry(
                    id: id ?? item?[idField].idString ?? "",
                    item: news[index],
                    old: olds[index],
                    changes: observer.recorder.changes(old: before[index], new: afters[index]),
                    stampBefore: followsStamp ? stampBefore : nil
                )
            )
        }
        // The version, the stamp after (the lock is held since the read before) and every
        // list's log: one statement on PostgreSQL.
        let (version, stampAfter) = try await SQLChangeLog.record(
            entries,
            bumping: table,
            readingStamp: TableStamps.currentSQL(of: [table]),
            session
        )
        guard let stampBefore, let stampAfter else { return (version, .none, false) }
        // Exactly one step: the stamp before may be miscounted by outside writes during the
        // wait for the version lock (``TableStamps/beforeWriteSQL(of:_:)``), never in a way
        // that passes this check and carries a wrong outline.
        guard stampAfter == stampBefore + 1 else { return (version, .none, true) }
        var writes: [(reader: SQLListReader, write: OutlineWrite)] = []
        for (index, observer) in observers.enumerated() where observer.reader.versionTables == [table] {
            writes.append(
                (
                    observer.reader,
                    OutlineWrite(old: olds[index], new: news[index], version: version, placements: afters[index])
                )
            )
        }
        return (version, OutlineCarry(before: stampBefore, after: stampAfter, writes: writes), false)
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

    /// Where `items` (each list's row, nil for none) stand in the views of each list over
    /// the table (`observers`, in the same order): every list's reads of a round asked
    /// together, one statement where the lists read the same columns.
    func placements(
        of items: [Item?],
        in observers: [TableWriters.Observer],
        withSectionAfter: Bool,
        _ session: any SQLSession
    ) async throws -> [[String: Placement]] {
        let asked = zip(observers, items).map { (recorder: $0.recorder, item: $1) }
        return try await ChangeRecorder.placements(of: asked, withSectionAfter: withSectionAfter) { reads in
            try await SQLListReader.answers(to: zip(observers, reads).map { (reader: $0.reader, reads: $1) }, session)
        }
    }

}
