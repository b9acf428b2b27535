/// The answer to "what changed in this view since version V": each change as a client
/// applies it, with the cell as a page shows it.
public struct ChangeSet: Sendable, Hashable {
    /// One change, presented.
    public struct Entry: Sendable, Hashable {
        /// What happened.
        public let operation: Change.Operation
        /// The version the write produced.
        public let version: Int64
        /// The item's id (for `delete`); empty for `reload`.
        public let id: String
        /// The item as a page of the view shows it, for `insert`, `update` and `move`.
        public let cell: Cell?
        /// Where the item stands now, for `insert` and `move`.
        public let placement: Placement?

        /// Creates an entry.
        public init(operation: Change.Operation, version: Int64, id: String, cell: Cell?, placement: Placement?) {
            self.operation = operation
            self.version = version
            self.id = id
            self.cell = cell
            self.placement = placement
        }

        /// Writes the change object: `op`, `version`, then `item` (and `section`,
        /// `section_after`, `after` for inserts and moves), or `id` for a delete.
        public func write(to writer: inout JSONWriter) {
            writer.raw("{\"op\":")
            writer.write(operation.rawValue)
            writer.raw(",\"version\":")
            writer.write(String(version))
            switch operation {
            case .delete:
                writer.raw(",\"id\":")
                writer.write(id)
            case .reload:
                break
            case .insert, .update, .move:
                if let cell {
                    writer.raw(",\"item\":")
                    cell.write(to: &writer)
                }
                if let placement {
                    writer.raw(",\"section\":")
                    writer.write(placement.section)
                    writer.raw(",\"section_after\":")
                    writer.write(placement.sectionAfter)
                    writer.raw(",\"after\":")
                    writer.write(placement.after)
                }
            }
            writer.raw("}")
        }

        /// The change object as JSON bytes (an event's `data`).
        public func json() -> [UInt8] {
            var writer = JSONWriter(capacity: 256 + (cell?.dataJSON.count ?? 0))
            write(to: &writer)
            return writer.bytes
        }
    }

    /// The list's name.
    public let list: String
    /// The view's name.
    public let view: String
    /// The version the client asked changes since.
    public let since: Int64
    /// The source's version when the changes were read.
    public let version: Int64
    /// The changes, in version order.
    public let entries: [Entry]
    /// When more changes follow than the answer holds: the `since` that continues it.
    public let next: Int64?

    /// Creates a change set.
    public init(list: String, view: String, since: Int64, version: Int64, entries: [Entry], next: Int64?) {
        self.list = list
        self.view = view
        self.since = since
        self.version = version
        self.entries = entries
        self.next = next
    }

    /// The answer as JSON: `list`, `view`, `since`, `version`, `changes`, `next`.
    public func json() -> [UInt8] {
        var writer = JSONWriter(capacity: 128 + entries.count * 256)
        writer.openAnswer(list: list, view: view)
        writer.raw(",\"since\":")
        writer.write(String(since))
        writer.raw(",\"version\":")
        writer.write(String(version))
        writer.raw(",\"changes\":[")
        for (index, entry) in entries.enumerated() {
            writer.separator(index)
            entry.write(to: &writer)
        }
        writer.raw("],\"next\":")
        writer.write(next.map { String($0) })
        writer.raw("}")
        return writer.bytes
    }
}
