import DataMediator
import DataMediatorTesting
import Foundation
import Testing

@testable import data_mediator

/// Every cursor the service hands out is one it takes back (API.md, rule 4): a view's sort
/// keys are bounded together, not only one by one, and the lists over one table bound the
/// text their views sort by for each other's writes. Before, a view of nine text keys of
/// 1,024 bytes each gave a `next` of 12,435 characters that the server refused (431 with
/// twelve), and a `player` of 11,000 characters written through `mine` broke the cursors
/// of `transactions`' `by_player` (probe 28).
@Suite struct CursorKeyBudgetTests {
    static let keys = (1...9).map { "k\($0)" }

    static let yaml = """
        store:
          sqlite: data.sqlite
        lists:
          wide:
            table: wide
            writable: true
            fields: {\(keys.map { "\($0): string" }.joined(separator: ", "))}
            views: {all: {sort: [\(keys.joined(separator: ", "))]}}
          a: {table: t, writable: true, fields: {x: string, y: string}, views: {v: {sort: [x]}}}
          b: {table: t, writable: true, fields: {x: string, y: string}, views: {v: {sort: [y]}}}
          c: {table: u, writable: true, fields: {x: string, y: string}, views: {v: {sort: [x]}}}
        """

    static func definitions() throws -> [String: ListDefinition] {
        var loader = ConfigFileLoader(file: "test.yaml", baseDirectory: "/srv")
        let configuration = try loader.parse(yaml)
        return Dictionary(uniqueKeysWithValues: configuration.lists.map { ($0.definition.name, $0.definition) })
    }

    /// `count` keys of `bytes` bytes each (2-byte letters, so bytes and characters differ).
    static func data(keys count: Int, bytes: Int, tag: String = "") -> [String: JSONValue] {
        Dictionary(
            uniqueKeysWithValues: keys.prefix(count).map { key in
                (key, .string(String(repeating: "é", count: bytes / 2 - 1) + tag + "a"))
            }
        )
    }

    @Test func aViewsSortKeysAreBoundedTogether() throws {
        let rules = try #require(try Self.definitions()["wide"]).rules
        // Nine keys of 1,000 bytes each: each within 1,024, together past 7,168.
        let refused = #expect(throws: DataMediatorError.self) { try rules.check(Self.data(keys: 9, bytes: 1_000)) }
        #expect(refused?.code == .invalidItem)
        #expect(refused?.fieldProblems.count == 1)
        #expect(refused?.fieldProblems.first?.detail.contains("7168 bytes of UTF-8 together") == true)
        // A patch that names none of the view's keys is not refused for what others stored.
        #expect(throws: Never.self) { try rules.check(Self.data(keys: 9, bytes: 1_000), only: ["other"]) }
        #expect(throws: Never.self) { try rules.check(Self.data(keys: 7, bytes: 1_024)) }
    }

    /// Items at the bound, with ids of 1,024 bytes, are paged past one at a time: every
    /// cursor is taken back, its id whole and its keys abridged (``AbridgedKey``).
    @Test func itemsAtTheBoundArePagedPast() async throws {
        let definition = try #require(try Self.definitions()["wide"])
        let store = InMemoryDataProvider(definition: definition, columns: Self.keys)
        let adapter = ListAdapter(
            definition: definition,
            provider: store,
            signer: CursorSigner(secret: SampleList.secret),
            writer: store,
            changeLog: store
        )
        for index in 0..<4 {
            let id = String(repeating: "i", count: 1_023) + String(index)
            let data = Self.data(keys: 7, bytes: 1_024, tag: String(index))
            _ = try await adapter.replace(id: id, body: .object(["data": .object(data)]))
        }
        var cursor: String?
        var longest = 0
        var walked = 0
        repeat {
            let page = try await adapter.page(view: nil, limit: "1", cursor: cursor, slice: .whole)
            walked += page.sections.reduce(0) { $0 + $1.items.filter { $0.type != Cell.loadingType }.count }
            cursor = page.next
            longest = max(longest, cursor?.count ?? 0)
        } while cursor != nil && walked < 10
        #expect(walked == 4)
        #expect(longest > 1_024 && longest < 4_500, "\(longest)")
    }

    @Test func listsOverOneTableBoundWhatEachOthersViewsSortBy() throws {
        let lists = try Self.definitions()
        let long: JSONValue = .string(String(repeating: "y", count: 1_025))
        // `a` sorts by x only, but `b`, over the same table, sorts by y.
        let a = try #require(lists["a"]).rules
        let refused = #expect(throws: DataMediatorError.self) { try a.check(["x": .string("short"), "y": long]) }
        #expect(refused?.fieldProblems.map(\.field) == ["y"])
        // `c` writes another table: its y is no key.
        #expect(throws: Never.self) { try #require(lists["c"]).rules.check(["x": .string("short"), "y": long]) }
    }
}
