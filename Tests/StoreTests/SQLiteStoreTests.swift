import DataMediator
import DataMediatorSQL
import DataMediatorTesting
import Foundation
import GRDB
import Synchronization
import Testing

@testable import DataMediatorSQLite

/// What only the SQLite store does: index-backed keyset queries, integer ids, query
/// sources, checks at start-up, and the demo data.
@Suite struct SQLiteStoreTests {
    @Test(
        "every page of every view, read forward or backward, is an index seek with no sort, offset or count",
        arguments: SampleList.views + SampleList.views.map(\.reversed)
    )
    func pagesSeekTheViewsIndex(view: View) throws {
        let fixture = try SQLiteFixture()
        let provider = try fixture.provider()
        let items = SampleList.expectedOrder(SampleList.items(), view: view)
        // Positions with a null key and without one, first, middle and last.
        let starts = [nil] + [0, items.count / 2, items.count - 1].map { view.position(of: items[$0]) }
        for start in starts {
            for inclusive in [false, true] {
                for query in provider.reader.windows.queries(of: view, from: start, inclusive: inclusive) {
                    #expect(!query.sql.contains("OFFSET") && !query.sql.contains("COUNT"))
                    // The store's version, read by the same statement, is a scalar subquery
                    // over a table of one row per source table.
                    let plan = try fixture.store.queryPlan(query.sql, query.arguments + [.integer(1)])
                        .filter { !$0.contains("SCALAR SUBQUERY") && !$0.contains(ServiceTables.versions) }
                        .joined(separator: "; ")
                    #expect(plan.contains("USING INDEX") || plan.contains("USING PRIMARY KEY"), "\(plan)")
                    #expect(!plan.contains("TEMP B-TREE"), "\(plan)")
                    // After the first page, every read seeks into an index instead of scanning it.
                    if start != nil {
                        #expect(plan.hasPrefix("SEARCH") && !plan.contains("SCAN"), "\(query.sql): \(plan)")
                    }
                }
            }
        }
    }

