import DataMediator
import DataMediatorPostgres
import DataMediatorSQL
import DataMediatorTesting
import Foundation
import PostgresNIO
import Testing

/// A table with a PostgreSQL enum column (`status "Task Status"`), as tables other
/// programs write often have: it was refused at start. Now it is shown as its label, views
/// sort, section, slice and open at an item by it in the labels' byte order, its index
/// holds the label, and writes take a label (another text is the item's refusal).
@Suite struct PostgresEnumColumnTests {
    static let fields: [String: FieldType] = ["title": .string, "status": .string]
    static let labels = ["open", "doing", "done", "won't do"]

    static let definition = ListDefinition(
        name: "tasks",
        title: "Tasks",
        idField: "id",
        revisionField: "rev",
        views: [
            View(
                name: "by_status",
                isDefault: true,
                sort: [SortKey("status"), SortKey("id", .descending)],
                idField: "id",
                section: SectionRule(field: "status", grouping: .value),
                cellType: .fixed("task"),
                fields: ["title", "status"],
                parameters: [ViewParameter(name: "status", field: "status", type: .string, isRequired: false)]
            )
        ],
        isWritable: true,
        rules: FieldRules(types: fields)
    )

    /// A store with a new table `tasks` whose status is an enum (its type's name needs
    /// quotes, one label a quote), with rows another program wrote.
    static func subject() async throws -> (PostgresFixture, ListAdapter) {
        let fixture = try await PostgresFixture()
        for statement in [
            "CREATE TYPE \"Task Status\" AS ENUM ('open', 'doing', 'done', 'won''t do')",
            """
            CREATE TABLE tasks (id bigserial PRIMARY KEY, title text,
                status "Task Status" NOT NULL DEFAULT 'open', rev bigint)
            """,
            """
            INSERT INTO tasks (title, status) SELECT 't' || g,
                CAST((ARRAY['open', 'doing', 'done', 'won''t do'])[1 + g % 4] AS "Task Status")
            FROM generate_series(1, 30) AS g
            """,
        ] {
            try await fixture.store.primary.query(PostgresQuery(unsafeSQL: statement))
        }
        let adapter = try await fixture.store.adapter(
            for: definition,
            source: StoreSource(kind: .table("tasks"), fieldTypes: fields),
            signer: CursorSigner(secret: SampleList.secret)
        )
        return (fixture, adapter)
    }

    /// The field `name` of a cell's data.
    static func field(_ name: String, of cell: Cell) -> JSONValue? {
        guard case .object(let data) = cell.data else { return nil }
        return data[name]
    }

    @Test func anEnumColumnIsShownAsItsLabelAndViewsWalkSectionAndSliceByIt() async throws {
        let (fixture, adapter) = try await Self.subject()
        _ = fixture
        let created = try await adapter.create(body: .object(["data": .object(["title": .string("new")])]))
        #expect(Self.field("status", of: created.cell) == .string("open"), "the column's default")
        let done = try await adapter.create(
            body: .object(["data": .object(["title": .string("d"), "status": .string("won't do")])])
        )
        #expect(Self.field("status", of: done.cell) == .string("won't do"))

        var items: [Item] = []
        var cursor: String?
        repeat {
            let page = try await adapter.page(view: nil, limit: "9", cursor: cursor)
            items += page.items.map { cell in
                Item([
                    "id": .integer(Int64(cell.id) ?? -1), "title": Self.field("title", of: cell) ?? .null,
                    "status": Self.field("status", of: cell) ?? .null,
                ])
            }
            cursor = page.next
        } while cursor != nil
        #expect(items.count == 32)
        #expect(Set(items.map { $0["status"].idString }) == Set(Self.labels))
        let view = try Self.definition.view(named: "by_status")
        let expected = SampleList.expectedOrder(items, view: view).map { $0["id"].idString }
        try await expectWalksAndOpens(adapter, view: nil, expected: expected)
        // A section a label, in the labels' byte order (not the enum's declared order).
        let sections = try await adapter.sectionInfo(view: nil)
        #expect(sections.sections.map(\.id) == Self.labels.sorted(), "\(sections.sections)")
        #expect(
            sections.sections.map(\.count)
                == Self.labels.sorted().map { label in
                    items.filter { $0["status"] == .string(label) }.count
                }
        )
        let slice = SliceRequest(parameters: ["status": ["won't do"]])
        var sliced = try await SampleList.walk(adapter, view: nil, limit: 3, slice: slice)
        sliced.expectOrder(
            expected.filter { id in items.contains { $0["id"].idString == id && $0["status"] == .string("won't do") } }
        )
        #expect(sliced.violations == [])
        // A parameter that is no label reads an empty slice.
        let none = try await adapter.page(
            view: nil,
            limit: "5",
            cursor: nil,
            slice: SliceRequest(parameters: ["status": ["closed"]])
        )
        #expect(none.items.isEmpty)
    }

    @Test func aWriteOfAnotherTextIsRefusedAndTheIndexHoldsTheLabel() async throws {
        let (fixture, adapter) = try await Self.subject()
        let start = try await adapter.currentVersion()
        let refused = await #expect(throws: DataMediatorError.self) {
            _ = try await adapter.patch(id: "1", body: .object(["data": .object(["status": .string("closed")])]))
        }
        #expect(refused?.code == .invalidItem, "\(String(describing: refused))")
        #expect(refused?.fieldProblems.map(\.field) == ["status"], "\(String(describing: refused))")
        // A create too, where another field holds a text the enum's refusal does not quote.
        let created = await #expect(throws: DataMediatorError.self) {
            _ = try await adapter.create(
                body: .object(["data": .object(["title": .string("done"), "status": .string("gone")])])
            )
        }
        #expect(created?.fieldProblems.map(\.field) == ["status"], "\(String(describing: created))")
        #expect(try await adapter.currentVersion() == start, "nothing was written")
        let patched = try await adapter.patch(id: "1", body: .object(["data": .object(["status": .string("done")])]))
        #expect(Self.field("status", of: patched.cell) == .string("done"))

        let definitions = try await fixture.indexDefinitions(of: "tasks")
        #expect(definitions.contains { $0.contains("data_mediator_enum_text(status) COLLATE \"C\"") }, "\(definitions)")
        let plan = try await fixture.plan(
            "SELECT id FROM tasks WHERE (data_mediator_enum_text(status)) COLLATE \"C\" = 'done' ORDER BY id DESC LIMIT 5"
        )
        #expect(plan.contains("Index") && plan.contains("dm_"), "\(plan)")
    }

    @Test func anEnumDeclaredANumberIsRefusedAtStart() async throws {
        let fixture = try await PostgresFixture()
        try await fixture.store.primary.query("CREATE TYPE level AS ENUM ('low', 'high')")
        try await fixture.store.primary.query(
            "CREATE TABLE tasks (id bigint PRIMARY KEY, title text, status level, rev bigint)"
        )
        let error = await #expect(throws: StoreError.self) {
            _ = try await fixture.store.adapter(
                for: Self.definition,
                source: StoreSource(kind: .table("tasks"), fieldTypes: ["title": .string, "status": .integer]),
                signer: CursorSigner(secret: SampleList.secret)
            )
        }
        #expect(
            "\(error.map { "\($0)" } ?? "")".contains("'status' is declared integer"),
            "\(String(describing: error))"
        )
    }
}
