import DataMediator
import DataMediatorTesting
import Testing

extension CompositeChangeTests {
    /// A composite of a composite whose two children show the same list (one capped), so
    /// each write is two changes at one version: read in answers of any `limit`, its
    /// changes continue with `next` to the last write (an answer cut short by the inner
    /// composite's merge said `next: null` after the first version, and a stream skipped
    /// the rest).
    @Test(arguments: [1, 2, 3, 5])
    func aNestedCompositesChangesContinueToTheLastWriteAtAnyLimit(limit: Int) async throws {
        let subject = try Subject()
        let view = try subject.left.definition.view(named: "flat")
        let inner = ListAdapter.composite(
            name: "inner",
            title: "Inner",
            children: [
                CompositeChild(name: "a", content: .list(subject.left, view: view)),
                CompositeChild(name: "y", content: .list(subject.left, view: view), cap: 3),
            ],
            signer: subject.signer
        )
        let outer = ListAdapter.composite(
            name: "outer",
            title: "Outer",
            children: [
                CompositeChild(name: "x", content: .list(inner, view: try inner.definition.view(named: nil)))
            ],
            signer: subject.signer
        )
        let start = try await outer.currentVersion()
        for index in 0..<5 {
            let data: JSONValue = .object(["title": .string("n\(index)"), "score": .integer(Int64(index))])
            _ = try await subject.left.replace(id: "n\(index)", body: .object(["data": data]))
        }
        let whole = try await outer.changes(view: nil, since: String(start), limit: nil)
        #expect(whole.next == nil)
        #expect(Set(whole.entries.map(\.version)) == Set((start + 1)...(start + 5)))
        var since = start
        var read: [ChangeSet.Entry] = []
        for _ in 0..<20 {
            let answer = try await outer.changes(view: nil, since: String(since), limit: String(limit))
            read += answer.entries
            guard let next = answer.next else { break }
            #expect(!answer.entries.isEmpty)
            since = next
        }
        #expect(read == whole.entries, "limit \(limit)")
    }
}

extension CompositeChangeTests {
    /// A change placed after an earlier child's last section names it as it was right
    /// after the change: where an earlier child's sections changed since (a later write),
    /// the section before is no longer known and the answer is a reload. It named the
    /// section of now, which did not exist at that version.
    @Test func aSectionPlacedAfterAnEarlierChildsSectionsIsNeverPlacedAfterOneOfLater() async throws {
        let subject = try Subject()
        let view = try subject.left.definition.view(named: "by_group")
        let screen = ListAdapter.composite(
            name: "screen",
            title: "Screen",
            children: [
                CompositeChild(name: "a", content: .list(subject.left, view: view)),
                CompositeChild(name: "b", content: .list(subject.left, view: view)),
            ],
            signer: subject.signer
        )
        let start = try await screen.currentVersion()
        let data: JSONValue = .object(["title": .string("x"), "group": .string("p")])
        _ = try await subject.left.replace(id: "x", body: .object(["data": data]))
        // Read at once, the insert into `b` follows `a`'s section `p`.
        let first = try await screen.changes(view: nil, since: String(start), limit: nil)
        let insert = try #require(first.entries.first { $0.id == "b/x" })
        #expect(insert.placement?.sectionAfter == "a/p")
        _ = try await subject.left.patch(id: "x", body: .object(["data": .object(["group": .string("q")])]))
        // Read after the move: `a/q` did not exist at the insert's version.
        let both = try await screen.changes(view: nil, since: String(start), limit: nil)
        let named = both.entries.first { $0.id == "b/x" && $0.version == start + 1 }?.placement?.sectionAfter
        #expect(named == "a/p" || both.entries.map(\.operation) == [.reload], "\(both.entries)")
        // Read from the first version on, the move alone is exact.
        let after = try await screen.changes(view: nil, since: String(start + 1), limit: nil)
        #expect(after.entries.allSatisfy { $0.operation != .reload })
    }
}

extension CompositeChangeTests {
    /// A capped child that is itself a composite keeps no log of rows to replay: anything
    /// written to it since `since` is one `reload` of the outer composite, as
    /// docs/configuration.md says (its merged changes were replayed as a list's: wrong
    /// deletes, `after: null`, a `more` cell with the wrong cursor). Nothing written to it,
    /// nothing changes.
    @Test func aCappedChildThatIsACompositeAnswersAReloadWhenWritten() async throws {
        let subject = try Subject()
        let view = try subject.left.definition.view(named: "by_group")
        let inner = ListAdapter.composite(
            name: "inner",
            title: "Inner",
            children: [CompositeChild(name: "tg", content: .list(subject.left, view: view))],
            signer: subject.signer
        )
        let outer = ListAdapter.composite(
            name: "outer",
            title: "Outer",
            children: [
                CompositeChild(
                    name: "h",
                    content: .list(inner, view: try inner.definition.view(named: nil)),
                    cap: 2,
                    more: true
                )
            ],
            signer: subject.signer
        )
        let start = try await outer.currentVersion()
        #expect(try await outer.changes(view: nil, since: String(start), limit: nil).entries.isEmpty)
        for (id, group) in [("a", "p"), ("b", "p"), ("c", "q"), ("0", "a")] {
            let data: JSONValue = .object(["title": .string(id), "group": .string(group)])
            _ = try await subject.left.replace(id: id, body: .object(["data": data]))
        }
        let answer = try await outer.changes(view: nil, since: String(start), limit: nil)
        let version = try await outer.currentVersion()
        #expect(answer.entries.map(\.operation) == [.reload], "\(answer.entries)")
        #expect(answer.entries.first?.version == version && answer.next == nil)
        #expect(try await outer.changes(view: nil, since: String(version), limit: nil).entries.isEmpty)
    }
}
