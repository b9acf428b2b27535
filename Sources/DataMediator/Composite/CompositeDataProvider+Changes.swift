/// A composite's changes: its children's, merged and given the composite's ids.
extension CompositeDataProvider {
    /// Waits until every child whose items change has caught up with `version` (a child's
    /// store's read replica behind its primary): `stillBehind` when one has not in time,
    /// `caughtUp` when one had to be asked again, `notBehind` when none was behind, and
    /// `independent` when no child reads a store. The children of one store share its wait.
    public func catchUp(to version: Int64) async throws -> CatchUp {
        var outcome = CatchUp.independent
        for child in children where child.changes {
            guard case .list(let adapter, _) = child.content else { continue }
            switch try await adapter.catchUp(to: version) {
            case .stillBehind: return .stillBehind
            case .caughtUp: outcome = .caughtUp
            case .notBehind: if outcome == .independent { outcome = .notBehind }
            case .independent: break
            }
        }
        return outcome
    }

    /// The children's changes after `since`, merged in version order (children in the
    /// composite's order within one version) and given the composite's ids: an item of
    /// child `c` is `c/id` in section `c/section`; a child's first section comes after the
    /// last section of the nearest earlier child that shows one.
    ///
    /// A capped child's changes are what its first items went through
    /// (``cappedChanges(of:since:limit:)``). A change the composite cannot place item by
    /// item (a child that answers `reload`, a capped child whose changes cannot be
    /// replayed or that has more than ``cappedWrites`` of them, a change placed after an
    /// earlier child's sections that changed after it: ``placesMovedSince(_:)``) makes the
    /// answer a single `reload` at the composite's version.
    ///
    /// An earlier child's sections are read as they are when the answer is made, after its
    /// version was read: when one of those children changed since that version, the
    /// answer may name a section of a later version (review 112 #1: a first section placed
    /// after one that only came at the next version), and it is made again, up to
    /// ``placingAttempts`` times, then answered `reload`.
    public func changes(of view: View, since: Int64, limit: Int) async throws -> ChangeWindow {
        var attempts = 0
        while true {
            let (window, placedIn) = try await mergedChanges(of: view, since: since, limit: limit)
            attempts += 1
            guard try await earlierChildrenChanged(after: window.version, before: placedIn) else { return window }
            if attempts == Self.placingAttempts {
                return ChangeWindow(
                    changes: [Change(operation: .reload, version: window.version, id: "", item: nil, placement: nil)],
                    version: window.version
                )
            }
        }
    }

    /// How many times an answer is made while the children its placements read change
    /// under it, before it is a `reload`.
    static var placingAttempts: Int { 3 }

    /// Whether a child before `child` (the last child a change of the answer is placed
    /// after an earlier child's section in) may have changed its last section after
    /// `version`: the sections read to place the answer's changes may then be of a later
    /// version than the answer's. An update moves no item (a move is its own change), and
    /// an insert into a section that is not the child's last now neither made nor emptied
    /// one (review 115 #2: inserts into an earlier child's first section made 72-94
    /// `reload`s in 12 s); a delete or a move may have emptied its last section, and more
    /// changes than ``placingReads`` are taken as changing it.
    private func earlierChildrenChanged(after version: Int64, before child: Int?) async throws -> Bool {
        guard let child, child > 0, try await currentVersion() > version else { return false }
        for earlier in children[..<child] where earlier.changes {
            guard case .list(let adapter, let earlierView) = earlier.content else { continue }
            let changes = try await adapter.changes(of: earlierView, since: version, limit: Self.placingReads)
            if changes.next != nil || changes.entries.contains(where: { ![.update, .insert].contains($0.operation) }) {
                return true
            }
            let inserted = Set(changes.entries.compactMap { $0.placement.map { earlier.name + "/" + $0.section } })
            guard !inserted.isEmpty else { continue }
            // A capped child's insert may push its last shown section out of its cap.
            if earlier.cap != nil { return true }
            let last = try await shownSections(of: earlier).sections.last?.id
            if last.map(inserted.contains) ?? true { return true }
        }
        return false
    }

    /// How many changes of an earlier child are read to tell whether its sections changed.
    static var placingReads: Int { 100 }

