import DataMediator
import DataMediatorSQLite

/// What a config file declares: the store and the lists.
struct ServiceConfiguration: Sendable {
    /// The SQLite file's path, resolved against the config file's folder.
    let sqlitePath: String
    /// The lists, in file order.
    let lists: [ListConfiguration]
}

/// One declared list: its definition for the core, its source for the store, and where
/// it stands in the file (for errors found later, e.g. a missing column).
struct ListConfiguration: Sendable {
    /// The list as the core sees it.
    let definition: ListDefinition
    /// Its table or query.
    let source: SQLiteSource
    /// The line of its declaration.
    let line: Int
}
