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
        let placed = try await Self.placements(of: [(self, item)], withSectionAfter: withSectionAfter) { asked in
            [try await reads(asked[0])]
        }
        return placed[0]
    }

    /// ``placements(of:withSectionAfter:reads:)`` of several lists' items at once (the lists
    /// over one table, each with its recorder and the written row as it reads it): each
    /// round's reads of every list asked together, `reads` answering each list's in order
    /// (one round trip for all of them, where the store can). Answers each list's
    /// placements, in the order of `items`.
    public static func placements(
        of items: [(recorder: ChangeRecorder, item: Item?)],
        withSectionAfter: Bool,
        reads: ([[PlacementRead]]) async throws -> [[PlacementAnswer]]
    ) async throws -> [[String: Placement]] {
        var read = [ReadsSoFar](repeating: ReadsSoFar(), count: items.count)
        for _ in 0..<Self.maximumPlacementRounds {
            var placed: [[String: Placement]] = []
            var missing: [[PlacementRead]] = []
            for (index, (recorder, item)) in items.enumerated() {
                let round = try recorder.round(of: item, withSectionAfter: withSectionAfter, read: read[index])
                placed.append(round.placements)
                missing.append(round.missing)
            }
            guard missing.contains(where: { !$0.isEmpty }) else { return placed }
            let answers = try await reads(missing)
            guard answers.count == missing.count else {
                throw DataMediatorError(
                    .unavailable,
                    "The store answered \(answers.count) of \(missing.count) lists' reads."
                )
            }
            for index in missing.indices {
                try read[index].take(answers[index], to: missing[index])
            }
        }
        // Rules that keep asking (answers that never place the item: a position that does
        // not equal itself, say) must not hold the write's transaction and a core for ever.
        throw DataMediatorError(
            .unavailable,
            "The written item could not be placed in its views after \(maximumPlacementRounds) rounds of reads; "
                + "nothing was stored."
        )
    }

    /// The most rounds of reads a write's placements take: a placement needs a few reads in
    /// turn (the item before, the section before), far fewer than this.
    static let maximumPlacementRounds = 32

    /// One run of the placement rules of every view `item` is in, with reads answered from
    /// what was read so far: the placements found, and the reads still missing.
    private func round(
        of item: Item?,
        withSectionAfter: Bool,
        read: ReadsSoFar
    ) throws -> (placements: [String: Placement], missing: [PlacementRead]) {
        guard let item else { return ([:], []) }
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
        return (placements, missing)
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

    /// Keeps the `answers` to the reads `asked`, in order.
    mutating func take(
        _ answers: [ChangeRecorder.PlacementAnswer],
        to asked: [ChangeRecorder.PlacementRead]
    ) throws {
        guard answers.count == asked.count else {
            throw DataMediatorError(.unavailable, "The store answered \(answers.count) of \(asked.count) reads.")
        }
        for (read, answer) in zip(asked, answers) {
            switch (read, answer) {
            case (.before(let view, let position, let limit), .items(let items)):
                before[Before(view: view.binding, position: position, limit: limit)] = items
            case (.beforeSection(let view, let key), .item(let item)):
                beforeSection[BeforeSection(view: view.binding, key: key)] = .some(item)
            default:
                throw DataMediatorError(.unavailable, "The store answered a read with another kind of answer.")
            }
        }
    }
}

/// A read the placement rules asked for that has not been made yet.
private struct NotReadYet: Error {
    let read: ChangeRecorder.PlacementRead
}