    /// The answer of ``changes(of:since:limit:)`` as the children show their sections now,
    /// and the last child one of its changes is placed in (nil when none is).
    private func mergedChanges(
        of view: View,
        since: Int64,
        limit: Int
    ) async throws -> (window: ChangeWindow, placedIn: Int?) {
        let version = try await currentVersion()
        try DataMediatorError.checkHistory(since: since, floor: 0, version: version)
        var merged: [(change: Change, child: Int)] = []
        // A child that has more changes than were read: the merge is whole only up to the
        // last version read from it.
        var complete = Int64.max
        var reload = false
        for (index, child) in children.enumerated() {
            // A child without a change feed (a file list) never changes: it adds nothing, as
            // in `catchUp` (its own version, 0, would refuse every `since` past it).
            guard case .list(let adapter, let childView) = child.content, child.changes else { continue }
            if child.cap != nil {
                // All of the child's writes since `since` are replayed, however few reach its
                // first items: up to ``cappedWrites`` of them, not just the answer's limit.
                let bound = max(limit, Self.cappedWrites)
                guard let capped = try await cappedChanges(of: index, since: since, limit: bound) else {
                    reload = true
                    break
                }
                merged += capped.map { ($0, index) }
                continue
            }
            let changes = try await adapter.changes(of: childView, since: since, limit: max(1, limit))
            if changes.entries.isEmpty { continue }
            if changes.entries.contains(where: { $0.operation == .reload }) {
                reload = true
                break
            }
            if changes.next != nil, let last = changes.entries.last { complete = min(complete, last.version) }
            for entry in changes.entries {
                merged.append((try await translate(entry, of: child, at: index), index))
            }
        }
        if reload {
            return (
                ChangeWindow(
                    changes: [Change(operation: .reload, version: version, id: "", item: nil, placement: nil)],
                    version: version
                ),
                nil
            )
        }
        // The version was read before the children's changes: a write between the two reads
        // would put a change newer than the window's version in it, which a reader resuming
        // from that version would get again, while a write to a child read earlier would be
        // missing below it. Up to the version read first, every child's changes are whole.
        let ordered = merged.filter { $0.change.version <= min(complete, version) }.sorted {
            ($0.change.version, $0.child) < ($1.change.version, $1.child)
        }
        // The changes placed after an earlier child's section (their child's first section),
        // which was read as it is now: a change placed in its own child's sections is not.
        let placedIn = ordered.filter { entry in
            guard entry.child > 0, let placement = entry.change.placement else { return false }
            return placement.sectionAfter?.afterExactPrefix(children[entry.child].name + "/") == nil
        }
        .map(\.child).max()
        if try await placesMovedSince(ordered) {
            return (
                ChangeWindow(
                    changes: [Change(operation: .reload, version: version, id: "", item: nil, placement: nil)],
                    version: version
                ),
                nil
            )
        }
        return (ChangeWindow(changes: ordered.map(\.change), version: version, isCut: complete < version), placedIn)
    }

    /// The most writes of a capped child replayed for one answer: past them the composite
    /// answers `reload` (as a stream that falls 1,000 events behind does).
    static var cappedWrites: Int { 1_000 }

    /// A child's change in the composite's terms.
    private func translate(_ entry: ChangeSet.Entry, of child: CompositeChild, at index: Int) async throws -> Change {
        let prefix = child.name + "/"
        let item = entry.cell.map { cell in
            Self.item(
                ListEntry(
                    cell: cell,
                    sectionID: entry.placement?.section ?? "",
                    sectionTitle: nil,
                    position: Position([])
                ),
                child: child,
                index: index,
                served: 0
            )
        }
        var placement: Placement?
        if let inChild = entry.placement {
            let sectionAfter: String?
            if let before = inChild.sectionAfter {
                sectionAfter = prefix + before
            } else {
                sectionAfter = try await lastSection(before: index)
            }
            placement = Placement(
                section: prefix + inChild.section,
                sectionAfter: sectionAfter,
                after: inChild.after.map { prefix + $0 }
            )
        }
        return Change(
            operation: entry.operation,
            version: entry.version,
            id: prefix + entry.id,
            item: item,
            placement: placement
        )
    }

    /// Whether a change places its section after an earlier child's last section (its
    /// child's first section follows it) that may not have been the last one right after
    /// the change: that section is read as the children show it now (the log keeps no
    /// composite's outline). It is known to have been when every later change of the
    /// children from the named one up to the change's own is an update or brings an item
    /// into the named section, and that section holds more items now than were brought
    /// in since (so it held some then); otherwise the answer is a `reload`.
    func placesMovedSince(_ ordered: [(change: Change, child: Int)]) async throws -> Bool {
        var counts: [ExactText: Int] = [:]
        for (index, entry) in ordered.enumerated() where entry.child > 0 {
            guard let placement = entry.change.placement else { continue }
            let child = entry.child
            // The child whose section it names (none: no earlier child shows one now).
            var named = 0
            if let after = placement.sectionAfter {
                if after.afterExactPrefix(children[child].name + "/") != nil { continue }
                named = children[..<child].lastIndex { after.afterExactPrefix($0.name + "/") != nil } ?? 0
            }
            var broughtIn = 0
            for later in ordered[(index + 1)...]
            where later.change.version > entry.change.version && (named..<child).contains(later.child) {
                switch later.change.operation {
                case .update:
                    continue
                case .insert, .move:
                    guard let section = later.change.placement?.section, section.isExactly(placement.sectionAfter)
                    else {
                        return true
                    }
                    broughtIn += 1
                case .delete, .reload:
                    return true
                }
            }
            guard broughtIn > 0, let after = placement.sectionAfter else { continue }
            if counts[ExactText(after)] == nil {
                let shown = try await shownSections(of: children[named]).sections
                counts[ExactText(after)] = shown.first { $0.id.isExactly(after) }?.count ?? 0
            }
            if counts[ExactText(after)] ?? 0 <= broughtIn { return true }
        }
        return false
    }

    /// The id of the last section the children before `index` show now; nil when none
    /// shows any.
    func lastSection(before index: Int) async throws -> String? {
        for child in children[..<index].reversed() {
            if let last = try await shownSections(of: child).sections.last { return last.id }
        }
        return nil
    }
}
