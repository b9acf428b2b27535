/// The differences between the SQL stores that the shared query builders care about.
public enum SQLDialect: Sendable, Hashable {
    /// SQLite: `NULL` sorts first ascending, text compares bytewise, `?` placeholders.
    case sqlite
    /// PostgreSQL: `NULL`s are placed explicitly (`NULLS FIRST` ascending, `NULLS LAST`
    /// descending) and text is compared in the `"C"` collation, so both match SQLite and
    /// ``DataMediator/JSONValue/compare(_:_:)``; placeholders are `$1`, `$2`, ...
    case postgres

    /// Whether a statement costs no round trip (SQLite runs in the process): a window of
    /// several index ranges is then read range after range until it is full, which reads
    /// the fewest rows; on a server one statement over every range costs less than a round
    /// trip per range.
    public var statementsAreInProcess: Bool { self == .sqlite }
}
