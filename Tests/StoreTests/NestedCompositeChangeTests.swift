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
