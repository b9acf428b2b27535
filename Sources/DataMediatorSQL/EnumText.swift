/// The text of a PostgreSQL enum column as the service shows, compares and orders it: its
/// label, in byte order (not the enum's declared order, which the core cannot know; a view
/// that wants that order sorts by a column that holds it).
///
/// The text is one function the store creates (``functions``), declared `IMMUTABLE`
/// so that a view's index can hold it: an enum's cast to text is only `STABLE`, since a
/// label can be renamed (`ALTER TYPE ... RENAME VALUE`; reindex the list's table after
/// one, or its views' indexes keep the old label's place).
public enum EnumText {
    /// The name of the function that gives an enum value's label.
    public static let function = "data_mediator_enum_text"

    /// The label of the enum column `field`, as SQL.
    public static func form(of field: String) -> String {
        "\(function)(\(SQL.quote(field)))"
    }

    /// The statement that makes the function (``TextFunction``), one for every enum type.
    public static let functions = [TextFunction.statement(function, "anyenum", "CAST($1 AS text)")]
}
