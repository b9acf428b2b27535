/// The sequence a PostgreSQL table's integer id column draws from (`serial`, `bigserial`,
/// an identity column), from which the table's other writers take their ids.
///
/// The service takes a new id from it too (or one past the largest id it knows, when
/// that is larger: ``IssuedIDs``), and moves it past every id it writes (an item created
/// with its id, an import), so neither hands out an id the other wrote; a `GENERATED
/// ALWAYS` identity column takes a written id only with `OVERRIDING SYSTEM VALUE`.
public struct IDSequence: Sendable, Hashable {
    /// The sequence's name as PostgreSQL spells it (`pg_get_serial_sequence`: qualified by
    /// its schema, quoted where it must be).
    public let name: String
    /// Whether the column is `GENERATED ALWAYS AS IDENTITY`.
    public let always: Bool

    /// The sequence `name`; `always` for a `GENERATED ALWAYS` identity column.
    public init(name: String, always: Bool) {
        self.name = name
        self.always = always
    }

    /// What an insert that writes the id says before `VALUES`.
    var overriding: String { always ? " OVERRIDING SYSTEM VALUE" : "" }

    /// A `SELECT` of the largest id the sequence has given or will have given once it is
    /// asked for the next (one less than the next, which it takes), or `known`, when that
    /// is larger: one less than a new item's id. A sequence at `maximum` (the id column's
    /// largest value) is not asked: its `nextval` fails.
    func largestSQL(or known: String, maximum: Int64) -> String {
        "SELECT GREATEST(CASE WHEN (SELECT last_value FROM \(name)) < \(maximum) "
            + "THEN nextval(\(SQL.literal(name))) - 1 END, (\(known)))"
    }

    /// A read (lateral, one row or none) that moves the sequence to `id` (a SQL term of a
    /// whole number) when it has not passed it, so its next value is past `id`.
    func advanceSQL(to id: String) -> String {
        "SELECT setval(\(SQL.literal(name)), \(id)) WHERE \(id) >= (SELECT last_value FROM \(name))"
    }
}
