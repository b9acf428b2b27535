import DataMediator

/// A write that the table's own constraints refused (a unique index, a check, a foreign
/// key, `NOT NULL` on a column the list does not require, a trigger that aborts), as the
/// answer a client gets: `conflict` (409) when another row holds a value a unique
/// constraint keeps to one row, `invalidItem` (422) otherwise. Each store tells its errors
/// apart; the write's transaction was rolled back, so nothing of it is stored.
///
/// The detail is the database's message, which names the constraint or the column and
/// never the value (a unique value of another user's item is not told to a client whose
/// slice does not hold it).
public enum ConstraintRefusal {
    /// Another row holds a value that `detail`'s unique constraint keeps to one row.
    public static func unique(_ detail: String) -> DataMediatorError {
        DataMediatorError(.conflict, "Another item holds a value the table keeps unique (\(detail)).")
    }

    /// Another constraint of the table, named by `detail`, refuses the item.
    public static func other(_ detail: String) -> DataMediatorError {
        DataMediatorError(.invalidItem, "A constraint of the table refuses the item (\(detail)).")
    }
}
