/// The bytes one read of a change log may bring into the service: every bound of a change
/// read is otherwise a count (changes an answer, events a batch), while an item's size is
/// its writer's (a body up to the body limit), so 1,000 changes of 1 MB items and the items
/// before them would be read, decoded and encoded at once. A read stops before the first
/// version whose changes would take it past the budget; the first version's changes are
/// always read, however large, so a read never stalls. The read is then cut
/// (``DataMediator/ChangeWindow/isCut``): its answer's `next` continues after it.
public enum ChangeReadBudget {
    /// The budget of one read: the logged items and the items before them, in bytes.
    public static let bytes: Int64 = 4 << 20

    /// The largest version, the bound of a read that is not cut.
    static let uncut = Int64.max

    /// The first version a read of a view's changes after a version leaves out, as a
    /// subquery (nil: none). Its arguments: those of ``ViewChangeReads/bothKeysSQL(where:)``,
    /// the most changes read, then the budget. Sizes are the
    /// ones each write kept with its items (``ChangeItems``), so the items are not read to
    /// be measured; rows an earlier release logged with their items inline are measured by
    /// the items' stored lengths.
    static func firstLeftOutSQL(_ dialect: SQLDialect) -> String {
        func size(_ column: String) -> String {
            switch dialect {
            case .sqlite: "COALESCE(length(CAST(\(column) AS BLOB)), 0)"
            case .postgres: "COALESCE(octet_length(\(column)), 0)"
            }
        }
        return """
            SELECT MIN(version) FROM (
              SELECT version, SUM(bytes) OVER (ORDER BY version ROWS UNBOUNDED PRECEDING) AS total,
                ROW_NUMBER() OVER (ORDER BY version) AS place
              FROM (
                SELECT version, SUM(bytes) AS bytes FROM (
                  SELECT c.version, COALESCE(i.bytes, 0) + \(size("c.item")) + \(size("c.old_item")) AS bytes
                  FROM \(ViewChangeReads.bothKeysSQL()) \(ChangeItems.joinSQL)
                  ORDER BY c.version LIMIT ?
                ) AS logged GROUP BY version
              ) AS per_version
            ) AS running WHERE total > ? AND place > 1
            """
    }
}
