import DataMediatorClient
import DataMediatorTesting
import Foundation
import Synchronization
import Testing

/// A list session against the real binary, while writes go on.
@Suite(.serialized) struct ListSessionLiveTests {
    @Test func aSessionThatPagesWhileHundredsOfWritesGoOnEndsEqualToAFreshWalk() async throws {
        let server = try await Live.demo()
        defer { server.removeData() }
        let before = try await Live.walk(server)
        #expect(before.itemCount == 2000)
        let session = ListSession(baseURL: try #require(URL(string: server.base)), configuration: Live.configuration())
        let ids = before.items.map(\.id)
        let days = try Live.days(of: before)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await Live.randomWrites(300, on: server, ids: ids, days: days, seed: 24) }
            // Three pages of the view while the writes go on.
            try await session.loadFirstPage()
            for _ in 0..<2 {
                try await Task.sleep(for: .milliseconds(150))
                try await session.loadMore()
            }
            try await group.next()
            // Follow the events to the last write, then page to the end while following.
            group.addTask { try await session.follow() }
            try await Live.wait(for: session, toReach: try await Live.version(of: server))
            while try await session.loadMore() {}
            group.cancelAll()
        }
        try await session.catchUp()
        let fresh = try await Live.walk(server)
        let held = await session.snapshot
        #expect(held.sections == fresh.sections)
        #expect(held.itemCount == fresh.itemCount && !held.hasMoreAfter && !held.hasMoreBefore)
        #expect(held.version == fresh.version)
        let updates = try await Live.checkUpdates(of: session)
        #expect(updates > 10)
        let statistics = await session.statistics
        #expect(statistics.changesApplied > 0 && statistics.reloads == 0)
        #expect(await server.stop() == 0)
    }

    @Test func aSessionOpenedAroundAnItemPagesBothWaysWhileWritesGoOnAndEndsEqualToAFreshWalk() async throws {
        let server = try await Live.demo()
        defer { server.removeData() }
        let before = try await Live.walk(server)
        let session = ListSession(baseURL: try #require(URL(string: server.base)), configuration: Live.configuration())
        let ids = before.items.map(\.id)
        let days = try Live.days(of: before)
        try await session.open(around: ids[1000])
        var opened = await session.snapshot
        #expect(opened.hasMoreBefore && opened.hasMoreAfter && opened.item(id: ids[1000]) != nil)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await Live.randomWrites(300, on: server, ids: ids, days: days, seed: 25) }
            group.addTask { try await session.follow() }
            for _ in 0..<3 {
                try await Task.sleep(for: .milliseconds(150))
                try await session.loadEarlier()
                try await session.loadMore()
            }
            try await group.next()
            try await Live.wait(for: session, toReach: try await Live.version(of: server))
            while try await session.loadEarlier() {}
            while try await session.loadMore() {}
            group.cancelAll()
        }
        try await session.catchUp()
        opened = await session.snapshot
        let fresh = try await Live.walk(server)
        #expect(opened.sections == fresh.sections)
        #expect(!opened.hasMoreBefore && !opened.hasMoreAfter)
        _ = try await Live.checkUpdates(of: session)
        #expect(await server.stop() == 0)
    }

    @Test func aDroppedEventStreamResumesWithLastEventIDWithoutLosingOrApplyingAChangeTwice() async throws {
        let server = try await Live.demo(500)
        defer { server.removeData() }
        let before = try await Live.walk(server)
        let transport = CuttingTransport(
            URLSessionTransport(baseURL: try #require(URL(string: server.base))),
            eventsPerStream: 7
        )
        // The whole view, so every change is applied where it lands.
        let session = ListSession(configuration: Live.configuration(limit: 100), transport: transport)
        try await session.loadFirstPage()
        while try await session.loadMore() {}
        let start = await session.snapshot.version
        let writes = 120
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await session.follow() }
            try await Live.randomWrites(
                writes,
                on: server,
                ids: before.items.map(\.id),
                days: try Live.days(of: before),
                seed: 7
            )
            try await Live.wait(for: session, toReach: try await Live.version(of: server))
            group.cancelAll()
        }
        let held = await session.snapshot
        #expect(held.sections == (try await Live.walk(server)).sections)
        // Every write is one change of the view: each applied exactly once.
        let statistics = await session.statistics
        #expect(held.version == start + Int64(writes))
        #expect(statistics.changesApplied == writes)
        #expect(statistics.reconnects >= writes / 7)
        // Each stream after the first resumed at the version before the last event the one
        // before delivered: a version may be several changes (a composite's), so the last
        // one is read whole again, and its change, held already, is skipped.
        let record = transport.record.state.withLock { $0 }
        #expect(record.resumedFrom.first == String(start))
        for (index, resumed) in record.resumedFrom.enumerated().dropFirst() where index * 7 <= record.delivered.count {
            #expect(resumed == String((Int64(record.delivered[index * 7 - 1]) ?? 0) - 1), "stream \(index)")
        }
        var versions: [String] = []
        for id in record.delivered where versions.last != id { versions.append(id) }
        #expect(versions == (start + 1...start + Int64(writes)).map(String.init))
        #expect(statistics.changesSkipped == record.delivered.count - writes)
        _ = try await Live.checkUpdates(of: session)
        #expect(await server.stop() == 0)
    }

    @Test func aSessionWhoseHistoryIsGoneReloadsFromTheFirstPage() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("dm-client-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let config = folder.appendingPathComponent("todos.yaml")
        try """
        store:
          sqlite: todos.sqlite
        lists:
          todos:
            table: todos
            writable: true
            history: 3
            fields:
              id: integer
              title: string
            views:
              all:
                default: true
                sort: [title]
                cell: todo
        """.write(to: config, atomically: true, encoding: .utf8)
        let server = try await ServerProcess(
            dataDirectory: folder,
            arguments: ["--config", config.path],
            environment: ["DATA_MEDIATOR_WRITE_TOKENS": Live.token]
        )
        defer { server.removeData() }
        let headers = ["Content-Type": "application/json", "Authorization": "Bearer \(Live.token)"]
        func create(_ title: String) async throws {
            let body = #"{"data": {"title": "\#(title)"}}"#
            #expect(try await server.send("POST", "/lists/todos/items", headers: headers, body: body).status == 201)
        }
        try await create("a")
        let configuration = ListSessionConfiguration(list: "todos", limit: 2, reconnectDelay: .milliseconds(100))
        let session = ListSession(baseURL: try #require(URL(string: server.base)), configuration: configuration)
        try await session.loadFirstPage()
        for title in ["b", "c", "d", "e", "f"] { try await create(title) }
        // `since` 1 is older than the 3 versions kept: 410, and the session reloads.
        #expect(try await server.get("/lists/todos/changes?since=1").status == 410)
        try await session.catchUp()
        var snapshot = await session.snapshot
        #expect(await session.statistics.reloads == 1)
        #expect(snapshot.version == 6 && snapshot.items.map(\.id) == ["1", "2"] && snapshot.hasMoreAfter)

        // A stream resumed from before the history answers `event: reload`: the session reloads too.
        for title in ["g", "h", "i", "j"] { try await create(title) }
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await session.follow() }
            try await Live.wait(for: session, toReach: 10)
            group.cancelAll()
        }
        snapshot = await session.snapshot
        #expect(await session.statistics.reloads == 2)
        #expect(snapshot.items.map(\.id) == ["1", "2"])
        _ = try await Live.checkUpdates(of: session)
        #expect(await server.stop() == 0)
    }
}
