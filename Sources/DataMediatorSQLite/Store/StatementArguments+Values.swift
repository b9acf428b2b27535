import GRDB

extension StatementArguments {
    /// Arguments bound in order from values already in SQLite's types.
    ///
    /// GRDB's `init(_:)` for a sequence of one convertible type maps it through a key path,
    /// which its unspecialized code builds on every call, a cost a page read feels.
    /// Passing the values as existentials takes its closure-based initializer instead.
    init(values: [DatabaseValue]) {
        self.init(values.map { $0 as (any DatabaseValueConvertible)? })
    }
}
