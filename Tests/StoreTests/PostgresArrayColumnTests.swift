import DataMediator
import DataMediatorPostgres
import DataMediatorSQL
import DataMediatorTesting
import Foundation
import PostgresNIO
import Testing

/// A table with PostgreSQL array columns (`tags text[]`, `scores bigint[]`), as tables
/// other programs write often have: they were refused at start. Now each is a json field
/// holding the JSON array of its elements, read and written so; a JSON value that is no
/// array of such elements is the item's refusal, with nothing stored.
@Suite struct PostgresArrayColumnTests {
    static let fields: [String: FieldType] = ["title": .string, "tags": .json, "scores": .json]

    static let definition = ListDefinition.byID(
        "posts",
        fields: fields,
        shown: ["title", "tags", "scores"],
        cellType: "post"
    )

    static let source = StoreSource(kind: .table("posts"), fieldTypes: fields)

    static func subject() async throws -> (PostgresFixture, ListAdapter) {
        let fixture = try await PostgresFixture()
        for statement in [
            "CREATE TABLE posts (id bigserial PRIMARY KEY, title text, tags text[], scores bigint[], rev bigint)",
            """
            INSERT INTO posts (title, tags, scores) VALUES ('a', ARRAY['x', 'y z'], ARRAY[1, NULL, 3]),
                ('b', '{}', NULL), ('c', NULL, ARRAY[7])
            """,
        ] {
            try await fixture.store.primary.query(PostgresQuery(unsafeSQL: statement))
        }
        let adapter = try await fixture.store.adapter(
            for: definition,
            source: source,
            signer: CursorSigner(secret: SampleList.secret)
        )
        return (fixture, adapter)
    }

    static func data(_ adapter: ListAdapter) async throws -> [JSONValue] {
        try await adapter.page(view: nil, limit: "50", cursor: nil).items.map(\.data)
    }

    @Test func arraysAreReadAndWrittenAsJSONArrays() async throws {
        let (fixture, adapter) = try await Self.subject()
        #expect(
            try await Self.data(adapter) == [
                .object([
                    "title": .string("a"), "tags": .array([.string("x"), .string("y z")]),
                    "scores": .array([.integer(1), .null, .integer(3)]),
                ]),
                .object(["title": .string("b"), "tags": .array([]), "scores": .null]),
                .object(["title": .string("c"), "tags": .null, "scores": .array([.integer(7)])]),
            ]
        )
        let created = try await adapter.create(
            body: .object([
                "data": .object([
                    "title": .string("d"), "tags": .array([.string("q"), .string("\"r\", {s}")]),
                    "scores": .array([.integer(5), .integer(-2)]),
                ])
            ])
        )
        #expect(
            created.cell.data
                == .object([
                    "title": .string("d"), "tags": .array([.string("q"), .string("\"r\", {s}")]),
                    "scores": .array([.integer(5), .integer(-2)]),
                ])
        )
        let patched = try await adapter.patch(
            id: created.cell.id,
            body: .object(["data": .object(["tags": .null, "scores": .array([])])])
        )
        #expect(patched.cell.data == .object(["title": .string("d"), "tags": .null, "scores": .array([])]))
        // As PostgreSQL holds them.
        var stored: [String] = []
        for try await text in try await fixture.store.primary.query(
            "SELECT CAST(tags AS text) || ' ' || CAST(scores AS text) FROM posts WHERE title = 'a'"
        )
        .decode(String.self) {
            stored.append(text)
        }
        #expect(stored == ["{x,\"y z\"} {1,NULL,3}"])

        let start = try await adapter.currentVersion()
        for value: JSONValue in [
            .array([.string("nope")]), .array([.bool(true)]), .object(["a": .integer(1)]),
            .array([.array([.integer(1)]), .array([.integer(2), .integer(3)])]), .array([.array([])]),
            .array([.array([.array([.integer(1)])])]), .array([.integer(1), .array([.integer(2)])]), .integer(5),
        ] {
            let refused = await #expect(throws: DataMediatorError.self) {
                _ = try await adapter.patch(id: "1", body: .object(["data": .object(["scores": value])]))
            }
            #expect(refused?.code == .invalidItem, "\(value): \(String(describing: refused))")
            #expect(refused?.fieldProblems.map(\.field) == ["scores"], "\(value): \(String(describing: refused))")
        }
        #expect(try await adapter.currentVersion() == start, "nothing was written")
    }

    @Test func anImportWritesArraysAndAnArrayDeclaredAStringIsRefused() async throws {
        let (fixture, adapter) = try await Self.subject()
        let provider = try await fixture.store.provider(for: Self.definition, source: Self.source)
        let importer = try SQLImporter(reader: provider.reader, list: Self.definition, source: Self.source)
        let summary = try await importer.run(
            [
                ImportRecord(line: 1, fields: ["id": .integer(10), "tags": .array([.string("i")])]),
                ImportRecord(line: 2, fields: ["id": .integer(11), "scores": .array([.string("x")])]),
                ImportRecord(line: 3, fields: ["id": .integer(12), "title": .string("5"), "scores": .integer(5)]),
            ],
            skipBad: true,
            batch: 10
        )
        #expect(summary.imported == 1 && summary.rejections.map(\.line) == [2, 3], "\(summary.rejections)")
        #expect(summary.rejections.allSatisfy { $0.reason.contains("'scores'") }, "\(summary.rejections)")
        #expect(
            try await Self.data(adapter).last
                == .object(["title": .null, "tags": .array([.string("i")]), "scores": .null])
        )

        var fields = Self.fields
        fields["tags"] = .string
        let error = await #expect(throws: StoreError.self) {
            _ = try await fixture.store.adapter(
                for: Self.definition,
                source: StoreSource(kind: .table("posts"), fieldTypes: fields),
                signer: CursorSigner(secret: SampleList.secret)
            )
        }
        #expect("\(error.map { "\($0)" } ?? "")".contains("'tags' is declared string"), "\(String(describing: error))")
    }
}
