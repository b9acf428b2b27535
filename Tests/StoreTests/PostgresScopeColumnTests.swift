import DataMediator
import DataMediatorPostgres
import DataMediatorSQL
import DataMediatorTesting
import Foundation
import PostgresNIO
import Testing

/// A scoped list whose scope column keeps a claim as another value: `char(n)` and
/// `varchar(n)` drop trailing blanks, `numeric(p,s)` rounds. A write under the claim
/// `"ana "` stored `'ana'` and put the item in ana's slice (her pages, changes and events),
/// where its writer could neither read nor delete it; one under `5.04` in `numeric(6,1)`
/// wrote into the slice of `5`. Such a write is refused naming the scope field, and
/// nothing is stored.
@Suite struct PostgresScopeColumnTests {
    @Test(arguments: [
        ("char(8)", FieldType.string, JSONValue.string("ana"), JSONValue.string("ana ")),
        ("varchar(3)", .string, .string("ana"), .string("ana ")),
        ("numeric(6,1)", .number, .number(5), .number(5.04)),
    ])
    func aClaimTheColumnKeepsAsAnothersIsRefused(
        column: String,
        type: FieldType,
        owner: JSONValue,
        intruder: JSONValue
    ) async throws {
        let fixture = try await PostgresFixture()
        try await fixture.store.primary.query(
            PostgresQuery(unsafeSQL: "CREATE TABLE inbox (id text PRIMARY KEY, owner \(column), body text, rev bigint)")
        )
        let fields: [String: FieldType] = ["id": .string, "owner": type, "body": .string]
        let definition = ListDefinition(
            name: "inbox",
            title: "Inbox",
            idField: "id",
            revisionField: "rev",
            views: [
                View(
                    name: "all",
                    sort: [SortKey("id")],
                    idField: "id",
                    cellType: .fixed("m"),
                    fields: ["owner", "body"]
                )
            ],
            isWritable: true,
            rules: FieldRules(types: fields.filter { $0.key != "id" }),
            scope: ListScope(field: "owner", claim: "sub")
        )
        let adapter = try await fixture.store.adapter(
            for: definition,
            source: StoreSource(kind: .table("inbox"), fieldTypes: fields),
            signer: CursorSigner(secret: SampleList.secret)
        )
        let body: JSONValue = .object(["data": .object(["body": .string("hello")])])
        _ = try await adapter.create(body: body, scope: WriteScope(field: "owner", value: owner))
        let start = try await adapter.currentVersion()
        let scope = WriteScope(field: "owner", value: intruder)
        let created = await #expect(throws: DataMediatorError.self) {
            _ = try await adapter.create(body: body, scope: scope)
        }
        #expect(
            created?.code == .invalidItem && created?.fieldProblems.map(\.field) == ["owner"],
            "\(String(describing: created))"
        )
        let replaced = await #expect(throws: DataMediatorError.self) {
            _ = try await adapter.replace(id: "x1", body: body, scope: scope)
        }
        #expect(replaced?.fieldProblems.map(\.field) == ["owner"], "\(String(describing: replaced))")
        #expect(try await adapter.currentVersion() == start)
        let page = try await adapter.page(
            view: nil,
            limit: "10",
            cursor: nil,
            slice: SliceRequest(claims: ["sub": owner])
        )
        #expect(page.items.count == 1)
    }
}
