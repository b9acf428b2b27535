/// Every list the service serves, by name, in declaration order. Built once at start-up.
public struct ListRegistry: Sendable {
    /// The adapters, in declaration order.
    public let adapters: [ListAdapter]
    private let byName: [String: Int]

    /// Creates a registry; a later list with a name already taken is ignored.
    public init(_ adapters: [ListAdapter]) {
        var byName: [String: Int] = [:]
        var kept: [ListAdapter] = []
        for adapter in adapters where byName[adapter.definition.name] == nil {
            byName[adapter.definition.name] = kept.count
            kept.append(adapter)
        }
        self.adapters = kept
        self.byName = byName
    }

    /// The adapter of the list named `name`.
    ///
    /// - Throws: `unknownList`.
    public func adapter(named name: String) throws(DataMediatorError) -> ListAdapter {
        guard let index = byName[name] else {
            throw DataMediatorError(.unknownList, "There is no list '\(name)'; GET /lists names every list.")
        }
        return adapters[index]
    }
}
