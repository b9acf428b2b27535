import DataMediator
import DataMediatorSQL
import DataMediatorTesting
import Foundation
import GRDB
import Testing

@testable import DataMediatorSQLite

/// One version for the whole store: every write raises it by one, every list over the
/// store reports it, and a list that cannot say which item changed reloads only when a
/// table it reads was written.
@Suite struct StoreVersionTests {
    static let signer = CursorSigner(secret: SampleList.secret)

    static func notes(_ name: String) -> ListDefinition {
        ListDefinition(
            name: name,
            title: name,
            idField: "id",
            revisionField: "rev",
            views: [
                View(name: "all", sort: [SortKey("title")], idField: "id", cellType: .fixed("n"), fields: ["title"])
            ],
            isWritable: true,
            rules: FieldRules(types: ["title": .string])
        )
    }

    /// The adapter of a writable notes list over table `name` of the fixture's store.
    static func notes(_ name: String, in fixture: SQLiteFixture) throws -> ListAdapter {
        try fixture.store.adapter(
            for: notes(name),
            source: StoreSource(kind: .table(name), fieldTypes: ["id": .integer, "title": .string]),
            signer: signer
        )
    }

    static func body(_ title: String) -> JSONValue { .object(["data": .object(["title": .string(title)])]) }

    @Test func aPageCarriesTheStoreVersionOfItsReadWithItemsOrWithout() async throws {
        let fixture = try SQLiteFixture(items: [])
        let a = try Self.notes("a", in: fixture)
        let b = try Self.notes("b", in: fixture)
        for title in ["one", "two", "three"] { _ = try await a.create(body: Self.body(title)) }
        _ = try await b.create(body: Self.body("elsewhere"))
        let store = try await fixture.store.version()
        #expect(store == 4)
        // A page with items reads its version in the same statement as its items...
        let first = try await a.page(view: nil, limit: "2", cursor: nil)
        #expect(first.version == store && first.next != nil)
        // ...a last page, and an empty list's page, read it on their own.
        let last = try await a.page(view: nil, limit: "2", cursor: first.next)
        #expect(last.version == store && last.next == nil)
        let c = try Self.notes("c", in: fixture)
        #expect(try await c.page(view: nil, limit: nil, cursor: nil).version == store)
        _ = try await b.create(body: Self.body("later"))
        #expect(try await a.page(view: nil, limit: "2", cursor: nil).version == store + 1)
    }

    @Test func everyListOfAStoreSharesItsVersionAndQueriesReloadOnlyForTheirTables() async throws {
        let fixture = try SQLiteFixture(items: [])
        let a = try Self.notes("a", in: fixture)
        let b = try Self.notes("b", in: fixture)
        let countA = ListDefinition(
            name: "count_a",
            title: "Count",
            idField: "n",
            views: [View(name: "all", sort: [SortKey("n")], idField: "n", cellType: .fixed("c"), fields: [])]
        )
        let counts = try fixture.store.adapter(
            for: countA,
            source: StoreSource(
                kind: .query("SELECT COUNT(*) AS n FROM a"),
                fieldTypes: ["n": .integer],
                versionTables: ["a"]
            ),
            signer: Self.signer
        )
        _ = try await a.create(body: Self.body("one"))
        _ = try await b.create(body: Self.body("two"))
        _ = try await b.create(body: Self.body("three"))
        // Three writes to two tables: the store, and every list over it, is at version 3.
        for adapter in [a, b, counts] {
            #expect(try await adapter.page(view: nil, limit: nil, cursor: nil).version == 3)
        }
        // Each change carries the store's version of its write.
        #expect(try await a.changes(view: nil, since: "0", limit: nil).entries.map(\.version) == [1])
        #expect(try await b.changes(view: nil, since: "0", limit: nil).entries.map(\.version) == [2, 3])
        // The query over `a` reloads for the write to `a` (version 1), not for those to `b`.
        let reload = try await counts.changes(view: nil, since: "0", limit: nil)
        #expect(reload.entries.map(\.operation) == [.reload] && reload.entries.map(\.version) == [1])
        #expect(try await counts.changes(view: nil, since: "1", limit: nil).entries.isEmpty)
        await #expect(throws: DataMediatorError.self) {
            _ = try await counts.changes(view: nil, since: "4", limit: nil)
        }
        // A query that names no tables in `versions` reloads for a write to any (it said
        // nothing for ever: API.md's feed of a query list says `reload` when its sources
        // moved, and which they are is not known).
        let unnamed = try fixture.store.adapter(
            for: ListDefinition(
                name: "count_any",
                title: "Count",
                idField: "n",
                views: countA.views
            ),
            source: StoreSource(kind: .query("SELECT COUNT(*) AS n FROM a"), fieldTypes: ["n": .integer]),
            signer: Self.signer
        )
        let any = try await unnamed.changes(view: nil, since: "1", limit: nil)
        #expect(any.entries.map(\.operation) == [.reload] && any.entries.map(\.version) == [3])
        #expect(try await unnamed.changes(view: nil, since: "3", limit: nil).entries.isEmpty)
    }

    @Test func aStoreFromBeforeStoreWideVersionsRestartsItsHistory() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("dm-old-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("store.sqlite").path
        // The tables as an earlier version left them: per-table versions, a change logged.
        let queue = try DatabaseQueue(path: path)
        try await queue.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE data_mediator_versions (source TEXT PRIMARY KEY NOT NULL, version INTEGER NOT NULL DEFAULT 0);
                    INSERT INTO data_mediator_versions VALUES ('a', 5), ('b', 7);
                    CREATE TABLE data_mediator_changes (list TEXT NOT NULL, view TEXT NOT NULL, version INTEGER NOT NULL,
                        op TEXT NOT NULL, item_id TEXT NOT NULL, item TEXT, section TEXT, section_after TEXT, after TEXT,
                        PRIMARY KEY (list, view, version)) WITHOUT ROWID;
                    INSERT INTO data_mediator_changes VALUES ('a', 'all', 5, 'delete', '1', NULL, NULL, NULL, NULL);
                    CREATE TABLE data_mediator_history (list TEXT PRIMARY KEY NOT NULL, floor INTEGER NOT NULL);
                    INSERT INTO data_mediator_history VALUES ('a', 0);
                    """
            )
        }
        try queue.close()
        let store = try SQLiteStore(path: path)
        let a = try store.adapter(
            for: Self.notes("a"),
            source: StoreSource(kind: .table("a"), fieldTypes: ["id": .integer, "title": .string]),
            signer: Self.signer
        )
        // The store is at 5 + 7 = 12; the log starts there, so older versions are gone.
        #expect(try await a.currentVersion() == 12)
        let gone = await #expect(throws: DataMediatorError.self) {
            _ = try await a.changes(view: nil, since: "4", limit: nil)
        }
        #expect(gone?.code == .historyGone)
        _ = try await a.create(body: Self.body("new"))
        let changes = try await a.changes(view: nil, since: "12", limit: nil)
        #expect(changes.entries.map(\.operation) == [.insert] && changes.entries.map(\.version) == [13])
    }
}
