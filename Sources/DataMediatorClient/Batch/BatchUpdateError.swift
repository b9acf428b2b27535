/// A batch that a list view would refuse for the snapshots it is applied to (see
/// ``BatchUpdate/applied(to:dataSource:)``).
public struct BatchUpdateError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What does not add up, naming the path or section.
    public let description: String

    init(_ description: String) {
        self.description = description
    }
}
