import DataMediator
import DataMediatorTesting
import Foundation
import GRDB
import Testing

@testable import data_mediator

/// A config that `serve` refuses for one list changes nothing in the store for the others:
/// every list is checked before any is prepared, and before the store is opened, so a
/// refused config makes no store file and none of the service's own tables either.
@Suite struct RefusedConfigTests {
    static func config(bad: Bool) -> String {
        """
        store:
          sqlite: store.sqlite
        lists:
          notes:
            table: notes
            writable: true
            revision: rev
            fields: {id: string, title: string}
            views:
              all: {sort: [title], cell: note}
          tasks:
            table: tasks
            fields: {id: integer, text: string}
            views:
              all: {sort: [id], cell: task}
          done:
            \(bad ? "query: SELECT id, text FROM nowhere" : "query: SELECT id, text FROM tasks")
            fields: {id: integer, text: string}
            views:
              all: {sort: [id], cell: task}

        """
    }

    @Test func aRefusedConfigMakesNoTableOrIndexForItsOtherLists() async throws {
        let folder = try FileListTests.Folder(files: ["lists.yaml": Self.config(bad: true)])
        defer { folder.remove() }
        await #expect {
            _ = try await folder.wire()
        } throws: { error in
            let text = "\(error)"
            return text.contains("list 'done'") && text.contains("nowhere") && !text.contains("'notes'")
        }
        let store = folder.url.appendingPathComponent("store.sqlite").path
        #expect(!FileManager.default.fileExists(atPath: store), "the refused start made the store")
        // An existing store is left as it was: not a table of the service's is made in it.
        try await DatabaseQueue(path: store).write { db in try db.execute(sql: "CREATE TABLE kept (id TEXT)") }
        await #expect(throws: (any Error).self) { _ = try await folder.wire() }
        let made = try await DatabaseQueue(path: store).read { db in
            try String.fetchAll(db, sql: "SELECT name FROM sqlite_master")
        }
        #expect(made == ["kept"], "\(made)")

        // The config mended, every list is served, its tables made.
        try Data(Self.config(bad: false).utf8).write(to: folder.url.appendingPathComponent("lists.yaml"))
        let registry = try await folder.wire()
        #expect(registry.adapters.map(\.definition.name) == ["notes", "tasks", "done"])
        let tables = try await DatabaseQueue(path: store).read { db in
            try String.fetchAll(
                db,
                sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name IN ('notes', 'tasks')"
            )
        }
        #expect(Set(tables) == ["notes", "tasks"])
    }

    /// A query list may read the table of a list the config names after it: lists over a
    /// table are prepared first (the query was refused: "no such table: tasks"), and
    /// `GET /lists` keeps the config's order.
    @Test func aQueryListMayReadTheTableOfALaterList() async throws {
        let config = """
            store:
              sqlite: store.sqlite
            lists:
              done:
                query: SELECT id, text FROM tasks
                fields: {id: integer, text: string}
                views:
                  all: {sort: [id], cell: task}
              tasks:
                table: tasks
                writable: true
                fields: {id: integer, text: string}
                views:
                  all: {sort: [id], cell: task}

            """
        let folder = try FileListTests.Folder(files: ["lists.yaml": config])
        defer { folder.remove() }
        let registry = try await folder.wire()
        #expect(registry.adapters.map(\.definition.name) == ["done", "tasks"])
        let tasks = try #require(registry.adapters.last)
        _ = try await tasks.create(body: .object(["id": .integer(1), "data": .object(["text": .string("a")])]))
        let page = try await #require(registry.adapters.first).page(view: "all", limit: "10", cursor: nil)
        #expect(page.sections.flatMap(\.items).map(\.id) == ["1"])
    }
}
