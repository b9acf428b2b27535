import DataMediator

/// The keys under which a list's change log holds each view's changes (``LoggedViews``):
/// what places an item in the view and picks its slices, so that replicas serving the list
/// otherwise never read each other's changes as their own.
///
/// A key is the view's cursor binding (its name, a slice's digest, and a digest of its
/// order, section rule and filter), then a digest of what else a logged change depends
/// on: the list's table and the columns a logged item carries (in any order), the fields
/// the view's parameters and the list's scope slice it by (a slice's digest is of field
/// values, so a parameter moved to another field would name other slices).
public struct LoggedViewKeys: Sendable {
    private let table: String
    private let columns: [JSONValue]
    private let scope: JSONValue

    /// The keys of `list`'s views over `table`, whose items carry `columns`.
    public init(list: ListDefinition, table: String, columns: [String]) {
        self.table = table
        self.columns = Set(columns).sorted().map(JSONValue.string)
        self.scope = list.scope.map { .string($0.field) } ?? .null
    }

    /// The key of `view`'s changes (a slice's own).
    public func key(_ view: View) -> String {
        view.cursorBinding + "." + digest(of: view)
    }

    /// The key `view` is registered by, under which a writer that does not serve it logs
    /// its `reload`s: ``key(_:)`` of the whole view (without a slice's digest), marked
    /// with a leading `*` so that no change of the whole view is read as a slice's.
    public func registeredKey(_ view: View) -> String {
        "*" + view.name + view.cursorBinding.drop { $0 != "@" } + "." + digest(of: view)
    }

    /// What follows a binding of `view` (the whole view's or a slice's) in its key.
    func suffix(of view: View) -> String {
        String(view.cursorBinding.drop { $0 != "@" }) + "." + digest(of: view)
    }

    private func digest(of view: View) -> String {
        let parameters = view.parameters.map { JSONValue.array([.string($0.name), .string($0.field)]) }
        return Slice.digest(of: [
            "table": .string(table), "columns": .array(columns), "scope": scope,
            "parameters": .array(parameters),
        ])
    }
}
