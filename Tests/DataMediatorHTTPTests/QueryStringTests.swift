import DataMediator
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing

@testable import DataMediatorHTTP

/// A query is read as browsers and HTTP libraries write it: `+` is a space (what
/// `URLSearchParams` and Python's `urlencode` send for one), `%2B` a plus, names decoded too.
@Suite struct QueryStringTests {
    @Test func pairsAreSplitAndDecodedAsFormsWriteThem() throws {
        let pairs = try QueryString.pairs(of: "a=1&&b=two+words&c=one%2Bone&d&%65=%C3%A9&f==x&g=")
        #expect(pairs.map(\.name) == ["a", "b", "c", "d", "e", "f", "g"])
        #expect(pairs.map(\.value) == ["1", "two words", "one+one", "", "é", "=x", ""])
        #expect(try QueryString.pairs(of: nil).isEmpty)
        #expect(try QueryString.pairs(of: "").isEmpty)
        for bad in ["a=%", "a=%4", "a=%G0", "%ZZ=1", "a=%FF", "a=%C3"] {
            #expect(throws: DataMediatorError.self, "\(bad)") { try QueryString.pairs(of: bad) }
        }
    }

    @Test func aSliceParameterWithASpaceOrAPlusReadsItsOwnItems() async throws {
        let fixture = try ScopedListTests.Fixture()
        try await fixture.run { client in
            let ana = try await ScopedListTests.headers("ana")
            for (id, tag) in [("w1", "two words"), ("w2", "two+words"), ("w3", "two")] {
                let created = try await client.execute(
                    uri: "/lists/mine/items",
                    method: .post,
                    headers: ana,
                    body: ByteBuffer(string: #"{"id": "\#(id)", "data": {"title": "\#(id)", "tag": "\#(tag)"}}"#)
                )
                #expect(created.status == .created)
            }
            let expected = [
                ("tag=two+words", ["w1"]), ("tag=two%20words", ["w1"]), ("tag=two%2Bwords", ["w2"]),
                ("t%61g=two", ["w3"]),
            ]
            for (query, ids) in expected {
                let page = try await client.execute(uri: "/lists/mine/items?\(query)", method: .get, headers: ana)
                #expect(page.status == .ok, "\(query)")
                #expect(try ScopedListTests.ids(page) == ids, "\(query)")
            }
        }
    }
}
