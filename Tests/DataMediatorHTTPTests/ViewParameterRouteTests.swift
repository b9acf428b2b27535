import DataMediator
import DataMediatorHTTP
import DataMediatorTesting
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

/// API.md's "Scoped lists" rule 2 on every route of a view: a required parameter missing,
/// given twice, or whose value does not convert is `400 bad-parameter` naming it; a value
/// in another decimal spelling (`07`) is the same slice as `7`, cursors included.
@Suite struct ViewParameterRouteTests {
    /// The sample's items by day, one `score` at a time (a required integer parameter).
    static let scored = View(
        name: "scored",
        sort: [SortKey("created", .descending)],
        idField: "id",
        cellType: .fixed("row"),
        fields: ["title", "score"],
        parameters: [ViewParameter(name: "score", field: "score", type: .integer, isRequired: true)]
    )

    static func withClient(_ test: @escaping @Sendable (any TestClientProtocol) async throws -> Void) async throws {
        let definition = ListDefinition(
            name: "sample",
            title: "Sample",
            idField: "id",
            views: [scored],
            limits: PageLimits(defaultLimit: 5, maximumLimit: 10)
        )
        let provider = ArrayDataProvider(items: SampleList.items(), idField: "id", views: [scored], version: 7)
        let registry = ListRegistry([
            ListAdapter(definition: definition, provider: provider, signer: CursorSigner(secret: SampleList.secret))
        ])
        try await Application(router: buildRouter(registry: registry)).test(.router) { client in try await test(client)
        }
    }

    @Test func everyRouteRefusesAMissingRepeatedOrUnconvertibleParameterNamingIt() async throws {
        let routes = [
            "/lists/sample/items?view=scored", "/lists/sample/sections?view=scored",
            "/lists/sample/items/item-01?view=scored", "/lists/sample/changes?view=scored&since=7",
            "/lists/sample/events?view=scored",
        ]
        let cases = [
            ("", "needs parameter 'score'"), ("&score=1&score=1", "'score' is given more than once"),
            ("&score=", "'score' must be an integer"), ("&score=x", "'score' must be an integer"),
            ("&score=%2B1", "'score' must be an integer"), ("&score=1.5", "'score' must be an integer"),
            ("&score=99999999999999999999", "'score' must be an integer"),
        ]
        try await Self.withClient { client in
            for route in routes {
                for (suffix, detail) in cases {
                    let answer = try await client.execute(uri: route + suffix, method: .get)
                    try ProblemTests.expectProblem(answer, status: 400, type: "bad-parameter")
                    let said = try HTTPTestSupport.json(answer)["detail"] as? String ?? ""
                    #expect(said.contains(detail), "\(route + suffix): \(said)")
                }
            }
        }
    }

    @Test func aValueWithLeadingZerosIsTheSameSliceAndItsCursorsServeBoth() async throws {
        let items = SampleList.items()
        let scores: [Int64] = items.compactMap {
            if case .integer(let score) = $0["score"], score > 0 { score } else { nil }
        }
        let score = try #require(Dictionary(grouping: scores) { $0 }.filter { $0.value.count >= 3 }.keys.min())
        let expected = SampleList.expectedOrder(items.filter { $0["score"] == .integer(score) }, view: Self.scored)
            .map { if case .string(let id) = $0["id"] { id } else { "" } }
        try await Self.withClient { client in
            let plain = try await client.execute(
                uri: "/lists/sample/items?view=scored&score=\(score)&limit=1",
                method: .get
            )
            let padded = try await client.execute(
                uri: "/lists/sample/items?view=scored&score=00\(score)&limit=1",
                method: .get
            )
            #expect(padded.status == .ok)
            #expect(Array(padded.body.readableBytesView) == Array(plain.body.readableBytesView))
            // A cursor of the padded spelling continues the plain one, and the other way.
            var ids = try Self.ids(padded)
            var next = try HTTPTestSupport.json(padded)["next"] as? String
            var spellings = ["\(score)", "0\(score)"].makeIterator()
            while let cursor = next {
                let spelling = spellings.next() ?? "\(score)"
                let page = try await client.execute(
                    uri: "/lists/sample/items?view=scored&score=\(spelling)&limit=1&cursor=\(cursor)",
                    method: .get
                )
                #expect(page.status == .ok, "score=\(spelling)")
                ids += try Self.ids(page)
                next = try HTTPTestSupport.json(page)["next"] as? String
            }
            #expect(ids == expected)
        }
    }

    static func ids(_ response: TestResponse) throws -> [String] {
        let page = try Page.decode(Array(response.body.readableBytesView))
        return page.sections.filter { $0.kind == .items }.flatMap(\.items).map(\.id)
    }
}
