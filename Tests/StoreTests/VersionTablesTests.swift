import DataMediator
import DataMediatorPostgres
import DataMediatorSQL
import DataMediatorSQLite
import DataMediatorTesting
import Testing

/// A list's `versions` must name tables of the store: a missing one is named before
/// anything is made for the list (a trigger on it failed with SQL nobody asked for).
@Suite struct VersionTablesTests {
    static let list = ListDefinition(
        name: "count",
        title: "Count",
        idField: "n",
        views: [View(name: "all", sort: [SortKey("n")], idField: "n", cellType: .fixed("c"), fields: [])]
    )

    static func source(_ versions: [String]) -> StoreSource {
        StoreSource(kind: .query("SELECT 1 AS n"), fieldTypes: ["n": .integer], versionTables: versions)
    }

    static let signer = CursorSigner(secret: SampleList.secret)

    static func expectNamed(_ error: StoreError?) {
        #expect(
            error?.description.contains("'versions' names 'nosuch', which is not a table of the store") == true,
            "\(error.map { "\($0)" } ?? "no error")"
        )
        #expect(error?.description.contains("CREATE") == false)
    }

    @Test func sqlite() async throws {
        let fixture = try SQLiteFixture(items: [])
        let refused = #expect(throws: StoreError.self) {
            _ = try fixture.store.adapter(
                for: Self.list,
                source: Self.source(["sample", "nosuch"]),
                signer: Self.signer
            )
        }
        Self.expectNamed(refused)
        _ = try fixture.store.adapter(for: Self.list, source: Self.source(["sample"]), signer: Self.signer)
    }

    @Test func postgres() async throws {
        let fixture = try await PostgresFixture()
        let refused = await #expect(throws: StoreError.self) {
            _ = try await fixture.store.adapter(for: Self.list, source: Self.source(["nosuch"]), signer: Self.signer)
        }
        Self.expectNamed(refused)
        _ = try await fixture.store.adapter(for: Self.list, source: Self.source([]), signer: Self.signer)
    }
}
