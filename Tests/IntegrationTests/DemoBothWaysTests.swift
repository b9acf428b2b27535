import DataMediator
import DataMediatorTesting
import Foundation
import Testing

/// Every view of the demo opened at items anywhere and walked both ways over real sockets
/// (API.md, "Both directions and anchored loads"), checked against the forward walk that
/// ``DemoWalkTests/everyListAndViewOfTheDemoWalksCorrectly()`` made of it.
extension DemoWalkTests {
    static func checkBothWays(
        _ view: DescribedView,
        forward: WalkCheck,
        on server: ServerProcess,
        random: inout SplitMix64
    ) async throws {
        let label = "\(view.list)/\(view.name)"
        let base = "/lists/\(view.list)/items?view=\(view.name)\(view.parameters)"
        func read(limit: Int?) -> (String?, String?) async throws -> Page {
            { cursor, around in
                let path =
                    base + (limit.map { "&limit=\($0)" } ?? "") + (cursor.map { "&cursor=\($0)" } ?? "")
                    + (around.map { "&around=\(PathSegment.encode($0))" } ?? "")
                let answer = try await server.get(path)
                #expect(answer.status == 200, "\(label): \(path)")
                return try Page.decode(answer.body)
            }
        }
        let ids = forward.items.map(\.id)
        guard let first = ids.first, let last = ids.last else { return }
        let anchors = [first, last, ids[random.next(below: ids.count)], ids[random.next(below: ids.count)]]
        // To both ends, a page of the largest size at a time (the 100,000-item views are
        // walked to both ends by the conformance suite's stores instead: here, a few pages).
        let whole = try await BothWaysCheck.walk(
            around: anchors[2],
            forward: forward,
            pages: ids.count <= 10_000 ? 100_000 : 3,
            read: read(limit: view.maximum)
        )
        #expect(whole.violations == [], "\(label) around \(anchors[2])")
        // A few pages each way at small sizes and the default, from both ends and between.
        for limit in [1, 2, 3, 7, nil] {
            for anchor in anchors {
                let check = try await BothWaysCheck.walk(
                    around: anchor,
                    forward: forward,
                    pages: 3,
                    read: read(limit: limit)
                )
                #expect(check.violations == [], "\(label), limit \(limit ?? 0), around \(anchor)")
            }
        }
    }
}
