import DataMediatorPostgres
import DataMediatorSQLite
import DataMediatorTesting
import GRDB
import PostgresNIO
import Testing

@testable import DataMediator
@testable import DataMediatorSQL

/// Replicas of one store that serve a list with other views (a rolling change of the
/// config): a feed is exact over the writes of replicas that serve its view as it does, and
/// answers a `reload` over those of replicas that do not (a view they lack, or one of the
/// same name in another order), rather than nothing or places in the writer's order.
@Suite struct LoggedViewsTests {
    /// The sample list as a newer config serves it: `flat` in the other order and a view
    /// `by_title` the older one lacks; `by_group`, `by_day` and `positive` as they were.
    static func newerDefinition() -> ListDefinition {
        let old = WritableSubject.definition("notes", title: "Notes")
        var views = old.views.map { view in
            guard view.name == "flat" else { return view }
            return View(
                name: "flat",
                sort: [SortKey("score", .descending)],
                idField: "id",
                cellType: .fixed("row"),
                fields: ["title", "score"]
            )
        }
        views.append(
            View(name: "by_title", sort: [SortKey("title")], idField: "id", cellType: .fixed("row"), fields: ["title"])
        )
        return Self.definition(views: views)
    }

    /// The operations of `view`'s changes since `since` through `adapter`.
    static func operations(_ adapter: ListAdapter, _ view: String, since: Int64) async throws -> [Change.Operation] {
        try await adapter.changes(view: view, since: String(since), limit: nil).entries.map(\.operation)
    }

    /// Whether replaying `view`'s changes since a walk of it at `since` (`walked`) through
    /// `adapter` reaches a fresh walk, with no `reload` among them.
    static func expectExact(
        _ adapter: ListAdapter,
        _ view: String,
        walked: ListReplica,
        since: Int64,
        _ label: String
    ) async throws {
        var replica = walked
        let changes = try await adapter.changes(view: view, since: String(since), limit: nil)
        #expect(!changes.entries.isEmpty, "\(label): no change")
        #expect(!changes.entries.contains { $0.operation == .reload }, "\(label): a reload")
        for entry in changes.entries { replica.apply(entry) }
        let fresh = try await ChangeReplayTests.replica(of: adapter, view: view, limit: 50)
        #expect(replica.outline == fresh.outline, "\(label): the replayed view is not the fresh one")
    }

    @Test(
        "replicas with other views: a feed is exact over writers that share its view and a reload over the others",
        arguments: [WritableKind.sqlite, .postgres]
    )
    func replicasWithOtherViews(kind: WritableKind) async throws {
        let subject = try await WritableSubject(kind)
        let older = subject.adapter
        var mix = WriteMix(seed: 31)
        try await mix.create(40, through: older)
        let registeredBefore = try await older.currentVersion()
        let replica = try #require(try await subject.replica(Self.newerDefinition()))
        defer { withExtendedLifetime(replica) {} }
        let newer = replica.adapter

        // The older replica writes: the newer one's shared views replay exactly; its view
        // in another order and its new view answer a reload at the first write.
        var since = try await newer.currentVersion()
        var walkedByGroup = try await ChangeReplayTests.replica(of: newer, view: "by_group", limit: 50)
        for _ in 0..<6 { try await mix.step(older) }
        try await Self.expectExact(newer, "by_group", walked: walkedByGroup, since: since, "newer by_group")
        for view in ["flat", "by_title"] {
            let changes = try await newer.changes(view: view, since: String(since), limit: nil).entries
            #expect(changes.map(\.operation) == [.reload], "newer \(view)")
            #expect(changes.first?.version == since + 1, "newer \(view): not at the first write")
        }

        // The newer replica writes: the older one's `flat` (the other order) reloads, its
        // shared views replay exactly; the newer one's own views are exact too.
        since = try await older.currentVersion()
        walkedByGroup = try await ChangeReplayTests.replica(of: older, view: "by_group", limit: 50)
        let walkedTitles = try await ChangeReplayTests.replica(of: newer, view: "by_title", limit: 50)
        let walkedNewFlat = try await ChangeReplayTests.replica(of: newer, view: "flat", limit: 50)
        for _ in 0..<6 { try await mix.step(newer) }
        #expect(try await Self.operations(older, "flat", since: since) == [.reload], "older flat")
        try await Self.expectExact(older, "by_group", walked: walkedByGroup, since: since, "older by_group")
        try await Self.expectExact(newer, "by_title", walked: walkedTitles, since: since, "newer by_title")
        try await Self.expectExact(newer, "flat", walked: walkedNewFlat, since: since, "newer flat")

        // The older replica's kept outlines are not carried over the newer one's writes to
        // `flat` (placed in another order): every kept answer is still what counting says.
        let provider = try #require(older.provider as? any SQLDataProvider)
        try await OutlineCarryTests.expectKeptAnswersAreCounted(provider, "older after newer writes")

        // A feed of a view from before its first registration: the log may lack its
        // changes there, so one reload at the version it was registered at.
        let early = try await newer.changes(view: "by_title", since: String(registeredBefore - 1), limit: nil).entries
        #expect(early.map(\.operation) == [.reload])
        #expect(early.first?.version == registeredBefore)
    }

