import DataMediator
import DataMediatorPostgres
import DataMediatorSQL
import DataMediatorTesting
import Foundation
import PostgresNIO
import Testing

extension PostgresArrayColumnTests {
    static let gridFields: [String: FieldType] = ["cells": .json, "names": .json, "opens": .json, "stamps": .json]

    /// The texts `query` reads, one a row: the arrays as PostgreSQL holds them.
    static func texts(_ query: PostgresQuery, in fixture: PostgresFixture) async throws -> [String] {
        var texts: [String] = []
        for try await text in try await fixture.store.primary.query(query).decode(String.self) {
            texts.append(text)
        }
        return texts
    }

    /// An array of two dimensions another program wrote reads as a JSON array of its rows
    /// and is written back as it was read (probe 47: it was refused `422`, so a client that
    /// read an item and put it back could not, nor patch another of its arrays so); each
    /// element is checked as in one dimension, named by its place; arrays that are not
    /// rectangular, or of more dimensions, are refused with nothing written.
    @Test func anArrayOfTwoDimensionsIsWrittenBackAsItWasRead() async throws {
        let fixture = try await PostgresFixture()
        for statement in [
            """
            CREATE TABLE grid (id bigserial PRIMARY KEY, cells integer[], names varchar(2)[], opens time[],
                stamps timestamptz(0)[], rev bigint)
            """,
            """
            INSERT INTO grid (cells, names, opens, stamps) VALUES ('{{1,2},{3,NULL}}', '{{ab,c}}', '{{08:00},{09:00}}',
                ARRAY[['2026-11-19 21:04+02', '2026-11-19 22:00Z']]::timestamptz[])
            """,
        ] {
            try await fixture.store.primary.query(PostgresQuery(unsafeSQL: statement))
        }
        let adapter = try await fixture.store.adapter(
            for: .byID("grid", fields: Self.gridFields, shown: Self.gridFields.keys.sorted(), cellType: "grid"),
            source: StoreSource(kind: .table("grid"), fieldTypes: Self.gridFields),
            signer: CursorSigner(secret: SampleList.secret)
        )
        let read = JSONValue.object([
            "cells": .array([.array([.integer(1), .integer(2)]), .array([.integer(3), .null])]),
            "names": .array([.array([.string("ab"), .string("c")])]),
            "opens": .array([.array([.string("08:00:00")]), .array([.string("09:00:00")])]),
            "stamps": .array([.array([.string("2026-11-19T19:04:00Z"), .string("2026-11-19T22:00:00Z")])]),
        ])
        #expect(try await Self.data(adapter) == [read])
        func stored() async throws -> [String] {
            try await Self.texts(
                """
                SELECT CAST(cells AS text) || ' ' || CAST(names AS text) || ' ' || CAST(opens AS text) || ' '
                    || CAST(stamps AS text) FROM grid
                """,
                in: fixture
            )
        }
        let before = try await stored()

        let replaced = try await adapter.replace(id: "1", body: .object(["data": read]))
        #expect(replaced.cell.data == read)
        #expect(try await stored() == before, "written back as it was")
        let patched = try await adapter.patch(
            id: "1",
            body: .object(["data": .object(["cells": .array([.array([.integer(5)]), .array([.integer(-6)])])])])
        )
        #expect(patched.cell.data.objectValue?["cells"] == .array([.array([.integer(5)]), .array([.integer(-6)])]))
        #expect(try await Self.data(adapter) == [patched.cell.data])

        let start = try await adapter.currentVersion()
        for (field, value, said): (String, JSONValue, String) in [
            ("cells", .array([.array([.integer(1)]), .array([.integer(2), .integer(3)])]), "all as long"),
            ("cells", .array([.array([]), .array([])]), "not empty"),
            ("cells", .array([.array([.array([.integer(1)])])]), "of one dimension or two"),
            ("cells", .array([.array([.integer(1)]), .array([.string("x")])]), "type integer"),
            ("cells", .array([.array([.integer(1)]), .array([.integer(Int64(1) << 40)])]), "at index 1, 0"),
            ("names", .array([.array([.string("ab")]), .array([.string("abc")])]), "at index 1, 0"),
            ("stamps", .array([.array([.string("2026-01-01T00:00:00Z"), .string("10000-01-01T00:00:00Z")])]), "9999"),
        ] {
            let refused = await #expect(throws: DataMediatorError.self) {
                _ = try await adapter.patch(id: "1", body: .object(["data": .object([field: value])]))
            }
            #expect(refused?.code == .invalidItem, "\(value): \(String(describing: refused))")
            #expect(refused?.fieldProblems.map(\.field) == [field], "\(value): \(String(describing: refused))")
            #expect(refused?.message.contains(said) == true, "\(value): \(refused?.message ?? "")")
        }
        #expect(try await adapter.currentVersion() == start, "nothing was written")
    }
}

extension PostgresArrayColumnTests {
    /// A `char(n)[]` element keeps its characters (probe 55: written through a cast to
    /// `character[]`, an array of `character(1)`, each was cut to its first one; a `bit(n)[]`
    /// element so cut was refused) and shows without the blanks that pad it, as a `char(n)`
    /// column does; read and written back, the row is as it was.
    @Test func aCharArrayKeepsItsElementsWhole() async throws {
        let fixture = try await PostgresFixture()
        for statement in [
            "CREATE TABLE codes (id bigserial PRIMARY KEY, codes char(3)[], bits bit(3)[], rev bigint)",
            "INSERT INTO codes (codes, bits) VALUES ('{{ab,c},{xyz,NULL}}', '{101,010}')",
        ] {
            try await fixture.store.primary.query(PostgresQuery(unsafeSQL: statement))
        }
        let fields: [String: FieldType] = ["codes": .json, "bits": .json]
        let adapter = try await fixture.store.adapter(
            for: .byID("codes", fields: fields, shown: ["bits", "codes"], cellType: "code"),
            source: StoreSource(kind: .table("codes"), fieldTypes: fields),
            signer: CursorSigner(secret: SampleList.secret)
        )
        func stored() async throws -> [String] {
            try await Self.texts(
                "SELECT CAST(codes AS text) || ' ' || CAST(bits AS text) FROM codes ORDER BY id",
                in: fixture
            )
        }
        let read = JSONValue.object([
            "codes": .array([.array([.string("ab"), .string("c")]), .array([.string("xyz"), .null])]),
            "bits": .array([.string("101"), .string("010")]),
        ])
        #expect(try await Self.data(adapter) == [read])
        let before = try await stored()
        #expect(try await adapter.replace(id: "1", body: .object(["data": read])).cell.data == read)
        let created = try await adapter.create(
            body: .object(["data": .object(["codes": .array([.string("xyz"), .string(" b")]), "bits": .array([])])])
        )
        #expect(created.cell.data == .object(["codes": .array([.string("xyz"), .string(" b")]), "bits": .array([])]))
        #expect(try await stored() == before + [#"{xyz," b "} {}"#])
    }
}
