import DataMediatorTesting
import Synchronization
import Testing

@testable import DataMediator
@testable import DataMediatorSQL

/// Lookups whose view's outline is kept at the tables' stamp read outside a transaction
/// (``SQLTransactions/readStatements(_:)``: two statements, where a snapshot takes four
/// round trips on a server), and a write that comes between the two is not mixed in.
@Suite struct LookupStatementsTests {
    typealias SQLKind = KeptCountsTests.SQLKind

    /// Places and sections answered from a kept outline open no transaction, and are
    /// what counting gives.
    @Test(arguments: SQLKind.allCases)
    func aKeptOutlineAnswersWithoutATransaction(kind: SQLKind) async throws {
        let (items, subject, watched, reader) = try await Self.watchedStore(kind, count: 600)
        // The store lives as long as the subject.
        defer { withExtendedLifetime(subject) {} }
        for view in [try SampleList.definition.view(named: "by_day"), try SampleList.definition.view(named: "flat")] {
            let order = SampleList.expectedOrder(items, view: view)
            _ = try await reader.outline(of: view)
            watched.snapshots.store(0, ordering: .relaxed)
            for index in stride(from: 0, to: order.count, by: 29) {
                let id = order[index]["id"].idString
                let place = try #require(try await reader.keptLocate(id: id, in: view))
                let counted = try #require(try await reader.locate(id: id, in: view))
                #expect(place.position == index, "\(view.name) \(id)")
                #expect(place.sectionIndex == counted.sectionIndex && place.itemIndex == counted.itemIndex)
            }
            #expect(try await reader.keptLocate(id: "no-such-item", in: view) == nil)
            let counts = try await reader.keptSectionCounts(of: view)
            #expect(counts.entries == (try await reader.sectionCounts(of: view)).entries)
            // The counted answers above opened their own snapshots: one per locate and
            // section count, none for the kept ones.
            let counting = (order.count + 28) / 29 + 1
            #expect(watched.snapshots.load(ordering: .relaxed) == counting, "\(view.name)")
        }
    }

