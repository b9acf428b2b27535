import DataMediatorTesting
import Foundation
import GRDB
import Testing

/// `data-mediator check --store`: every list checked against the store the config names as
/// `serve` checks it at start (here a field over a column of another type, which `check`
/// alone cannot see), with nothing made or changed in the store: no service table, no
/// list's table, no file.
@Suite struct CheckStoreTests {
    static func lists(_ types: String) -> String {
        """
        lists:
          notes:
            table: notes
            fields: {\(types)}
            views: {all: {sort: [id]}}
          later:
            table: made_later
            fields: {x: string}
            views: {all: {sort: [x]}}

        """
    }

    /// The tables (and, on PostgreSQL, the service's functions) the store holds.
    static func held(_ folder: URL, _ target: ImportTests.Target) async throws -> [String] {
        guard let url = target.environment["DATA_MEDIATOR_DATABASE_URL"] else {
            let path = folder.appendingPathComponent("store.sqlite").path
            return try await DatabaseQueue(path: path).read { db in
                try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
            }
        }
        let tables = try await TestDatabase.run(
            "/usr/bin/psql",
            [
                url, "-Atc",
                "SELECT tablename FROM pg_tables WHERE schemaname = 'public' UNION ALL "
                    + "SELECT proname::text FROM pg_proc WHERE proname LIKE 'data\\_mediator%' ORDER BY 1",
            ]
        )
        return tables.output.split(separator: "\n").map(String.init)
    }

    /// Runs `statement` in the target's store (the SQLite file in `folder`, or PostgreSQL).
    static func run(_ statement: String, in folder: URL, _ target: ImportTests.Target) async throws {
        if let url = target.environment["DATA_MEDIATOR_DATABASE_URL"] {
            #expect(try await TestDatabase.run("/usr/bin/psql", [url, "-qc", statement]).status == 0)
        } else {
            try await DatabaseQueue(path: folder.appendingPathComponent("store.sqlite").path).write { db in
                try db.execute(sql: statement)
            }
        }
    }

    @Test(arguments: ImportTests.stores)
    func aFieldOverAColumnOfAnotherTypeIsRefusedAndNothingIsMade(store: String) async throws {
        let target = try await ImportTests.Target.make(store)
        let folder = try ImportTests.folder([:], target)
        defer { try? FileManager.default.removeItem(at: folder) }
        let config = folder.appendingPathComponent("lists.yaml")
        let table = "CREATE TABLE notes (id TEXT PRIMARY KEY, body TEXT, n INTEGER)"
        try await Self.run(table, in: folder, target)
        try Data(("store: \(target.store)\n" + Self.lists("body: integer, n: string")).utf8).write(to: config)
        let before = try await Self.held(folder, target)
        #expect(before == ["notes"])

        let (alone, _) = try await DemoWalkTests.run(["check", config.path], environment: target.environment)
        #expect(alone == 0, "check alone reads only the file")
        let (refused, errors) = try await DemoWalkTests.run(
            ["check", "--store", config.path],
            environment: target.environment.merging(["DATA_MEDIATOR_DATABSE_URL": "postgres://misspelt"]) { $1 }
        )
        #expect(refused == 1)
        // The store is named by the environment's settings: a misspelt one is said.
        #expect(errors.contains("check: warning: DATA_MEDIATOR_DATABSE_URL is not a setting"), "\(errors)")
        #expect(
            errors.contains("lists.yaml:4:1: error: list 'notes': field 'body' (integer) is over a text column"),
            "\(errors)"
        )
        #expect(errors.contains("field 'n' (string) is over an integer column"), "\(errors)")
        #expect(!errors.contains("'later'"), "a missing table is made by serve: \(errors)")
        #expect(try await Self.held(folder, target) == before, "nothing made in the store")
        // serve refuses it so, and makes nothing either: it checks before it makes the
        // service's own tables (they were made, and the stamp function, before the refusal).
        let (served, serving) = try await DemoWalkTests.run(
            [
                "serve", "--config", config.path, "--port", "0",
                "--data-dir", folder.appendingPathComponent("data").path,
            ],
            environment: target.environment
        )
        #expect(served != 0)
        #expect(serving.contains("field 'body' (integer) is over a text column"), "\(serving)")
        #expect(try await Self.held(folder, target) == before, "serve made nothing in the store")
        let data = folder.appendingPathComponent("data").path
        #expect(!FileManager.default.fileExists(atPath: data), "serve made a data folder (and a cursor secret)")

