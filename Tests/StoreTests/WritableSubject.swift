import DataMediator
import DataMediatorPostgres
import DataMediatorSQL
import DataMediatorSQLite
import DataMediatorTesting
import Foundation
import GRDB
import PostgresNIO
import Testing

/// The stores that take writes.
enum WritableKind: String, CaseIterable, CustomTestStringConvertible {
    case memory
    case sqlite
    case postgres

    var testDescription: String { rawValue }
}

/// A writable copy of the sample list over one store.
final class WritableSubject: Sendable {
    static let fields: [String: FieldType] = [
        "id": .string, "group": .string, "score": .integer, "created": .string, "kind": .string, "title": .string,
        "weight": .number,
    ]

    let adapter: ListAdapter
    /// The list, for other replicas of it (``replica()``).
    let definition: ListDefinition
    private let directory: URL?
    /// The SQLite store's file, for writes behind the service's back.
    var storePath: String? { directory?.appendingPathComponent("store.sqlite").path }
    private let postgres: PostgresFixture?
    /// The indexes the store made for its lists (nil for the memory store).
    var tableIndexes: TableIndexes? { sqlite?.indexes ?? postgres?.store.indexes }
    /// The PostgreSQL store, when the subject is one.
    var postgresStore: PostgresStore? { postgres?.store }
    /// The PostgreSQL fixture, when the subject is one (for other replicas over its database).
    var postgresFixture: PostgresFixture? { postgres }

    /// The names of the indexes the service made on `table` (`dm_...`), in order.
    func serviceIndexes(on table: String) async throws -> [String] {
        if let storePath {
            let store = try SQLiteStore(path: storePath)
            return try await store.database.read { db in
                try String.fetchAll(
                    db,
                    sql: """
                        SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = ?
                        AND name LIKE 'dm\\_%' ESCAPE '\\' ORDER BY name
                        """,
                    arguments: [table]
                )
            }
        }
        guard let postgres else { return [] }
        var names: [String] = []
        let rows = try await postgres.store.primary.query(
            "SELECT indexname FROM pg_indexes WHERE tablename = \(table) AND indexname LIKE 'dm\\_%' ORDER BY indexname"
        )
        for try await name in rows.decode(String.self) { names.append(name) }
        return names
    }

    /// Another program's connections to the PostgreSQL store's database (nil for the others).
    func otherProgram() async throws -> PostgresFixture? {
        guard let postgres else { return nil }
        return try await PostgresFixture(sharing: postgres)
    }
    private let sqlite: SQLiteStore?

    /// The fields of the list's table: ids are text, or whole numbers the store chooses
    /// (`integerIDs`, SQL stores only).
    let source: StoreSource

    /// A subject over `kind`; `weighed` adds the view ``weighed`` (each view costs the memory
    /// store a sort per write, so only the tests that read it have it).
    init(
        _ kind: WritableKind,
        history: Int = 10_000,
        scope: ListScope? = nil,
        integerIDs: Bool = false,
        weighed: Bool = false
    ) async throws {
        var fields = Self.fields
        if integerIDs { fields["id"] = .integer }
        let source = StoreSource(kind: .table("notes"), fieldTypes: fields)
        self.source = source
        let definition = Self.definition("notes", title: "Notes", history: history, scope: scope, weighed: weighed)
        self.definition = definition
        let signer = CursorSigner(secret: SampleList.secret)
        switch kind {
        case .memory:
            directory = nil
            postgres = nil
            sqlite = nil
            let store = InMemoryDataProvider(
                definition: definition,
                columns: ["group", "score", "created", "kind", "title", "weight"]
            )
            adapter = ListAdapter(
                definition: definition,
                provider: store,
                signer: signer,
                writer: store,
                changeLog: store
            )
        case .sqlite:
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("dm-changes-\(UUID())")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            self.directory = directory
            postgres = nil
            let store = try SQLiteStore(path: directory.appendingPathComponent("store.sqlite").path)
            sqlite = store
            adapter = try store.adapter(
                for: definition,
                source: source,
                signer: signer
            )
        case .postgres:
            directory = nil
            sqlite = nil
            let fixture = try await PostgresFixture()
            postgres = fixture
            adapter = try await fixture.store.adapter(
                for: definition,
                source: source,
                signer: signer
            )
        }
    }

    deinit { directory.map { try? FileManager.default.removeItem(at: $0) } }

    /// A view that shows ``fields``' number field, `weight`.
    static let weighed = View(
        name: "weighed",
        sort: [SortKey("weight")],
        idField: "id",
        cellType: .fixed("row"),
        fields: ["title", "weight"]
    )

    /// A writable list of the sample views over ``fields`` (and ``weighed`` when asked).
    static func definition(
        _ name: String,
        title: String? = nil,
        history: Int = 10_000,
        scope: ListScope? = nil,
        weighed: Bool = false
    ) -> ListDefinition {
        ListDefinition(
            name: name,
            title: title ?? name,
            idField: "id",
            revisionField: "rev",
            views: SampleList.views + (weighed ? [Self.weighed] : []),
            limits: PageLimits(defaultLimit: 7, maximumLimit: 50),
            isWritable: true,
            rules: FieldRules(types: fields.filter { $0.key != "id" }),
            history: history,
            scope: scope
        )
    }