    /// Rows written (past the service) between a kept lookup's item and its count move
    /// the stamp: the lookup is answered in one snapshot instead, where the rows it counts
    /// agree with the item it read.
    @Test(arguments: SQLKind.allCases)
    func aWriteBetweenALookupsStatementsIsNotMixedIn(kind: SQLKind) async throws {
        let (items, subject, watched, reader) = try await Self.watchedStore(kind, count: 300)
        let view = try SampleList.definition.view(named: "flat")
        let order = SampleList.expectedOrder(items, view: view)
        _ = try await reader.outline(of: view)
        // The item before the third mark (at 256): counted from the mark at 128, at most
        // 128 rows; rows inserted after that mark push it past them.
        let target = order[250]
        let more = order[130..<150].map { item in
            var copy = item
            copy["id"] = .string(item["id"].idString + "-copy")
            return copy
        }
        let after = try #require(
            SampleList.expectedOrder(items + more, view: view).firstIndex { $0["id"] == target["id"] }
        )
        try #require(after > 260)
        // The fixtures are used from one task at a time here.
        nonisolated(unsafe) let writer = subject
        watched.between.withLock { $0 = { try await writer.insert(more) } }
        let place = try #require(try await reader.keptLocate(id: target["id"].idString, in: view))
        #expect(watched.between.withLock { $0 == nil }, "the write did not come between the statements")
        #expect(place.position == after)
    }

    /// Around an item of a view of several index ranges: statements outside a
    /// transaction, the rows those of one stamp, each side cut to what was asked.
    @Test(arguments: SQLKind.allCases)
    func aroundAnItemReadsWithoutATransaction(kind: SQLKind) async throws {
        let (items, subject, watched, reader) = try await Self.watchedStore(kind, count: 200)
        defer { withExtendedLifetime(subject) {} }
        let view = try SampleList.definition.view(named: "by_group")
        let order = SampleList.expectedOrder(items, view: view).map { $0["id"].idString }
        for index in stride(from: 0, to: order.count, by: 13) {
            let window = try #require(try await reader.window(of: view, around: order[index], before: 3, from: 5))
            #expect(window.before.map { $0["id"].idString } == order[max(0, index - 3)..<index].reversed())
            #expect(window.from.map { $0["id"].idString } == Array(order[index..<min(order.count, index + 5)]))
        }
        #expect(try await reader.window(of: view, around: "no-such-item", before: 3, from: 5) == nil)
        #expect(watched.snapshots.load(ordering: .relaxed) == 0)
    }

    /// An item written through the service between the item and the rows around it: the
    /// window is read again in one snapshot, so its rows and version agree (a client that
    /// follows the changes after that version sees the write once).
    @Test(arguments: [WritableKind.sqlite, .postgres])
    func aroundAnItemAWriteBetweenIsNotMixedIn(kind: WritableKind) async throws {
        let (subject, provider, watched, reader) = try await Self.watchedWritable(kind, seed: 31, count: 60)
        let view = try SampleList.definition.view(named: "by_group")
        let all = try await provider.reader.window(of: view, from: nil, inclusive: true, limit: 100).items
        let target = try #require(all.dropFirst(20).first { $0["score"].integerValue != nil })
        let score = try #require(target["score"].integerValue)
        // Right before the target: its group, a higher score.
        let data: JSONValue = .object([
            "group": target["group"], "score": .integer(score + 1), "created": .string("2026-11-01T10:00:00Z"),
            "kind": .string("odd"), "title": .string("between"),
        ])
        let adapter = subject.adapter
        watched.between.withLock {
            $0 = { _ = try await adapter.create(body: .object(["id": .string("between"), "data": data])) }
        }
        let id = target["id"].idString
        let window = try #require(try await reader.window(of: view, around: id, before: 3, from: 4))
        #expect(watched.between.withLock { $0 == nil }, "the write did not come between the statements")
        let now = try #require(try await provider.reader.window(of: view, around: id, before: 3, from: 4))
        #expect(window.before.map { $0["id"].idString } == now.before.map { $0["id"].idString })
        #expect(window.before.first?["id"].idString == "between")
        #expect(window.from.map { $0["id"].idString } == now.from.map { $0["id"].idString })
        #expect(window.version == now.version)
    }

    /// A list that cannot say which item changed reads its last change and the store's
    /// version in one statement, outside a transaction: a write through the service right
    /// after it is not half seen (both figures of one snapshot).
    @Test(arguments: [WritableKind.sqlite, .postgres])
    func theLastChangeIsOneStatement(kind: WritableKind) async throws {
        let (subject, provider, watched, reader) = try await Self.watchedWritable(kind, seed: 5, count: 4)
        let version = try await provider.reader.currentVersion()
        let adapter = subject.adapter
        let data: JSONValue = .object([
            "group": .string("g"), "score": .integer(1), "created": .string("2026-11-01T10:00:00Z"),
            "kind": .string("odd"), "title": .string("after"),
        ])
        watched.between.withLock { $0 = { _ = try await adapter.create(body: .object(["data": data])) } }
        let answer = try await reader.lastChange()
        #expect(watched.between.withLock { $0 == nil }, "the write did not run after the statement")
        #expect(answer.lastChange == version && answer.version == version)
        #expect(watched.snapshots.load(ordering: .relaxed) == 0)
        let later = try await reader.lastChange()
        #expect(later.lastChange == version + 1 && later.version == version + 1)
    }
}

extension LookupStatementsTests {
    /// A sample store of `count` items, and its reader through watched transactions.
    static func watchedStore(
        _ kind: SQLKind,
        count: Int
    ) async throws -> ([Item], KeptCountsTests.Subject, WatchedTransactions, SQLListReader) {
        let items = SampleList.items(count: count)
        let subject = try await KeptCountsTests.Subject(kind, items: items)
        let watched = WatchedTransactions(subject.provider.reader.transactions)
        return (items, subject, watched, subject.provider.reader.reading(through: watched))
    }

