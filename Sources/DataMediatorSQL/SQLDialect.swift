/// The differences between the SQL stores that the shared query builders care about.
public enum SQLDialect: Sendable, Hashable {
    /// SQLite: `NULL` sorts first ascending, text compares bytewise, `?` placeholders.
    case sqlite
    /// PostgreSQL: `NULL`s are placed explicitly (`NULLS FIRST` ascending, `NULLS LAST`
    /// descending) and text is compared in the `"C"` collation, so both match SQLite and
    /// ``DataMediator/JSONValue/compare(_:_:)``; placeholders are `$1`, `$2`, ...
    case postgres
}

extension SQLDialect {
    /// Whether a statement's limit is written into its SQL rather than bound: PostgreSQL
    /// plans a prepared statement with a bound limit anew on every run (it cannot price an
    /// unknown limit), so its limits are written in, rounded up
    /// (``WindowQueries/roundedLimit(_:)``) to keep the texts few; SQLite caches statements
    /// by text and plans none per run, so one text serves every limit.
    public var writesLimits: Bool { self == .postgres }
}
