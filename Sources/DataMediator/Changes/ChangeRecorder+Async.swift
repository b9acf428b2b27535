extension ChangeRecorder {
    /// A read the placement rules ask a store for.
    public enum PlacementRead: Sendable {
        /// Up to `limit` items of `view` strictly before `position`, nearest first.
        case before(view: View, position: Position, limit: Int)
        /// The last item of `view` before the section with `key`, if any.
        case beforeSection(view: View, key: JSONValue)
    }

    /// A store's answer to a ``PlacementRead``, in kind.
    public enum PlacementAnswer: Sendable {
        /// The items of a `before` read.
        case items([Item])
        /// The item of a `beforeSection` read (nil: none).
        case item(Item?)
    }

    /// ``placements(of:withSectionAfter:before:beforeSection:)`` for stores whose reads are
    /// asynchronous (a database reached over the network), with the reads of every view
    /// asked together.
    ///
    /// The placement rules are written once, synchronously: this runs each view's rules
    /// with reads answered from what was read so far and collects the read each still
    /// needs; `reads` answers them all at once (one round trip, where the store can), in
    /// order, and the rules run again. A placement needs a few reads in turn, so the rules
    /// run a few times; the reads each happen once, and a write asks as many times as its
    /// most demanding view needs reads in turn, not as many as all its views need.
    public func placements(
        of item: Item?,
        withSectionAfter: Bool,
        reads: ([PlacementRead]) async throws -> [PlacementAnswer]
    ) async throws -> [String: Placement] {
        guard let item else { return [:] }
        var read = ReadsSoFar()
        while true {
            var placements: [String: Placement] = [:]
            var missing: [PlacementRead] = []
            for view in slices(of: item) where view.includes(item) {
                do {
                    placements[view.binding] = try Placement.of(
                        item,
                        in: view,
                        idField: idField,
                        withSectionAfter: withSectionAfter,
                        before: { position, limit in
                            let key = ReadsSoFar.Before(view: view.binding, position: position, limit: limit)
                            guard let items = read.before[key] else {
                                throw NotReadYet(read: .before(view: view, position: position, limit: limit))
                            }
                            return items
                        },
                        beforeSection: { key in
                            guard let item = read.beforeSection[ReadsSoFar.BeforeSection(view: view.binding, key: key)]
                            else { throw NotReadYet(read: .beforeSection(view: view, key: key)) }
                            return item
                        }
                    )
                } catch let notRead as NotReadYet {
                    missing.append(notRead.read)
                }
            }
            guard !missing.isEmpty else { return placements }
            let answers = try await reads(missing)
            guard answers.count == missing.count else {
                throw DataMediatorError(.unavailable, "The store answered \(answers.count) of \(missing.count) reads.")
            }
            for (asked, answer) in zip(missing, answers) {
                switch (asked, answer) {
                case (.before(let view, let position, let limit), .items(let items)):
                    read.before[ReadsSoFar.Before(view: view.binding, position: position, limit: limit)] = items
                case (.beforeSection(let view, let key), .item(let item)):
                    read.beforeSection[ReadsSoFar.BeforeSection(view: view.binding, key: key)] = .some(item)
                default:
                    throw DataMediatorError(.unavailable, "The store answered a read with another kind of answer.")
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
private struct NotReadYet: Error {
    let read: ChangeRecorder.PlacementRead
}