    /// Another writable list over the same table of the same store, named `name` and
    /// scoped by `scope`, declaring `fields` (the table's by default); nil for the memory
    /// store, whose lists share no table.
    func sibling(
        _ name: String,
        scope: ListScope?,
        fields: [String: FieldType]? = nil
    ) async throws -> ListAdapter? {
        let definition = Self.definition(name, scope: scope)
        let source = fields.map { StoreSource(kind: .table("notes"), fieldTypes: $0) } ?? source
        let signer = CursorSigner(secret: SampleList.secret)
        if let sqlite { return try sqlite.adapter(for: definition, source: source, signer: signer) }
        if let postgres { return try await postgres.store.adapter(for: definition, source: source, signer: signer) }
        return nil
    }

    /// Another replica of the service over the same store: a store and an adapter of its
    /// own (its outlines too), as a second process would have, serving the list as
    /// `definition` says (this one's by default: a replica of another config). Nil for the
    /// memory store.
    func replica(_ definition: ListDefinition? = nil) async throws -> Replica? {
        let definition = definition ?? self.definition
        let signer = CursorSigner(secret: SampleList.secret)
        if let storePath {
            let store = try SQLiteStore(path: storePath)
            return Replica(adapter: try store.adapter(for: definition, source: source, signer: signer), holds: store)
        }
        if let postgres {
            let fixture = try await PostgresFixture(sharing: postgres)
            let adapter = try await fixture.store.adapter(for: definition, source: source, signer: signer)
            return Replica(adapter: adapter, holds: fixture)
        }
        return nil
    }

    /// Runs `sql` on the list's table as another program would, past the service.
    func writeBehindTheServicesBack(_ sql: String) async throws {
        if let storePath {
            let store = try SQLiteStore(path: storePath)
            try await store.database.write { db in try db.execute(sql: sql) }
        }
        if let postgres {
            try await postgres.store.primary.query(PostgresQuery(unsafeSQL: sql))
        }
    }

    /// Why the store cannot serve the list now, as `GET /ready` says (nil when it can; the
    /// memory store always can). On SQLite it waits out the second the store keeps its last
    /// answer for (a store of its own would make the service's tables again).
    func readinessProblem() async throws -> String? {
        if let sqlite {
            try await Task.sleep(for: .milliseconds(1_100))
            let schema = TableSchema(list: definition, source: source, dialect: .sqlite)
            return await sqlite.readinessProblem(checking: SourceCheck([schema]))
        }
        guard let postgres else { return nil }
        let schema = TableSchema(list: definition, source: source, dialect: .postgres)
        return await postgres.store.readinessProblem(checking: SourceCheck([schema]))
    }

    /// An importer into the list's table (SQL stores only).
    func importer() async throws -> SQLImporter {
        let reader: SQLListReader
        if let sqlite {
            reader = try sqlite.provider(for: definition, source: source).reader
        } else if let postgres {
            reader = try await postgres.store.provider(for: definition, source: source).reader
        } else {
            throw FixtureError("the memory store imports no records")
        }
        return try SQLImporter(reader: reader, list: definition, source: source)
    }

    /// A second replica's adapter, and what keeps its store open.
    struct Replica: Sendable {
        let adapter: ListAdapter
        let holds: any Sendable
    }
}

/// Random writes to the sample list: inserts, replaces that move items across sections and
/// in and out of filters, patches of content only, and deletes.
struct WriteMix {
    var random: SplitMix64
    var ids: [String] = []
    var created = 0

    init(seed: UInt64) { random = SplitMix64(seed: seed) }

    mutating func data() -> JSONValue {
        let groups: [JSONValue] = [
            .string("alpha"), .string("beta"), .string("gamma"), .string("omega"), .null, .string(""),
        ]
        let score: JSONValue =
            Int.random(in: 0..<6, using: &random) == 0 ? .null : .integer(Int64.random(in: -5...20, using: &random))
        let day = Int.random(in: 1...9, using: &random)
        let hour = Int.random(in: 10...19, using: &random)
        return .object([
            "group": groups[Int.random(in: 0..<groups.count, using: &random)],
            "score": score,
            "created": .string("2026-11-0\(day)T\(hour):00:00Z"),
            "kind": .string(["big", "small", "odd"][Int.random(in: 0..<3, using: &random)]),
            "title": .string("t\(Int.random(in: 0..<1000, using: &random))"),
        ])
    }

    /// Creates `count` items through `adapter`.
    mutating func create(_ count: Int, through adapter: ListAdapter) async throws {
        for _ in 0..<count {
            created += 1
            let id = "n-\(created)"
            _ = try await adapter.create(body: .object(["id": .string(id), "data": data()]))
            ids.append(id)
        }
    }

    /// Performs one random write.
    mutating func step(_ adapter: ListAdapter) async throws {
        let choice = ids.count < 20 ? 0 : Int.random(in: 0..<10, using: &random)
        switch choice {
        case 0...2:
            created += 1
            let id = "n-\(created)"
            _ = try await adapter.create(body: .object(["id": .string(id), "data": data()]))
            ids.append(id)
        case 3...5:
            let id = ids[Int.random(in: 0..<ids.count, using: &random)]
            _ = try await adapter.replace(id: id, body: .object(["data": data()]))
        case 6...7:
            let id = ids[Int.random(in: 0..<ids.count, using: &random)]
            let patch: JSONValue =
                Bool.random(using: &random)
                ? .object(["title": .string("p\(Int.random(in: 0..<1000, using: &random))")])
                : .object(["score": .integer(Int64.random(in: -5...20, using: &random))])
            _ = try await adapter.patch(id: id, body: .object(["data": patch]))
        default:
            let index = Int.random(in: 0..<ids.count, using: &random)
            _ = try await adapter.delete(id: ids.remove(at: index))
        }
    }
}
