import DataMediatorClient
import DataMediatorTesting
import Foundation
import Testing

/// A session over a composite, whose one write can be several changes at one version (an
/// item in two children; a capped child's insert, the delete it pushes out and its `more`
/// cell): every one of them is applied, by events and by the changes read between pages.
@Suite(.serialized) struct CompositeSessionTests {
    static let config = """
        store:
          sqlite: notes.sqlite
        lists:
          notes:
            table: notes
            writable: true
            fields:
              id: integer
              title: string
              score: integer
            views:
              top:
                default: true
                sort: [-score, -id]
          board:
            compose:
              - {name: best, list: notes, limit: 3, more: true}
              - {name: all, list: notes}
        """

    /// The service over ``config`` with `count` notes (scores 10, 20, ...).
    static func board(notes count: Int) async throws -> ServerProcess {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("dm-board-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let file = folder.appendingPathComponent("board.yaml")
        try config.write(to: file, atomically: true, encoding: .utf8)
        let server = try await ServerProcess(
            dataDirectory: folder,
            arguments: ["--config", file.path],
            environment: ["DATA_MEDIATOR_WRITE_TOKENS": Live.token, "DATA_MEDIATOR_HEARTBEAT_SECONDS": "1"]
        )
        for index in 1...count {
            try await write(server, "POST", "", #"{"data": {"title": "n\#(index)", "score": \#(index * 10)}}"#)
        }
        return server
    }

    static func write(_ server: ServerProcess, _ method: String, _ path: String, _ body: String? = nil) async throws {
        let answer = try await server.send(
            method,
            "/lists/notes/items\(path)",
            headers: ["Content-Type": "application/json", "Authorization": "Bearer \(Live.token)"],
            body: body
        )
        #expect((200..<300).contains(answer.status), "\(method) \(path): \(answer.status)")
    }

    /// Writes that each reach the capped child: a new best, a rise into the first three, a
    /// fall out of them, a delete of a shown item, and a new item below the cap.
    /// Five writes that move items across the capped child's cap; `after` runs after each.
    static func writesAcrossTheCap(
        _ server: ServerProcess,
        after: @Sendable () async throws -> Void = {}
    ) async throws {
        try await write(server, "POST", "", #"{"data": {"title": "best", "score": 1000}}"#)
        try await after()
        try await write(server, "PATCH", "/2", #"{"data": {"score": 500}}"#)
        try await after()
        try await write(server, "PATCH", "/6", #"{"data": {"score": 1}}"#)
        try await after()
        try await write(server, "DELETE", "/5")
        try await after()
        try await write(server, "POST", "", #"{"data": {"title": "low", "score": 3}}"#)
        try await after()
    }

    /// The composite's version now.
    static func version(of server: ServerProcess) async throws -> Int64 {
        try #require(Int64(try await server.json("/lists/board/items?limit=1")["version"] as? String ?? ""))
    }

    static func configuration() -> ListSessionConfiguration {
        ListSessionConfiguration(list: "board", limit: 4, reconnectDelay: .milliseconds(100))
    }

    /// A fresh walk of the composite, over plain HTTP (``PlainWalk``).
    static func walk(_ server: ServerProcess) async throws -> ListSnapshot {
        try await PlainWalk.snapshot(of: server, list: "board", limit: 4)
    }

    @Test func eventsOfOneWriteAtOneVersionAreAllApplied() async throws {
        let server = try await Self.board(notes: 6)
        defer { server.removeData() }
        let session = ListSession(baseURL: try #require(URL(string: server.base)), configuration: Self.configuration())
        try await session.loadFirstPage()
        while try await session.loadMore() {}
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await session.follow() }
            // Each write's changes reach the stream apart: a stream that reads several of
            // these writes at once is answered one `reload` (a capped child's items moved
            // across its cap, which the composite cannot place item by item), and the
            // session, reloaded, holds its first page only (the full suite's load did so).
            try await Self.writesAcrossTheCap(server) {
                try await Live.wait(for: session, toReach: try await Self.version(of: server))
            }
            group.cancelAll()
        }
        let fresh = try await Self.walk(server)
        let held = await session.snapshot
        #expect(held.sections == fresh.sections)
        #expect(held.version == fresh.version)
        #expect(try await Live.checkUpdates(of: session) > 0)
        #expect(await server.stop() == 0)
    }

    @Test func changesOfOneWriteAtOneVersionReadBetweenPagesAreAllApplied() async throws {
        let server = try await Self.board(notes: 6)
        defer { server.removeData() }
        let session = ListSession(baseURL: try #require(URL(string: server.base)), configuration: Self.configuration())
        try await session.loadFirstPage()
        try await Self.writesAcrossTheCap(server)
        while try await session.loadMore() {}
        let fresh = try await Self.walk(server)
        let held = await session.snapshot
        #expect(held.sections == fresh.sections)
        #expect(held.version == fresh.version)
        #expect(await server.stop() == 0)
    }

    /// A capped child's `more` cell opens its list after the cap: a session of that list
    /// and view, opened at the cell's cursor, pages on to the end and back to the start.
    @Test func aMoreCellOpensItsListAfterTheCap() async throws {
        let server = try await Self.board(notes: 8)
        defer { server.removeData() }
        let base = try #require(URL(string: server.base))
        let board = ListSession(baseURL: base, configuration: Self.configuration())
        try await board.loadFirstPage()
        let more = try #require(await board.snapshot.items.first { $0.type == "more" })
        let list = try #require(more.data["list"]?.stringValue)
        let view = more.data["view"]?.stringValue
        let cursor = try #require(more.data["cursor"]?.stringValue)
        let rest = ListSession(baseURL: base, configuration: ListSessionConfiguration(list: list, view: view, limit: 2))
        try await rest.open(cursor: cursor)
        while try await rest.loadMore() {}
        // Scores 80, 70 and 60 are the three the board shows; the rest follow the cap.
        #expect(await rest.snapshot.items.map(\.id) == ["5", "4", "3", "2", "1"])
        #expect(await rest.snapshot.hasMoreBefore)
        while try await rest.loadEarlier() {}
        #expect(await rest.snapshot.items.map(\.id) == ["8", "7", "6", "5", "4", "3", "2", "1"])
        let other = ListSession(baseURL: base, configuration: ListSessionConfiguration(list: "board"))
        let refused = await #expect(throws: ListClientError.self) { try await other.open(cursor: cursor) }
        #expect(refused?.problem == "cursor-mismatch")
        #expect(await server.stop() == 0)
    }
}