    @Test(
        "a view whose definition changed answers a feed from its pages' version one reload",
        arguments: [WritableKind.sqlite, .postgres]
    )
    func aChangedViewReloadsAFeedFromItsPagesVersion(kind: WritableKind) async throws {
        let subject = try await WritableSubject(kind)
        var mix = WriteMix(seed: 33)
        try await mix.create(5, through: subject.adapter)
        // A client read `flat`'s pages at `read`; the next start serves `flat` in the other
        // order (review 110 #2: a feed from `read` answered nothing, then changes placed in
        // the new order).
        let read = try await subject.adapter.page(view: "flat", limit: "50", cursor: nil).version
        let newer = try #require(try await subject.replica(Self.newerDefinition()))
        defer { withExtendedLifetime(newer) {} }
        let changed = try await newer.adapter.changes(view: "flat", since: String(read), limit: nil)
        #expect(changed.entries.map(\.operation) == [.reload])
        // A view as it was goes on; a feed from the reload's version has nothing to reload.
        #expect(try await newer.adapter.changes(view: "by_group", since: String(read), limit: nil).entries.isEmpty)
        let after = try await newer.adapter.changes(view: "flat", since: String(changed.version), limit: nil)
        #expect(after.entries.isEmpty)
        // Starting again with the same definition raises nothing.
        let again = try #require(try await subject.replica(Self.newerDefinition()))
        defer { withExtendedLifetime(again) {} }
        #expect(try await again.adapter.currentVersion() == changed.version)
        // Changed back (review 114 #1: the older key was still registered, and raised nothing):
        // a feed from the newer pages' version reloads, and a renewal raises nothing.
        let newerRead = try await again.adapter.page(view: "flat", limit: "50", cursor: nil).version
        let back = try #require(try await subject.replica())
        defer { withExtendedLifetime(back) {} }
        let rolledBack = try await back.adapter.changes(view: "flat", since: String(newerRead), limit: nil)
        #expect(rolledBack.entries.map(\.operation) == [.reload])
        // The newer replica's renewal (its key now registered before the older one's) raises
        // nothing: a start would.
        let changeLog = try #require(again.adapter.changeLog as? SQLChangeLog)
        try await changeLog.register()
        #expect(try await back.adapter.currentVersion() == rolledBack.version)
    }

    @Test(
        "a view no replica registered for a day stops costing writes a reload",
        arguments: [WritableKind.sqlite, .postgres]
    )
    func aViewNobodyServesIsForgotten(kind: WritableKind) async throws {
        let subject = try await WritableSubject(kind)
        var mix = WriteMix(seed: 32)
        try await mix.create(5, through: subject.adapter)
        let newer = try #require(try await subject.replica(Self.newerDefinition()))
        defer { withExtendedLifetime(newer) {} }
        try await mix.step(subject.adapter)
        #expect(try await Self.reloadsOfByTitle(subject) == 1)
        // The newer replica is gone: its keys were last registered over a day ago, and the
        // next start of a replica forgets them.
        try await subject.writeBehindTheServicesBack(
            "UPDATE \(LoggedViews.table) SET seen_at = seen_at - 90000 WHERE view LIKE '*by\\_title@%' ESCAPE '\\'"
        )
        let restarted = try #require(try await subject.replica())
        defer { withExtendedLifetime(restarted) {} }
        try await mix.step(subject.adapter)
        #expect(try await Self.reloadsOfByTitle(subject) == 1, "a write after the start logged a reload for it")
    }

