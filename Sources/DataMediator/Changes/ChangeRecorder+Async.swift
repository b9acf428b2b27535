extension ChangeRecorder {
    /// ``placements(of:withSectionAfter:before:beforeSection:)`` for stores whose reads are
    /// asynchronous (a database reached over the network).
    ///
    /// The placement rules are written once, synchronously: this runs them with reads
    /// answered from what was read so far, and when they ask for something not read yet,
    /// reads it and runs them again. A placement needs a few reads per view, so the rules run
    /// a few times; the reads each happen once.
    public func placements(
        of item: Item?,
        withSectionAfter: Bool,
        before: (_ view: View, _ position: Position, _ limit: Int) async throws -> [Item],
        beforeSection: (_ view: View, _ key: JSONValue) async throws -> Item?
    ) async throws -> [String: Placement] {
        var read = ReadsSoFar()
        while true {
            do {
                return try placements(
                    of: item,
                    withSectionAfter: withSectionAfter,
                    before: { view, position, limit in
                        let key = ReadsSoFar.Before(view: view.binding, position: position, limit: limit)
                        guard let items = read.before[key] else { throw NotReadYet.before(view, position, limit) }
                        return items
                    },
                    beforeSection: { view, key in
                        let read = read.beforeSection[ReadsSoFar.BeforeSection(view: view.binding, key: key)]
                        guard let item = read else { throw NotReadYet.beforeSection(view, key) }
                        return item
                    }
                )
            } catch let missing as NotReadYet {
                switch missing {
                case .before(let view, let position, let limit):
                    let key = ReadsSoFar.Before(view: view.binding, position: position, limit: limit)
                    read.before[key] = try await before(view, position, limit)
                case .beforeSection(let view, let key):
                    read.beforeSection[ReadsSoFar.BeforeSection(view: view.binding, key: key)] = .some(
                        try await beforeSection(view, key)
                    )
                }
            }
        }
    }
}

/// The answers of the reads a placement asked for, by what was asked.
private struct ReadsSoFar {
    struct Before: Hashable {
        let view: String
        let position: Position
        let limit: Int
    }

    struct BeforeSection: Hashable {
        let view: String
        let key: JSONValue
    }

    var before: [Before: [Item]] = [:]
    /// The outer optional is whether it was read; the inner one the answer (nil: none).
    var beforeSection: [BeforeSection: Item?] = [:]
}

/// A read the placement rules asked for that has not been made yet.
private enum NotReadYet: Error {
    case before(View, Position, Int)
    case beforeSection(View, JSONValue)
}
