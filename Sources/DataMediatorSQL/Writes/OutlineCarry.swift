import DataMediator

/// What one of the service's writes does to the outlines kept of the lists over its table
/// (``ViewOutline``): the stamps of the table before and after the write, read in the
/// write's transaction, and the row's change as each list reads it. Applied once the write
/// has committed, it carries every outline kept at the stamp before over to the stamp
/// after, so a read after a write places items and counts sections without reading the
/// view's rows again.
struct OutlineCarry: Sendable {
    /// The table's stamp before the write and after it.
    let before: Int64
    let after: Int64
    /// Each list's reader, and the write as that list reads its row.
    let writes: [(reader: SQLListReader, write: OutlineWrite)]

    /// Nothing to carry (a replayed write, which changed nothing).
    static let none = OutlineCarry(before: 0, after: 0, writes: [])

    /// Carries the outlines over; call it after the write committed, never before.
    func apply() {
        for (reader, write) in writes {
            reader.outlines.advance(from: before, to: after) { _, outline in
                carried(outline, write)
            }
        }
    }

    /// `outline`, kept at the stamp before, at the stamp after `write`. A pass asked for at
    /// the stamp before reads in a snapshot of its own, which may begin after the write
    /// committed: its outline holds the write already (applied again, a section would
    /// count an insert twice and every mark after it would be one off, carried on by each
    /// later write), so it is kept as read; one read after a later write still is dropped,
    /// to be read again.
    func carried(_ outline: ViewOutline, _ write: OutlineWrite) -> ViewOutline? {
        switch outline.stamp {
        case before: outline.applying(write, stamp: after)
        case after: outline
        default: nil
        }
    }
}