    @Test(
        "a replica keeping a shorter history does not trim what another replica's clients may ask for",
        arguments: [WritableKind.sqlite, .postgres]
    )
    func aShorterHistoryDoesNotTrimALongerOnes(kind: WritableKind) async throws {
        let subject = try await WritableSubject(kind)
        var mix = WriteMix(seed: 33)
        try await mix.create(5, through: subject.adapter)
        let short = try #require(
            try await subject.replica(WritableSubject.definition("notes", title: "Notes", history: 3))
        )
        defer { withExtendedLifetime(short) {} }
        let since = try await subject.adapter.currentVersion()
        for _ in 0..<10 { try await mix.step(short.adapter) }
        // The longer history's feed has all ten; the shorter's list is served from the same
        // log, so its own clients get them too.
        for adapter in [subject.adapter, short.adapter] {
            let changes = try await adapter.changes(view: "by_group", since: String(since), limit: nil).entries
            #expect(changes.count == 10 && !changes.contains { $0.operation == .reload }, "\(changes.map(\.operation))")
        }
        // Once no replica with the longer history has registered for a day, the shorter
        // one trims to its own.
        try await subject.writeBehindTheServicesBack(
            "UPDATE data_mediator_logged_histories SET seen_at = seen_at - 90000 WHERE history = 10000"
        )
        let restarted = try #require(
            try await subject.replica(WritableSubject.definition("notes", title: "Notes", history: 3))
        )
        defer { withExtendedLifetime(restarted) {} }
        try await mix.step(short.adapter)
        do {
            _ = try await subject.adapter.changes(view: "by_group", since: String(since), limit: nil)
            Issue.record("changes 11 versions back were kept with no replica keeping more than 3")
        } catch let error as DataMediatorError {
            #expect(error.code == .historyGone)
        }
    }

    /// The sample list with `views` in place of its own, and `scope`.
    static func definition(_ name: String = "notes", views: [View]? = nil, scope: ListScope? = nil) -> ListDefinition {
        let old = WritableSubject.definition(name, title: name, scope: scope)
        return ListDefinition(
            name: old.name,
            title: old.title,
            idField: old.idField,
            revisionField: old.revisionField,
            views: views ?? old.views,
            limits: old.limits,
            isWritable: true,
            rules: old.rules,
            history: old.history,
            scope: scope
        )
    }

    @Test(
        "a slice a parameter picks by another field, and a list of another name over the table, reload",
        arguments: [WritableKind.sqlite, .postgres]
    )
    func slicesByAnotherFieldAndRenamedListsReload(kind: WritableKind) async throws {
        let subject = try await WritableSubject(kind)
        let older = subject.adapter
        var mix = WriteMix(seed: 34)
        try await mix.create(10, through: older)
        // `by_day`'s parameter `kind` over the field `title`: its slices are other items.
        let moved = Self.definition(
            views: older.definition.views.map { view in
                guard view.name == "by_day" else { return view }
                return View(
                    name: "by_day",
                    sort: view.sort,
                    idField: "id",
                    section: view.section,
                    cellType: view.cellType,
                    fields: view.fields,
                    parameters: [ViewParameter(name: "kind", field: "title", type: .string, isRequired: false)]
                )
            }
        )
        let replica = try #require(try await subject.replica(moved))
        defer { withExtendedLifetime(replica) {} }
        var since = try await older.currentVersion()
        // In the newer config's slice `kind=big` (its title is "big"), written by the older.
        _ = try await older.create(
            body: .object([
                "id": .string("x-1"),
                "data": .object([
                    "title": .string("big"), "kind": .string("big"), "created": .string("2026-11-05T10:00:00Z"),
                    "score": .integer(1),
                ]),
            ])
        )
        let big = SliceRequest(parameters: ["kind": ["big"]])
        let sliced = try await replica.adapter.changes(view: "by_day", since: String(since), limit: nil, slice: big)
        #expect(sliced.entries.map(\.operation) == [.reload], "the newer slice's feed")

        // The same list under another name over the same table: each gets the other's
        // writes as a reload.
        let renamed = try #require(try await subject.replica(Self.definition("memos")))
        defer { withExtendedLifetime(renamed) {} }
        since = try await older.currentVersion()
        try await mix.step(older)
        #expect(try await Self.operations(renamed.adapter, "by_group", since: since) == [.reload], "memos")
        since = try await older.currentVersion()
        try await mix.step(renamed.adapter)
        #expect(try await Self.operations(older, "by_group", since: since) == [.reload], "notes")
    }

    @Test(
        "a scoped list whose scope is another field in another config reloads",
        arguments: [WritableKind.sqlite, .postgres]
    )
    func aScopeOverAnotherFieldReloads(kind: WritableKind) async throws {
        let subject = try await WritableSubject(kind, scope: ListScope(field: "group", claim: "sub"))
        let replica = try #require(
            try await subject.replica(Self.definition(scope: ListScope(field: "kind", claim: "sub")))
        )
        defer { withExtendedLifetime(replica) {} }
        let since = try await subject.adapter.currentVersion()
        // Ana's item in both configs' slices of ana (group and kind both "ana").
        _ = try await subject.adapter.create(
            body: .object([
                "id": .string("a-1"),
                "data": .object(["title": .string("t"), "kind": .string("ana"), "score": .integer(1)]),
            ]),
            scope: WriteScope(field: "group", value: .string("ana"))
        )
        let ana = SliceRequest(claims: ["sub": .string("ana")])
        let changes = try await replica.adapter.changes(view: "by_group", since: String(since), limit: nil, slice: ana)
        #expect(changes.entries.map(\.operation) == [.reload])
    }

    /// How many `reload`s the log holds for the newer config's `by_title`.
    static func reloadsOfByTitle(_ subject: WritableSubject) async throws -> Int {
        let sql = """
            SELECT COUNT(*) FROM \(ServiceTables.changes) WHERE op = 'reload' AND view LIKE '*by\\_title@%' ESCAPE '\\'
            """
        if let path = subject.storePath {
            let store = try SQLiteStore(path: path)
            return try await store.database.read { db in try Int.fetchOne(db, sql: sql) ?? -1 }
        }
        let store = try #require(subject.postgresStore)
        for try await count in try await store.primary.query(PostgresQuery(unsafeSQL: sql)).decode(Int.self) {
            return count
        }
        return -1
    }
}
