extension JSONValue {
    /// This value with a JSON merge patch applied (RFC 7396): an object patch sets each of
    /// its members, removing those it sets to `null`, recursively; any other patch replaces
    /// the value whole.
    public func merging(_ patch: JSONValue) -> JSONValue {
        guard case .object(let changes) = patch else { return patch }
        var members = objectValue ?? [:]
        for (name, change) in changes {
            if change == .null {
                members[name] = nil
            } else {
                members[name] = (members[name] ?? .null).merging(change)
            }
        }
        return .object(members)
    }
}
