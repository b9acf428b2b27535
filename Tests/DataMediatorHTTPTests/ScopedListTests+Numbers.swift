import DataMediator
import DataMediatorTesting
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

extension ScopedListTests {
    /// A list scoped by a `number` field: the holder of a claim that its token's JSON gives
    /// as an integer (`5`) reads the changes of its own writes, whose items hold the claim
    /// as a number (`5.0`), and so does the holder of `5.0`; `-0` is the caller of `0`.
    @Test func aNumberScopesHoldersReadTheChangesOfTheirOwnWrites() async throws {
        let fixture = try Fixture(mineClaim: "team", ownerType: .number)
        try await fixture.run { client in
            let pairs: [(JSONValue, JSONValue)] = [(.integer(5), .number(5)), (.number(-0.0), .integer(0))]
            for (index, (claim, same)) in pairs.enumerated() {
                let writer = try await Self.headers("w\(index)", claims: ["team": claim])
                let reader = try await Self.headers("r\(index)", claims: ["team": same])
                let before = try await client.execute(uri: "/lists/mine/items", method: .get, headers: writer)
                let version = try Page.decode(Array(before.body.readableBytesView)).version
                try await Self.create([(writer, "n\(index)")], client)
                for (who, headers) in [("writer", writer), ("reader", reader)] {
                    let changes = try await client.execute(
                        uri: "/lists/mine/changes?since=\(version)",
                        method: .get,
                        headers: headers
                    )
                    #expect(changes.status == .ok)
                    let entries = try HTTPTestSupport.json(changes)["changes"] as? [[String: Any]]
                    let ids = entries?.compactMap { ($0["item"] as? [String: Any])?["id"] as? String }
                    #expect(ids == ["n\(index)"], "\(claim)'s \(who): \(entries ?? [])")
                }
            }
        }
    }
}