        try Data(("store: \(target.store)\n" + Self.lists("body: string, n: integer")).utf8).write(to: config)
        let (passed, passing) = try await DemoWalkTests.run(
            ["check", "--store", config.path],
            environment: target.environment
        )
        #expect(passed == 0, "\(passing)")
        #expect(try await Self.held(folder, target) == before, "nothing made in the store")
    }

    /// Every problem of a list's source is named at once: a missing column beside fields
    /// over columns of other types (SQLite named the types only; PostgreSQL the missing
    /// column only), and on PostgreSQL a time or array column's field of another type
    /// beside them (named only once the others were mended; probe 81).
    @Test(arguments: ImportTests.stores)
    func everyProblemOfAListsSourceIsNamedAtOnce(store: String) async throws {
        let target = try await ImportTests.Target.make(store)
        let folder = try ImportTests.folder([:], target)
        defer { try? FileManager.default.removeItem(at: folder) }
        let config = folder.appendingPathComponent("lists.yaml")
        var table = "CREATE TABLE notes (id TEXT PRIMARY KEY, body TEXT, n INTEGER"
        var fields = "body: integer, n: string, gone: string"
        var said = [
            "its source has no column 'gone'", "field 'body' (integer) is over a text column",
            "field 'n' (string) is over an integer column",
        ]
        if let url = target.environment["DATA_MEDIATOR_DATABASE_URL"] {
            table += ", day DATE, at TIMESTAMPTZ, tags TEXT[])"
            fields += ", day: number, at: integer, tags: string"
            said += [
                "field 'day' is declared number but its column is a date",
                "field 'at' is declared integer but its column is a timestamptz",
                "field 'tags' is declared string but its column is an array",
            ]
            #expect(try await TestDatabase.run("/usr/bin/psql", [url, "-qc", table]).status == 0)
        } else {
            let created = table + ")"
            try await DatabaseQueue(path: folder.appendingPathComponent("store.sqlite").path).write { db in
                try db.execute(sql: created)
            }
        }
        try Data(("store: \(target.store)\n" + Self.lists(fields)).utf8).write(to: config)
        let (refused, errors) = try await DemoWalkTests.run(
            ["check", "--store", config.path],
            environment: target.environment.merging(["DATA_MEDIATOR_DATABSE_URL": "postgres://misspelt"]) { $1 }
        )
        #expect(refused == 1)
        // The store is named by the environment's settings: a misspelt one is said.
        #expect(errors.contains("check: warning: DATA_MEDIATOR_DATABSE_URL is not a setting"), "\(errors)")
        for problem in said { #expect(errors.contains(problem), "\(problem) in \(errors)") }
    }

    /// A writable list's refusal lists the table's columns as the operator's own tools
    /// show them: not the revision column the start-up added before it read them (and
    /// keeps not, the start being refused; review 92 #7), for it or another list.
    @Test(arguments: ImportTests.stores)
    func aRefusalListsTheColumnsAsTheTableHasThem(store: String) async throws {
        let target = try await ImportTests.Target.make(store)
        let folder = try ImportTests.folder([:], target)
        defer { try? FileManager.default.removeItem(at: folder) }
        let config = folder.appendingPathComponent("lists.yaml")
        let table = "CREATE TABLE notes (id TEXT PRIMARY KEY, title TEXT, extra TEXT)"
        try await Self.run(table, in: folder, target)
        let lists = """
            lists:
              notes:
                table: notes
                writable: true
                fields: {id: string, title: string, n: integer}
                views: {all: {sort: [title]}}

            """
        // Alone, and after another writable list over the table (which added the revision
        // column first: probe 85).
        let first =
            "  first:\n    table: notes\n    writable: true\n    fields: {id: string, title: string}\n"
            + "    views: {all: {sort: [title]}}\n"
        for config in [lists, lists.replacingOccurrences(of: "lists:\n", with: "lists:\n" + first)] {
            try Data(("store: \(target.store)\n" + config).utf8).write(to: folder.appendingPathComponent("lists.yaml"))
            let (refused, errors) = try await DemoWalkTests.run(
                ["check", "--store", folder.appendingPathComponent("lists.yaml").path],
                environment: target.environment
            )
            #expect(refused == 1)
            #expect(errors.contains("its source has no column 'n'; the columns are "), "\(errors)")
            #expect(!errors.contains("'rev'"), "\(errors)")
            for column in ["'id'", "'title'", "'extra'"] { #expect(errors.contains(column), "\(errors)") }
        }
        // Mended, it is one list of one view (it said "1 lists, 1 views").
        let mended = lists.replacingOccurrences(of: "n: integer", with: "extra: string")
        try Data(("store: \(target.store)\n" + mended).utf8).write(to: config)
        let passed = try await DemoWalkTests.said(["check", "--store", config.path], environment: target.environment)
        #expect(passed.status == 0, "\(passed.errors)")
        #expect(passed.output == "\(config.path): ok (1 list, 1 view, checked against the store)\n")
        // A composite is counted as such, not as a list too (probe 85).
        let screen = mended + "  screen:\n    compose:\n      - {name: all, list: notes}\n"
        try Data(("store: \(target.store)\n" + screen).utf8).write(to: config)
        let composed = try await DemoWalkTests.said(["check", config.path], environment: target.environment)
        #expect(composed.output == "\(config.path): ok (1 list, 1 composite, 2 views)\n", "\(composed.errors)")
    }

    /// A PostgreSQL demo refused for a pool larger than its server takes makes no data folder
    /// (nor a cursor secret in it): they are made once the store is known to serve.
    @Test func aPoolThePostgreSQLServerRefusesMakesNoDataFolder() async throws {
        let target = try await ImportTests.Target.make("postgres")
        let folder = try ImportTests.folder([:], target)
        defer { try? FileManager.default.removeItem(at: folder) }
        let data = folder.appendingPathComponent("data").path
        let (served, serving) = try await DemoWalkTests.run(
            ["serve", "--port", "0", "--data-dir", data],
            environment: target.environment.merging(["DATA_MEDIATOR_DATABASE_CONNECTIONS": "1000"]) { $1 }
        )
        #expect(served != 0)
        #expect(serving.contains("DATA_MEDIATOR_DATABASE_CONNECTIONS"), "\(serving)")
        #expect(!FileManager.default.fileExists(atPath: data), "serve made a data folder (and a cursor secret)")
    }

    /// A SQLite store that does not exist yet is checked as serve would make it, and not made.
    @Test func aSQLiteStoreThatDoesNotExistIsNotMade() async throws {
        let target = try await ImportTests.Target.make("sqlite")
        let folder = try ImportTests.folder([:], target)
        defer { try? FileManager.default.removeItem(at: folder) }
        let config = folder.appendingPathComponent("lists.yaml")
        let query =
            "  q:\n    query: SELECT id, nope FROM notes\n    fields: {nope: string}\n    views: {all: {sort: [nope]}}\n"
        try Data(("store: \(target.store)\n" + Self.lists("body: integer") + query).utf8).write(to: config)
        let (status, errors) = try await DemoWalkTests.run(["check", "--store", config.path])
        #expect(status == 1)
        #expect(errors.contains("list 'q': its query does not run: SQLite error 1: no such column: nope"), "\(errors)")
        // One line an error: SQLite's words, not the statement the service wrapped the query in.
        #expect(!errors.contains("LIMIT 0") && errors.split(separator: "\n").count == 1, "\(errors)")
        #expect(!errors.contains("'notes'"), "\(errors)")
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("store.sqlite").path))
    }

    /// A SQLite store serve would refuse to open is refused by `check --store` with serve's
    /// words, and so is a database URL set beside a SQLite store.
    @Test func whatServeRefusesOfTheStoreCheckRefuses() async throws {
        let target = try await ImportTests.Target.make("sqlite")
        let folder = try ImportTests.folder([:], target)
        defer { try? FileManager.default.removeItem(at: folder) }
        let config = folder.appendingPathComponent("lists.yaml")
        for (store, said) in [
            ("/dev/null", "it is not a regular file"), ("nowhere/store.sqlite", "does not exist; make it"),
            (folder.path, "it is a folder"),
        ] {
            try Data(("store: {sqlite: \(store)}\n" + Self.lists("body: string")).utf8).write(to: config)
            let (status, errors) = try await DemoWalkTests.run(["check", "--store", config.path])
            #expect(status == 1 && errors.contains(said), "\(store): \(status) \(errors)")
        }
        try Data(("store: {sqlite: store.sqlite}\n" + Self.lists("body: string")).utf8).write(to: config)
        let (status, errors) = try await DemoWalkTests.run(
            ["check", "--store", config.path],
            environment: ["DATA_MEDIATOR_DATABASE_URL": "postgres://u@127.0.0.1:1/d"]
        )
        #expect(
            status == 1 && errors.contains("DATA_MEDIATOR_DATABASE_URL is set, but the store is SQLite"),
            "\(errors)"
        )
    }

    /// A SQLite store whose one writer another program holds (an import running) is said so,
    /// in the words a write that meets it gets, not SQLite's "database is locked".
    @Test func aSQLiteStoreWhoseWriterIsHeldIsSaidSo() async throws {
        let target = try await ImportTests.Target.make("sqlite")
        let folder = try ImportTests.folder([:], target)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("held.sqlite").path
        var settings = Configuration()
        settings.allowsUnsafeTransactions = true
        let other = try DatabaseQueue(path: path, configuration: settings)
        try await other.writeWithoutTransaction { db in
            try db.execute(sql: "CREATE TABLE notes (id TEXT PRIMARY KEY, body TEXT)")
            try db.execute(sql: "BEGIN IMMEDIATE")
        }
        let config = folder.appendingPathComponent("lists.yaml")
        try Data(("store: {sqlite: \(path)}\n" + Self.lists("body: string")).utf8).write(to: config)
        let (status, errors) = try await DemoWalkTests.run(["check", "--store", config.path])
        try await other.writeWithoutTransaction { db in try db.execute(sql: "COMMIT") }
        #expect(status == 1)
        #expect(errors.contains("another program holds the SQLite store's one writer"), "\(errors)")
        #expect(!errors.contains("database is locked"), "\(errors)")
    }
}
