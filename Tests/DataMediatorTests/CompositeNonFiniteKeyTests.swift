import DataMediatorTesting
import Testing

@testable import DataMediator

/// A composite's cursor holds its child's position: a number key of ±infinity in there
/// leads where it was (review 107 #1: written as JSON, it became `null`, the next page
/// started the child again at its beginning, and a walk came round for ever).
@Suite struct CompositeNonFiniteKeyTests {
    @Test("a composite over keys of ±infinity is walked both ways", arguments: [1, 2, 5])
    func aCompositeOverInfiniteKeysIsWalked(limit: Int) async throws {
        let items = SampleList.items().enumerated().map { index, item in
            var item = item
            if index % 5 == 0 { item["score"] = .number(index % 10 == 0 ? .infinity : -.infinity) }
            return item
        }
        let signer = CursorSigner(secret: SampleList.secret)
        let sample = ListAdapter(
            definition: SampleList.definition,
            provider: ArrayDataProvider(items: items, idField: "id", views: SampleList.views),
            signer: signer
        )
        let flat = try sample.definition.view(named: "flat")
        let screen = ListAdapter.composite(
            name: "screen",
            title: "Screen",
            children: [CompositeTests.welcome(1), CompositeChild(name: "all", content: .list(sample, view: flat))],
            signer: signer
        )
        let expected = ["welcome/w0"] + SampleList.expectedOrder(items, view: flat).map { "all/" + $0["id"].idString }
        var forward = try await SampleList.walk(screen, view: nil, limit: limit)
        forward.expectOrder(expected)
        #expect(forward.violations == [], "limit \(limit)")
        for id in [expected[1], expected[expected.count / 2], expected[expected.count - 1]] {
            let check = try await SampleList.walkBothWays(screen, view: nil, limit: limit, around: id, forward: forward)
            #expect(check.violations == [], "limit \(limit), around \(id)")
        }
    }

    /// The payload keeps such a position whole, and a finite one as earlier releases wrote
    /// it (as JSON text), so their cursors stay the same bytes.
    @Test func thePayloadKeepsANonFinitePosition() throws {
        let inner = JSONValue.array([.number(-.infinity), .string("5")])
        let cursor = Cursor(
            list: "screen",
            view: "all",
            position: Position([.array([.integer(1), .integer(3), inner])]),
            inclusive: false,
            backward: false
        )
        #expect(CursorPayload.decode(CursorPayload.encode(cursor)) == cursor)
        let nan = Cursor(
            list: "l",
            view: "v",
            position: Position([.array([.integer(0), .array([.number(.nan)])])]),
            inclusive: false,
            backward: true
        )
        let decoded = try #require(CursorPayload.decode(CursorPayload.encode(nan)))
        guard case .array(let parts) = decoded.position.values[0], case .array(let keys) = parts[1],
            case .number(let real) = keys[0]
        else { throw DataMediatorError(.badCursor, "not the position") }
        #expect(real.isNaN)
        let finite = Cursor(
            list: "l",
            view: "v",
            position: Position([.array([.integer(0), .integer(2), .array([.number(1.5)])])]),
            inclusive: false,
            backward: false
        )
        // Kind 6 (JSON text), as before.
        #expect(CursorPayload.encode(finite).contains(6))
        #expect(!CursorPayload.encode(finite).contains(8))
    }
}
