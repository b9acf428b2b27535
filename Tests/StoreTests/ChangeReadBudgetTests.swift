import DataMediator
import DataMediatorSQL
import Testing

/// A read of a SQL store's change log brings at most ``ChangeReadBudget/bytes`` of items
/// (and the items before them) into the service, in whole versions: an answer of large
/// items ends early with `next`, and what follows it is read by the next answer. Every
/// bound of a change read is otherwise a count, while an item's size is its writer's.
@Suite struct ChangeReadBudgetTests {
    /// A title of `bytes` bytes, all `letter`.
    static func title(_ letter: Character, _ bytes: Int) -> JSONValue {
        .string(String(repeating: letter, count: bytes))
    }

    /// The bytes of the titles of an answer's items.
    static func titleBytes(_ entries: [ChangeSet.Entry]) -> Int {
        entries.reduce(0) { total, entry in
            guard case .object(let data) = entry.cell?.data, case .string(let title) = data["title"] else {
                return total
            }
            return total + title.utf8.count
        }
    }

    @Test(arguments: [WritableKind.sqlite, .postgres])
    func largeItemsEndAnAnswerEarlyAndTheNextAnswerGoesOn(kind: WritableKind) async throws {
        let subject = try await WritableSubject(kind)
        let adapter = subject.adapter
        let start = try await adapter.currentVersion()
        let letters = Array("abcdefghij")
        for (index, letter) in letters.enumerated() {
            _ = try await adapter.create(
                body: .object(["id": .string("n\(index)"), "data": .object(["title": Self.title(letter, 600_000)])])
            )
        }
        let first = try await adapter.changes(view: nil, since: String(start), limit: "100")
        // 4 MiB of 600 KB items: 6 whole ones (a 7th would take the read past it), then `next`.
        #expect(first.entries.count == 6)
        #expect(first.next == first.entries.last?.version)
        #expect(Self.titleBytes(first.entries) <= Int(ChangeReadBudget.bytes))
        let all = try await ChangeReplayTests.changes(of: adapter, view: nil, since: start, limit: 100)
        #expect(all.map(\.id) == letters.indices.map { "n\($0)" })
        #expect(all.map(\.operation) == Array(repeating: .insert, count: letters.count))
    }

    @Test(arguments: [WritableKind.sqlite, .postgres])
    func anUpdateCountsTheItemBeforeItToo(kind: WritableKind) async throws {
        let subject = try await WritableSubject(kind)
        let adapter = subject.adapter
        for index in 0..<5 {
            _ = try await adapter.create(
                body: .object(["id": .string("n\(index)"), "data": .object(["title": Self.title("a", 600_000)])])
            )
        }
        let start = try await adapter.currentVersion()
        for index in 0..<5 {
            _ = try await adapter.replace(
                id: "n\(index)",
                body: .object(["data": .object(["title": Self.title("b", 600_000)])])
            )
        }
        // Five updates hold 3 MB of items and 3 MB of items before them: three fit.
        let first = try await adapter.changes(view: nil, since: String(start), limit: "100")
        #expect(first.entries.map(\.id) == ["n0", "n1", "n2"])
        #expect(first.next != nil)
        let rest = try await adapter.changes(view: nil, since: String(try #require(first.next)), limit: "100")
        #expect(rest.entries.map(\.id) == ["n3", "n4"])
        #expect(rest.next == nil)
    }

    @Test(arguments: [WritableKind.sqlite, .postgres])
    func aChangeLargerThanTheBudgetIsStillRead(kind: WritableKind) async throws {
        let subject = try await WritableSubject(kind)
        let adapter = subject.adapter
        let start = try await adapter.currentVersion()
        let bytes = Int(ChangeReadBudget.bytes) + 1_000
        for (id, title) in [
            ("first", Self.title("f", 10)), ("big", Self.title("z", bytes)), ("small", Self.title("s", 10)),
        ] {
            _ = try await adapter.create(body: .object(["id": .string(id), "data": .object(["title": title])]))
        }
        // The small change before it is read without it (with it, the read would pass the
        // budget by a whole large write); it comes alone; then what follows.
        let first = try await adapter.changes(view: nil, since: String(start), limit: "100")
        #expect(first.entries.map(\.id) == ["first"])
        let big = try await adapter.changes(view: nil, since: String(try #require(first.next)), limit: "100")
        #expect(big.entries.map(\.id) == ["big"])
        #expect(Self.titleBytes(big.entries) == bytes)
        let rest = try await adapter.changes(view: nil, since: String(try #require(big.next)), limit: "100")
        #expect(rest.entries.map(\.id) == ["small"])
        #expect(rest.next == nil)
    }

    /// A capped child replays all of its writes since the client's version at once: when its
    /// log cannot give them in one read, the composite answers `reload`, not the writes that
    /// fit.
    @Test func aCappedChildWhoseWritesDoNotFitOneReadIsAReload() async throws {
        let subject = try CompositeChangeTests.Subject()
        let screen = try subject.screen(leftView: "flat", rightView: "flat", rightCap: 3)
        let start = try await screen.currentVersion()
        for index in 0..<8 {
            _ = try await subject.right.create(
                body: .object([
                    "id": .string("r\(index)"),
                    "data": .object(["title": Self.title("r", 600_000), "score": .integer(Int64(index))]),
                ])
            )
        }
        let answer = try await screen.changes(view: nil, since: String(start), limit: nil)
        #expect(answer.entries.map(\.operation) == [.reload])
    }
}