    /// An `around` page of a view whose windows are one range is one statement: two seeks
    /// on the view's index from the item's sort keys (found by its id), no sort.
    @Test func anAroundPageOfAOneRangeViewIsOneStatementOfIndexSeeks() throws {
        let fixture = try SQLiteFixture(notNull: ["created"])
        let provider = try fixture.provider()
        let id = SampleList.items()[5]["id"].idString
        let statements = SampleList.views.compactMap { provider.reader.aroundQuery(id: id, in: $0) }
        #expect(!statements.isEmpty, "no view of the sample list is read around an item in one statement")
        for statement in statements {
            #expect(!statement.sql.contains("OFFSET") && !statement.sql.contains("COUNT"))
            let steps = try fixture.store.queryPlan(statement.sql, statement.arguments(before: 3, from: 4))
            // Leave out the compound's own steps (each side's rows handed on as they are read)
            // and the version's subquery over its one-row table.
            let compound =
                ["COMPOUND", "LEFT-MOST", "UNION ALL", "CO-ROUTINE", "SCALAR SUBQUERY", "REUSE"]
                + ["SCAN before_item", "SCAN from_item", "SCAN (subquery"]
            let reads = steps.filter { step in
                !compound.contains { step.hasPrefix($0) } && !step.contains(ServiceTables.versions)
            }
            let plan = reads.joined(separator: "; ")
            #expect(
                reads.filter { $0.contains("USING INDEX") || $0.contains("USING COVERING INDEX") }.count >= 2,
                "\(plan)"
            )
            #expect(reads.allSatisfy { $0.hasPrefix("SEARCH") }, "\(statement.sql): \(plan)")
            #expect(!steps.contains { $0.contains("TEMP B-TREE") }, "\(plan)")
        }
    }

    /// A page read from a cursor reads the item before it with its items, in one statement
    /// of index seeks on both sides of the cursor's position, with no sort, whether the
    /// view's windows are one range or several.
    @Test(
        "a page read from a cursor is one statement of index seeks on both sides of its position",
        arguments: SampleList.views
    )
    func aCursorPageSeeksBothSidesInOneStatement(view: View) throws {
        let fixture = try SQLiteFixture()
        let provider = try fixture.provider()
        let items = SampleList.expectedOrder(SampleList.items(), view: view)
        for index in [0, items.count / 2, items.count - 1] {
            for inclusive in [false, true] {
                let statement = provider.reader.windows.both(
                    of: view,
                    at: view.position(of: items[index]),
                    inclusive: inclusive,
                    before: 1,
                    from: 8,
                    bindingLimits: true
                )
                #expect(!statement.sql.contains("OFFSET") && !statement.sql.contains("COUNT"))
                let steps = try fixture.store.queryPlan(statement.sql, statement.arguments)
                let compound = ["COMPOUND", "LEFT-MOST", "UNION ALL", "CO-ROUTINE", "SCALAR SUBQUERY", "REUSE"]
                let reads = steps.filter { step in
                    !compound.contains { step.hasPrefix($0) } && !step.hasPrefix("SCAN dm_range_")
                        && !step.contains(ServiceTables.versions)
                }
                let plan = reads.joined(separator: "; ")
                #expect(reads.count >= 2, "\(plan)")
                #expect(reads.allSatisfy { $0.hasPrefix("SEARCH") }, "\(statement.sql): \(plan)")
                #expect(!steps.contains { $0.contains("TEMP B-TREE") }, "\(plan)")
            }
        }
    }

    /// Page reads never wait for the reader pool on a thread the rest of the process
    /// needs: many pages at once with lookups that hold readers across awaits finish (a
    /// page that waited for a reader on a cooperative thread once starved them all).
    @Test func manyPagesAndLookupsAtOnceFinish() async throws {
        let fixture = try SQLiteFixture()
        let adapter = try fixture.adapter()
        let ids = SampleList.items().map { $0["id"].idString }
        // A deadlock would stop every cooperative thread, so the watchdog is a plain thread.
        // A deadlock never finishes; the whole suite's tests on two cores have kept these
        // 400 tasks waiting for a thread past two minutes, so the bound is ten.
        let finished = Atomic<Bool>(false)
        let watchdog = Thread {
            Thread.sleep(forTimeInterval: 600)
            if !finished.load(ordering: .relaxed) { fatalError("pages and lookups at once did not finish in 600 s") }
        }
        watchdog.start()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for round in 0..<400 {
                group.addTask {
                    if round.isMultiple(of: 2) {
                        _ = try await adapter.locate(id: ids[round % ids.count], view: nil)
                    } else {
                        let first = try await adapter.page(view: nil, limit: "5", cursor: nil)
                        _ = try await adapter.page(view: nil, limit: "5", cursor: first.next)
                    }
                }
            }
            try await group.waitForAll()
        }
        finished.store(true, ordering: .relaxed)
    }

    @Test func integerIDsAreStringsInJSONAndFoundByTheirString() async throws {
        let fixture = try SQLiteFixture(items: [])
        let list = ListDefinition(
            name: "numbers",
            title: "Numbers",
            idField: "id",
            views: [View(name: "all", sort: [SortKey("id")], idField: "id", cellType: .fixed("n"), fields: ["label"])]
        )
        let source = StoreSource(kind: .table("numbers"), fieldTypes: ["id": .integer, "label": .string])
        let provider = try fixture.store.provider(for: list, source: source)
        try await fixture.store.database.write { db in
            for number in [1, 2, 10, 20, 100] {
                try db.execute(sql: "INSERT INTO numbers (id, label) VALUES (?, ?)", arguments: [number, "n\(number)"])
            }
        }
        let adapter = ListAdapter(definition: list, provider: provider, signer: CursorSigner(secret: SampleList.secret))
        let check = try await SampleList.walk(adapter, view: nil, limit: 2)
        #expect(check.items.map(\.id) == ["1", "2", "10", "20", "100"])
        #expect(check.violations == [])
        #expect(try await adapter.locate(id: "10", view: nil).position == 2)
        for id in ["010", "10.0", "1e1", " 10"] {
            await #expect(throws: DataMediatorError.self) { _ = try await adapter.locate(id: id, view: nil) }
        }
    }

    @Test func aQuerySourceServesAggregatesReadOnly() async throws {
        let fixture = try SQLiteFixture()
        let list = ListDefinition(
            name: "groups",
            title: "Groups",
            idField: "group",
            views: [
                View(
                    name: "biggest",
                    sort: [SortKey("members", .descending), SortKey("group")],
                    idField: "group",
                    cellType: .fixed("g"),
                    fields: ["members"]
                )
            ]
        )
        let source = StoreSource(
            kind: .query(#"SELECT "group", COUNT(*) AS members FROM sample GROUP BY "group""#),
            versionTables: ["sample"]
        )
        let adapter = ListAdapter(
            definition: list,
            provider: try fixture.store.provider(for: list, source: source),
            signer: CursorSigner(secret: SampleList.secret)
        )
        let check = try await SampleList.walk(adapter, view: nil, limit: 2)
        let counts = Dictionary(grouping: SampleList.items(), by: { $0["group"].idString }).mapValues(\.count)
        #expect(check.violations == [])
        #expect(check.items.count == counts.count)
        for item in check.items {
            let expected = counts[item.id].map { JSONValue.integer(Int64($0)) }
            #expect(item.data.objectValue?["members"] == expected, "group \(item.id)")
        }
        let members: [JSONValue] = check.items.map { $0.data.objectValue?["members"] ?? .null }
        #expect(members == members.sorted(by: >))
    }

    @Test func sourcesThatDoNotFitTheListAreRefusedWithTheirName() throws {
        let fixture = try SQLiteFixture()
        let list = ListDefinition(
            name: "broken",
            title: "Broken",
            idField: "id",
            views: [View(name: "v", sort: [SortKey("nonexistent")], idField: "id", cellType: .fixed("x"), fields: [])]
        )
        let missing = #expect(throws: StoreError.self) {
            _ = try fixture.store.provider(for: list, source: SQLiteFixture.source)
        }
        #expect(missing?.description.contains("'nonexistent'") == true)
        #expect(missing?.description.contains("list 'broken'") == true)
        let writing = #expect(throws: StoreError.self) {
            _ = try fixture.store.provider(
                for: list,
                source: StoreSource(kind: .query("DELETE FROM sample RETURNING *"))
            )
        }
        #expect(writing != nil)
        let invalid = #expect(throws: StoreError.self) {
            _ = try fixture.store.provider(for: list, source: StoreSource(kind: .query("SELEC nonsense")))
        }
        #expect(invalid?.description.contains("does not run") == true)
        #expect(
            try fixture.store.database.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM sample") } == 57
        )
    }

    @Test func aStoreInAFolderThatDoesNotExistIsRefusedNamingTheFolder() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("dm-none-\(UUID().uuidString)")
        let refused = #expect(throws: StoreError.self) {
            _ = try SQLiteStore(path: folder.appendingPathComponent("store.sqlite").path)
        }
        #expect(refused?.description.contains("the folder \(folder.path) does not exist") == true, "\(refused as Any)")
        #expect(!FileManager.default.fileExists(atPath: folder.path))
    }

    /// A device named as the store is refused saying so: SQLite's own answer for
    /// `/dev/null` was "disk I/O error". (A folder: SQLiteStoreFileTests.)
    @Test func aStoreThatIsADeviceIsRefusedSayingSo() throws {
        let refused = #expect(throws: StoreError.self) { _ = try SQLiteStore(path: "/dev/null") }
        #expect(refused?.description.contains("at /dev/null: it is not a regular file") == true, "\(refused as Any)")
    }

    @Test func theDemoIsDeterministicAndOrderedByID() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("dm-demo-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var dumps: [[String]] = []
        for name in ["a.sqlite", "b.sqlite"] {
            let path = directory.appendingPathComponent(name).path
            #expect(try DemoData.create(at: path, transactions: 2_000))
            #expect(try !DemoData.create(at: path, transactions: 2_000))
            let queue = try DatabaseQueue(path: path)
            dumps.append(
                try queue.read { db in
                    try String.fetchAll(
                        db,
                        sql:
                            "SELECT id || '|' || player || '|' || points || '|' || created_at FROM transactions ORDER BY id"
                    )
                        + String.fetchAll(
                            db,
                            sql: "SELECT id || '|' || category || '|' || released_on FROM expansions ORDER BY id"
                        )
                }
            )
            let ordered = try queue.read { db in
                try Bool.fetchOne(
                    db,
                    sql:
                        "SELECT COUNT(*) = 0 FROM transactions a JOIN transactions b ON b.id = a.id + 1 WHERE b.created_at <= a.created_at"
                )
            }
            #expect(ordered == true)
            #expect(try queue.read { db in try Int.fetchOne(db, sql: "SELECT MAX(id) FROM transactions") } == 2_000)
        }
        #expect(dumps[0] == dumps[1])
        #expect(dumps[0].count > 2_000)
    }

    /// A store with a writable list `counters` (integer ids, one `label`) and its writer.
    static func counters() throws -> (SQLiteFixture, SQLItemWriter) {
        let fixture = try SQLiteFixture(items: [])
        let list = ListDefinition(
            name: "counters",
            title: "Counters",
            idField: "id",
            revisionField: "rev",
            views: [View(name: "all", sort: [SortKey("id")], idField: "id", cellType: .fixed("c"), fields: ["label"])],
            isWritable: true
        )
        let source = StoreSource(kind: .table("counters"), fieldTypes: ["id": .integer, "label": .string])
        let provider = try fixture.store.provider(for: list, source: source)
        let writer = try #require(
            try SQLListAssembly.writes(
                for: list,
                source: source,
                reader: provider.reader,
                tableWriters: fixture.store.tableWriters
            )
        ).writer
        return (fixture, writer)
    }

    @Test func integerIDsAreChosenByTheStoreAndOthersAreRefused() async throws {
        let (fixture, writer) = try Self.counters()
        defer { withExtendedLifetime(fixture) {} }
        let first = try await writer.insert(id: nil, fields: ["label": .string("a")], idempotency: nil)
        let second = try await writer.insert(id: nil, fields: ["label": .string("b")], idempotency: nil)
        #expect(first.item["id"] == .integer(1) && second.item["id"] == .integer(2))
        #expect(first.item["rev"] == .integer(1) && second.version == 2)
        let error = await #expect(throws: DataMediatorError.self) {
            _ = try await writer.insert(id: "abc", fields: [:], idempotency: nil)
        }
        #expect(error?.code == .invalidItem)
        let missing = await #expect(throws: DataMediatorError.self) { _ = try await writer.delete(id: "abc") }
        #expect(missing?.code == .unknownItem)
        let replaced = try await writer.replace(id: "1", fields: ["label": .string("c")])
        #expect(!replaced.created && replaced.item["rev"] == .integer(2) && replaced.version == 3)
    }

    @Test func anIdempotencyKeyIsHonouredForTwentyFourHoursAndThenForgotten() async throws {
        let (fixture, writer) = try Self.counters()
        let key = IdempotencyKey(key: "k-1", fingerprint: "body-a")
        let first = try await writer.insert(id: nil, fields: ["label": .string("a")], idempotency: key)
        // Stored 23 hours ago: still honoured, the same body replays, another is refused.
        func age(hours: Double) async throws {
            try await fixture.store.database.write { db in
                try db.execute(
                    sql: "UPDATE \(ServiceTables.idempotency) SET created_at = ? WHERE key = 'k-1'",
                    arguments: [Date().timeIntervalSince1970 - hours * 3600]
                )
            }
        }
        try await age(hours: 23)
        let replayed = try await writer.insert(id: nil, fields: ["label": .string("a")], idempotency: key)
        #expect(replayed.replayed && replayed.item == first.item && replayed.version == first.version)
        let reused = await #expect(throws: DataMediatorError.self) {
            _ = try await writer.insert(
                id: nil,
                fields: ["label": .string("b")],
                idempotency: IdempotencyKey(key: "k-1", fingerprint: "body-b")
            )
        }
        #expect(reused?.code == .idempotencyKeyReused)
        // Stored 25 hours ago: forgotten, so the key names a new request.
        try await age(hours: 25)
        let again = try await writer.insert(
            id: nil,
            fields: ["label": .string("b")],
            idempotency: IdempotencyKey(key: "k-1", fingerprint: "body-b")
        )
        #expect(!again.replayed && again.item["id"] == .integer(2))
        let kept = try await fixture.store.database.read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \(ServiceTables.idempotency)")
        }
        #expect(kept == 1)
    }

    @Test func aWritableListNeedsAColumnForEveryDeclaredField() throws {
        let fixture = try SQLiteFixture()
        let list = ListDefinition(
            name: "sample",
            title: "Sample",
            idField: "id",
            revisionField: "rev",
            views: SampleList.views,
            isWritable: true
        )
        let source = StoreSource(
            kind: .table("sample"),
            fieldTypes: SQLiteFixture.source.fieldTypes.merging(["extra": .string]) { $1 }
        )
        let error = #expect(throws: StoreError.self) { _ = try fixture.store.provider(for: list, source: source) }
        #expect(error?.description.contains("'extra'") == true)
    }
}
