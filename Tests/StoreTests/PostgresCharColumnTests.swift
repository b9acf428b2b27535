import DataMediator
import DataMediatorPostgres
import DataMediatorSQL
import DataMediatorTesting
import Foundation
import PostgresNIO
import Testing

/// A `char(n)` column, as tables other programs write have: PostgreSQL pads its text with
/// blanks and ignores them when it compares (`'a' = 'a   '`), so read as its padded text a
/// cursor's value disagreed with the rows' order (a walk at limit 7 gave 43 of 707 rows,
/// an item's position was wrong) and an empty value was the section `"    "`. It is read,
/// compared, sectioned and indexed as its text without the padding.
@Suite struct PostgresCharColumnTests {
    static let fields: [String: FieldType] = ["id": .string, "code": .string, "n": .integer]
    static let codes = ["a", "a ", "ab", "b", "", " a", "A"]

    static let definition = ListDefinition(
        name: "codes",
        title: "Codes",
        idField: "id",
        revisionField: "rev",
        views: [
            View(
                name: "by_code",
                isDefault: true,
                sort: [SortKey("code"), SortKey("id")],
                idField: "id",
                section: SectionRule(field: "code", grouping: .value),
                cellType: .fixed("code"),
                fields: ["code", "n"]
            )
        ],
        isWritable: true,
        rules: FieldRules(types: fields.filter { $0.key != "id" })
    )

    @Test func aCharColumnIsItsTextWithoutPaddingInEveryRead() async throws {
        let fixture = try await PostgresFixture()
        for statement in [
            "CREATE TABLE codes (id char(5) PRIMARY KEY, code char(4), n int, rev bigint)",
            """
            INSERT INTO codes (id, code, n) SELECT 'c' || g,
                (ARRAY['a', 'a ', 'ab', 'b', '', ' a', 'A'])[1 + g % 7], g FROM generate_series(1, 70) AS g
            """,
        ] {
            try await fixture.store.primary.query(PostgresQuery(unsafeSQL: statement))
        }
        let adapter = try await fixture.store.adapter(
            for: Self.definition,
            source: StoreSource(kind: .table("codes"), fieldTypes: Self.fields),
            signer: CursorSigner(secret: SampleList.secret)
        )
        // The order PostgreSQL gives the unpadded texts, bytewise; ids as their text.
        let rows = (1...70).map { (id: "c\($0)", code: Self.codes[$0 % 7].trimmingSuffix(" ")) }
        let expected = rows.sorted { ($0.code, $0.id) < ($1.code, $1.id) }.map(\.id)
        try await expectWalksAndOpens(adapter, view: "by_code", expected: expected)

        let page = try await adapter.page(view: "by_code", limit: "20", cursor: nil)
        #expect(page.sections.first?.id == "", "an empty code is the section of no key")
        #expect(page.items.allSatisfy { Self.code(of: $0)?.hasSuffix(" ") == false }, "\(page.items)")
        let located = try await adapter.locate(id: "c14", view: "by_code")
        #expect(located.position == expected.firstIndex(of: "c14"))
        // The id too: a padded id is found by its text.
        let patched = try await adapter.patch(id: "c7", body: .object(["data": .object(["code": .string("zz ")])]))
        #expect(patched.cell.id == "c7" && Self.code(of: patched.cell) == "zz")
        // An id longer than the column holds is refused naming the id.
        let long = await #expect(throws: DataMediatorError.self) {
            _ = try await adapter.replace(id: "c12345", body: .object(["data": .object([:])]))
        }
        #expect(long?.fieldProblems.map(\.field) == ["id"], "\(String(describing: long))")
        // A lookup by a padded id is a seek of the primary key, not a scan of the table (its
        // cast to text was a function of the column: every `/items/{id}` and `around` scanned).
        let provider = try await fixture.store.provider(
            for: Self.definition,
            source: StoreSource(kind: .table("codes"), fieldTypes: Self.fields)
        )
        let view = try Self.definition.view(named: "by_code")
        let lookup = try #require(provider.reader.itemQuery(id: "c14", in: view))
        let plan = try await fixture.plan(lookup.sql.replacingOccurrences(of: "?", with: "'c14'"))
        #expect(plan.contains("Index") && !plan.contains("Seq Scan"), "\(plan)")
        // An id that is the row's with a blank more names no item (the comparison ignores it).
        let padded = await #expect(throws: DataMediatorError.self) {
            _ = try await adapter.locate(id: "c14 ", view: "by_code")
        }
        #expect(padded?.code == .unknownItem, "\(String(describing: padded))")
    }

    static func code(of cell: Cell) -> String? {
        guard case .object(let data) = cell.data, case .string(let code)? = data["code"] else { return nil }
        return code
    }
}

extension String {
    /// The text without the trailing `blank`s.
    fileprivate func trimmingSuffix(_ blank: Character) -> String {
        var text = self
        while text.last == blank { text.removeLast() }
        return text
    }
}
