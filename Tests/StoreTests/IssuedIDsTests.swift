import DataMediatorSQL
import DataMediatorTesting
import Testing

@testable import DataMediator

/// Integer ids the SQL stores choose are never given again: a client that compares cells
/// by `id` and `rev` would take a new item at a deleted item's id (its `rev` 1 again) for
/// the old one unchanged.
@Suite struct IssuedIDsTests {
    static func create(_ title: String, id: String? = nil, in adapter: ListAdapter) async throws -> Cell {
        var body: [String: JSONValue] = ["data": .object(["title": .string(title), "group": .string("alpha")])]
        if let id { body["id"] = .string(id) }
        return try await adapter.create(body: .object(body)).cell
    }

    @Test("a deleted item's id is not given to a new item", arguments: [WritableKind.sqlite, .postgres])
    func aDeletedItemsIDIsNotGivenAgain(kind: WritableKind) async throws {
        let subject = try await WritableSubject(kind, integerIDs: true)
        let adapter = subject.adapter
        let first = try await Self.create("a", in: adapter)
        let second = try await Self.create("b", in: adapter)
        #expect(first.id == "1" && second.id == "2" && second.rev == "1")
        // The largest id deleted: the next item does not take it.
        _ = try await adapter.delete(id: second.id)
        let third = try await Self.create("c", in: adapter)
        #expect(third.id == "3", "the deleted item's id 2 was given again")
        // An id a client chose counts as given too, once it is gone.
        let chosen = try await Self.create("d", id: "10", in: adapter)
        _ = try await adapter.delete(id: chosen.id)
        #expect(try await Self.create("e", in: adapter).id == "11")
        // Every item deleted: ids still go on, also for a second replica of the service.
        for id in ["1", "3", "11"] { _ = try await adapter.delete(id: id) }
        let replica = try #require(try await subject.replica())
        #expect(try await Self.create("f", in: replica.adapter).id == "12")
        withExtendedLifetime(replica) {}
    }
}

extension IssuedIDsTests {
    /// Past the largest 64-bit id (a client chose it), a new item takes the smallest free id
    /// above 0, and each next one the next free id; the store chooses it in the insert.
    @Test("after the largest 64-bit id, the smallest free one", arguments: [WritableKind.sqlite, .postgres])
    func afterTheLargestIDTheSmallestFreeOne(kind: WritableKind) async throws {
        let subject = try await WritableSubject(kind, integerIDs: true)
        let adapter = subject.adapter
        #expect(try await Self.create("max", id: String(Int64.max), in: adapter).id == String(Int64.max))
        #expect(try await Self.create("a", in: adapter).id == "1")
        _ = try await Self.create("c", id: "3", in: adapter)
        #expect(try await Self.create("b", in: adapter).id == "2")
        #expect(try await Self.create("d", in: adapter).id == "4")
    }
}

extension IssuedIDsTests {
    /// An imported item's id counts as given too: deleted, it is not given to a new item
    /// (review 106 #3: the import recorded none, and the next create took the largest
    /// imported id once its item was gone, at `rev` 1).
    @Test("an imported id is not given again", arguments: [WritableKind.sqlite, .postgres])
    func anImportedIDIsNotGivenAgain(kind: WritableKind) async throws {
        let subject = try await WritableSubject(kind, integerIDs: true)
        let adapter = subject.adapter
        #expect(try await Self.create("a", in: adapter).id == "1")
        let provider = try #require(adapter.provider as? any SQLDataProvider)
        let importer = try SQLImporter(reader: provider.reader, list: subject.definition, source: subject.source)
        let records = [500, 900].map {
            ImportRecord(line: $0, fields: ["id": .integer(Int64($0)), "title": .string("i"), "group": .string("g")])
        }
        #expect(try await importer.run(records, skipBad: false).imported == 2)
        _ = try await adapter.delete(id: "900")
        #expect(try await Self.create("b", in: adapter).id == "901", "the imported item's id 900 was given again")
    }
}