    /// A writable store with `count` items written through the service, its provider, and
    /// its reader through watched transactions.
    static func watchedWritable(
        _ kind: WritableKind,
        seed: UInt64,
        count: Int
    ) async throws -> (WritableSubject, any SQLDataProvider, WatchedTransactions, SQLListReader) {
        let subject = try await WritableSubject(kind)
        let provider = try #require(subject.adapter.provider as? any SQLDataProvider)
        var mix = WriteMix(seed: seed)
        try await mix.create(count, through: subject.adapter)
        let watched = WatchedTransactions(provider.reader.transactions)
        return (subject, provider, watched, provider.reader.reading(through: watched))
    }
}

/// A store's transactions, with the snapshots opened counted (``read(_:)`` and
/// ``shortRead(_:)``), and a write run after the first statement of the next
/// ``readStatements(_:)``.
final class WatchedTransactions: SQLTransactions {
    let inner: any SQLTransactions
    let snapshots = Atomic<Int>(0)
    let between = Mutex<(@Sendable () async throws -> Void)?>(nil)

    init(_ inner: any SQLTransactions) { self.inner = inner }

    func read<Result: Sendable>(
        _ body: @escaping @Sendable (any SQLSession) async throws -> Result
    ) async throws -> Result {
        snapshots.add(1, ordering: .relaxed)
        return try await inner.read(body)
    }

    func shortRead<Result: Sendable>(
        _ body: @escaping @Sendable (any SQLSession) async throws -> Result
    ) async throws -> Result {
        snapshots.add(1, ordering: .relaxed)
        return try await inner.shortRead(body)
    }

    func readStatements<Result: Sendable>(
        _ body: @escaping @Sendable (any SQLSession) async throws -> Result
    ) async throws -> Result {
        let write = between.withLock { pending in
            defer { pending = nil }
            return pending
        }
        return try await inner.readStatements { session in
            try await body(InterruptedSession(inner: session, write: write))
        }
    }

    func write<Result: Sendable>(
        _ body: @escaping @Sendable (any SQLSession) async throws -> Result
    ) async throws -> Result {
        try await inner.write(body)
    }

    func bulkWrite<Result: Sendable>(_ body: (any SQLSession) async throws -> Result) async throws -> Result {
        try await inner.bulkWrite(body)
    }
}

/// A session that runs `write` (once) after its first statement.
private final class InterruptedSession: SQLSession {
    let inner: any SQLSession
    var write: (@Sendable () async throws -> Void)?

    init(inner: any SQLSession, write: (@Sendable () async throws -> Void)?) {
        self.inner = inner
        self.write = write
    }

    var dialect: SQLDialect { inner.dialect }

    func rows(_ sql: String, _ arguments: [JSONValue]) async throws -> [[JSONValue]] {
        let rows = try await inner.rows(sql, arguments)
        if let write {
            self.write = nil
            try await write()
        }
        return rows
    }

    func execute(_ sql: String, _ arguments: [JSONValue]) async throws {
        try await inner.execute(sql, arguments)
    }
}

extension SQLListReader {
    /// The same reads through `transactions`, with nothing kept yet.
    func reading(through transactions: any SQLTransactions) -> SQLListReader {
        SQLListReader(
            list: listName,
            transactions: transactions,
            viewsAreIndexed: viewsAreIndexed,
            from: from,
            columns: columns,
            idField: idField,
            idIsInteger: idIsInteger,
            idColumnHasIntegerAffinity: idColumnHasIntegerAffinity,
            fieldTypes: fieldTypes,
            keyset: keyset,
            versionTables: versionTables,
            windows: windows
        )
    }
}
