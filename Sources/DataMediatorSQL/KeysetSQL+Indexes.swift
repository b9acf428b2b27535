import DataMediator

/// The indexes a view's reads need: one per order and slice, each a range of the view's
/// keyset in view order.
extension KeysetSQL {
    /// The index of a view's order, led by the fields of a slice (`leading`, compared for
    /// equality) when given: its name carries a digest of the view's sort and the leading
    /// fields, so a view whose sort changed gets a fresh index.
    public func indexStatement(for view: View, on table: String, leading: [String] = []) -> String {
        var hash: UInt32 = 2_166_136_261
        for byte in (leading.map(column) + view.sort.map(orderTerm)).joined(separator: ",").utf8 {
            hash = (hash ^ UInt32(byte)) &* 16_777_619
        }
        let digest = String(hash, radix: 16)
        var readable = "dm_\(table)_\(view.name)\(leading.map { "_" + $0 }.joined())"
        // PostgreSQL cuts a name at 63 bytes: the digest must stay in it, or two indexes of
        // a view whose names differ past the cut are one name, and the second is never made.
        while readable.utf8.count + 1 + digest.utf8.count > 63 { readable.removeLast() }
        let name = readable + "_" + digest
        let keys = indexColumns(for: view, leading: leading).map(\.term).joined(separator: ", ")
        return "CREATE INDEX IF NOT EXISTS \(SQL.quote(name)) ON \(SQL.quote(table)) (\(keys))"
    }

    /// The columns of ``indexStatement(for:on:leading:)``'s index, each its field and its
    /// term: the leading fields, then the view's sort keys but those the leading fields fix
    /// (a slice's one value has one order), so that no index holds a column twice.
    public func indexColumns(for view: View, leading: [String] = []) -> [(field: String, term: String)] {
        // A field fixed twice (a parameter on the scope's field) leads once.
        var fixed = Set<String>()
        let leads = leading.filter { fixed.insert($0).inserted }
        return leads.map { ($0, column($0)) }
            + view.sort.filter { !fixed.contains($0.field) }.map { ($0.field, orderTerm($0)) }
    }

    /// Whether an index of `columns` reads each slice `leading` fixes of `view` as one range
    /// in view order: it starts with the leading fields (in any order and direction: they
    /// are compared for equality), then holds the rest of the view's sort keys as its index
    /// would. Such an index makes the view's own needless: every write would keep both.
    public func index(
        _ columns: [(field: String, term: String)],
        serves view: View,
        leading: [String] = []
    ) -> Bool {
        let wanted = indexColumns(for: view, leading: leading)
        let fixed = Set(leading)
        guard columns.count >= wanted.count else { return false }
        return Set(columns.prefix(fixed.count).map(\.field)) == fixed
            && columns[fixed.count..<wanted.count].map(\.term) == wanted[fixed.count...].map(\.term)
    }
}
