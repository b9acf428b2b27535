import DataMediator
import DataMediatorTesting
import Testing

/// A scoped list's writes on every store that takes writes: each caller's writes land in
/// their own slice, another slice's items do not exist for them, and their reads and
/// changes hold their own items only.
@Suite struct ScopedWriteTests {
    static let scope = ListScope(field: "group", claim: "sub")

    static func slice(_ sub: String) -> SliceRequest {
        SliceRequest(claims: ["sub": .string(sub)])
    }

    static func write(_ sub: String) -> WriteScope {
        WriteScope(field: "group", value: .string(sub))
    }

    /// A create's body: the id and its data.
    static func body(_ id: String, _ data: [String: JSONValue] = [:]) -> JSONValue {
        guard case .object(var members) = replacement(id, data) else { return .null }
        members["id"] = .string(id)
        return .object(members)
    }

    /// A replace's body: the data only.
    static func replacement(_ title: String, _ data: [String: JSONValue] = [:]) -> JSONValue {
        var fields = data
        fields["title"] = .string(title)
        fields["score"] = .integer(1)
        return .object(["data": .object(fields)])
    }

    @Test("each caller writes and reads their own slice only", arguments: WritableKind.allCases)
    func eachCallerWritesTheirOwnSlice(kind: WritableKind) async throws {
        let subject = try await WritableSubject(kind, scope: Self.scope)
        let adapter = subject.adapter
        let start = try await adapter.currentVersion()
        for id in ["a1", "a2"] {
            let written = try await adapter.create(body: Self.body(id), scope: Self.write("ana"))
            // The scope field comes from the claim, never from the body.
            guard case .object(let data) = written.cell.data else { throw FixtureError("no data in \(written)") }
            #expect(data["group"] == .string("ana"))
        }
        // A body naming the caller's own value is fine; another value is forbidden.
        _ = try await adapter.create(body: Self.body("b1", ["group": .string("bo")]), scope: Self.write("bo"))
        await #expect(throws: DataMediatorError.self) {
            _ = try await adapter.create(body: Self.body("b2", ["group": .string("ana")]), scope: Self.write("bo"))
        }
        let forged = await #expect(throws: DataMediatorError.self) {
            _ = try await adapter.patch(
                id: "b1",
                body: .object(["data": .object(["group": .string("ana")])]),
                scope: Self.write("bo")
            )
        }
        #expect(forged?.code == .forbidden)

        // Another slice's item is not found, to read, replace, patch or delete.
        let bo = Self.write("bo")
        let attempts: [(String, @Sendable () async throws -> Void)] = [
            ("locate", { _ = try await adapter.locate(id: "a1", view: "flat", slice: Self.slice("bo")) }),
            ("replace", { _ = try await adapter.replace(id: "a1", body: Self.replacement("a1"), scope: bo) }),
            ("patch", { _ = try await adapter.patch(id: "a1", body: .object(["data": .object([:])]), scope: bo) }),
            ("delete", { _ = try await adapter.delete(id: "a1", scope: bo) }),
        ]
        for (name, attempt) in attempts {
            let error = await #expect(throws: DataMediatorError.self, "\(name)") { try await attempt() }
            #expect(error?.code == .unknownItem, "\(name) answered \(String(describing: error))")
        }
        // Nothing of it changed an item or made a second one.
        let walkAll = try await SampleList.walk(adapter, view: "flat", limit: 10, slice: Self.slice("ana"))
        #expect(walkAll.items.map(\.id).sorted() == ["a1", "a2"])
        let walkBo = try await SampleList.walk(adapter, view: "flat", limit: 10, slice: Self.slice("bo"))
        #expect(walkBo.items.map(\.id) == ["b1"])
        #expect(try await adapter.sectionInfo(view: "flat", slice: Self.slice("bo")).total == 1)

        // The caller's own item takes every write, and stays theirs.
        _ = try await adapter.patch(id: "b1", body: .object(["data": .object(["score": .integer(9)])]), scope: bo)
        _ = try await adapter.replace(id: "b1", body: Self.replacement("b1"), scope: bo)
        _ = try await adapter.delete(id: "a2", scope: Self.write("ana"))

        // Each slice's changes hold its own items only.
        let anaChanges = try await adapter.changes(
            view: "flat",
            since: String(start),
            limit: nil,
            slice: Self.slice("ana")
        )
        #expect(anaChanges.entries.map(\.id) == ["a1", "a2", "a2"])
        let boChanges = try await adapter.changes(
            view: "flat",
            since: String(start),
            limit: nil,
            slice: Self.slice("bo")
        )
        #expect(boChanges.entries.map(\.id) == ["b1", "b1", "b1"])
    }

    /// An item written through a global list with no value in the scope's field belongs to
    /// no caller's slice; it is stored all the same, before and after items that do.
    @Test(arguments: [WritableKind.sqlite, .postgres])
    func anItemOutsideEverySliceIsWrittenThroughTheGlobalList(kind: WritableKind) async throws {
        let subject = try await WritableSubject(kind)
        let global = subject.adapter
        let scoped = try #require(try await subject.sibling("mine", scope: Self.scope))
        for (id, group) in [("a1", JSONValue.string("ana")), ("n1", .null), ("b1", .string("bo")), ("n2", .null)] {
            let written = try await global.create(body: Self.body(id, ["group": group]), scope: nil)
            #expect(written.cell.id == id)
        }
        _ = try await global.patch(id: "a1", body: .object(["data": .object(["group": .null])]), scope: nil)
        _ = try await global.patch(id: "n1", body: .object(["data": .object(["group": .string("ana")])]), scope: nil)
        let all = try await SampleList.walk(global, view: "flat", limit: 10)
        #expect(all.items.map(\.id).sorted() == ["a1", "b1", "n1", "n2"])
        let ana = try await SampleList.walk(scoped, view: "flat", limit: 10, slice: Self.slice("ana"))
        #expect(ana.items.map(\.id) == ["n1"])
    }

    /// An idempotency key is kept per slice: another caller's same key and body is a new
    /// item of their own, never a replay of the first caller's (nor a refusal telling them
    /// the key was used); within one slice the retry replays.
    @Test("an idempotency key never crosses slices", arguments: WritableKind.allCases)
    func anIdempotencyKeyNeverCrossesSlices(kind: WritableKind) async throws {
        let subject = try await WritableSubject(kind, scope: Self.scope)
        let adapter = subject.adapter
        let body = Self.replacement("same")
        let ana = try await adapter.create(body: body, idempotencyKey: "k-1", scope: Self.write("ana"))
        let bo = try await adapter.create(body: body, idempotencyKey: "k-1", scope: Self.write("bo"))
        #expect(!bo.replayed && bo.cell.id != ana.cell.id)
        guard case .object(let data) = bo.cell.data else { throw FixtureError("no data in \(bo)") }
        #expect(data["group"] == .string("bo"))
        let again = try await adapter.create(body: body, idempotencyKey: "k-1", scope: Self.write("bo"))
        #expect(again.replayed && again.cell.id == bo.cell.id)
        // The same key from two callers outside any slice (two write tokens, say).
        let first = try await adapter.create(body: body, idempotencyKey: "k-1", caller: "one")
        let second = try await adapter.create(body: body, idempotencyKey: "k-1", caller: "two")
        #expect(!second.replayed && first.cell.id != second.cell.id)
        let other = await #expect(throws: DataMediatorError.self) {
            _ = try await adapter.create(body: Self.replacement("other"), idempotencyKey: "k-1", caller: "one")
        }
        #expect(other?.code == .idempotencyKeyReused)
    }
}
