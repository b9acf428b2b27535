/// A problem with a SQL store (SQLite or PostgreSQL) found at start-up: a missing table or
/// column, a query that does not run, a bad database URL. The message names the list and
/// the fix.
public struct StoreError: Error, Sendable, CustomStringConvertible {
    /// The list concerned, if any.
    public let list: String?
    /// What is wrong and how to fix it.
    public let message: String

    /// Creates an error.
    public init(list: String?, _ message: String) {
        self.list = list
        self.message = message
    }

    /// The message, prefixed with the list's name.
    public var description: String {
        list.map { "list '\($0)': \(message)" } ?? message
    }
}
