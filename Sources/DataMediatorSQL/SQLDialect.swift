/// The differences between the SQL stores that the shared query builders care about.
public enum SQLDialect: Sendable, Hashable {
    /// SQLite: `NULL` sorts first ascending, text compares bytewise, `?` placeholders.
    case sqlite
    /// PostgreSQL: `NULL`s are placed explicitly (`NULLS FIRST` ascending, `NULLS LAST`
    /// descending) and text is compared in the `"C"` collation, so both match SQLite and
    /// ``DataMediator/JSONValue/compare(_:_:)``; placeholders are `$1`, `$2`, ...
    case postgres
}
