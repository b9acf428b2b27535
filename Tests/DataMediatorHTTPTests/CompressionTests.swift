import CompressNIO
import DataMediator
import DataMediatorTesting
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing

@testable import DataMediatorHTTP

/// Answers in gzip to clients that accept it: the same content, a strong `ETag` of its
/// own that conditions match in either form, `Vary: Accept-Encoding`, and never an event
/// stream.
@Suite struct CompressionTests {
    static let page = "/lists/sample/items?view=flat&limit=10"

    static func gunzip(_ buffer: ByteBuffer) throws -> [UInt8] {
        var buffer = buffer
        return Array(try buffer.decompress(with: .gzip()).readableBytesView)
    }

    @Test func aPageInGzipHoldsTheSameBytesUnderATagOfItsOwn() async throws {
        try await HTTPTestSupport.withClient { client in
            let plain = try await client.execute(uri: Self.page, method: .get)
            let zipped = try await client.execute(uri: Self.page, method: .get, headers: [.acceptEncoding: "gzip"])
            #expect(plain.headers[.contentEncoding] == nil)
            #expect(zipped.headers[.contentEncoding] == "gzip")
            #expect(try Self.gunzip(zipped.body) == Array(plain.body.readableBytesView))
            #expect(zipped.body.readableBytes < plain.body.readableBytes)
            #expect(zipped.headers[.contentLength] == String(zipped.body.readableBytes))
            for answer in [plain, zipped] { #expect(answer.headers[.vary]?.contains("Accept-Encoding") == true) }
            let tag = try #require(plain.headers[.eTag])
            #expect(zipped.headers[.eTag] == String(tag.dropLast()) + "-gzip\"")
            // Either tag matches, answered in the form the client takes.
            for (held, encoding, answered) in [
                (zipped.headers[.eTag], "gzip", zipped.headers[.eTag]), (tag, "gzip", zipped.headers[.eTag]),
                (zipped.headers[.eTag], "identity", tag),
            ] {
                let again = try await client.execute(
                    uri: Self.page,
                    method: .get,
                    headers: [.acceptEncoding: encoding, .ifNoneMatch: try #require(held)]
                )
                #expect(again.status == .notModified && again.headers[.eTag] == answered, "\(encoding)")
                #expect(again.body.readableBytes == 0 && again.headers[.contentEncoding] == nil)
            }
        }
    }

    @Test(arguments: [
        ("gzip", true), ("GZip;q=0.5, identity", true), ("*", true), ("x-gzip", true), ("gzip;q=0", false),
        ("gzip;q=0, *", false), ("*;q=0", false), ("identity", false), ("br, deflate", false), ("", false),
    ])
    func acceptEncodingIsReadWithItsWeights(header: String, compressed: Bool) async throws {
        try await HTTPTestSupport.withClient { client in
            let answer = try await client.execute(uri: Self.page, method: .get, headers: [.acceptEncoding: header])
            #expect(answer.status == .ok)
            #expect((answer.headers[.contentEncoding] == "gzip") == compressed, "\(header)")
        }
    }

    @Test func anEventStreamIsNeverCompressed() async throws {
        try await HTTPTestSupport.withClient { client in
            let stream = try await client.execute(
                uri: "/lists/sample/events",
                method: .head,
                headers: [.acceptEncoding: "gzip"]
            )
            #expect(stream.status == .ok && stream.headers[.contentType]?.hasPrefix("text/event-stream") == true)
            #expect(stream.headers[.contentEncoding] == nil)
        }
    }

    @Test func aWriteTakesTheGzipFormOfAnItemsTag() async throws {
        let fixture = try WriteRouteTests.Fixture()
        try await fixture.run { client in
            let created = try await client.execute(
                uri: "/lists/notes/items",
                method: .post,
                headers: WriteRouteTests.headers(),
                body: WriteRouteTests.body(#"{"id": "n1", "data": {"title": "first"}}"#)
            )
            #expect(created.status == .created)
            let read = try await client.execute(
                uri: "/lists/notes/items/n1",
                method: .get,
                headers: [.acceptEncoding: "gzip"]
            )
            let tag = try #require(read.headers[.eTag])
            #expect(tag.hasSuffix("-gzip\""))
            let replaced = try await client.execute(
                uri: "/lists/notes/items/n1",
                method: .put,
                headers: WriteRouteTests.headers([.ifMatch: tag]),
                body: WriteRouteTests.body(#"{"data": {"title": "second"}}"#)
            )
            #expect(replaced.status == .ok)
            let stale = try await client.execute(
                uri: "/lists/notes/items/n1",
                method: .put,
                headers: WriteRouteTests.headers([.ifMatch: tag]),
                body: WriteRouteTests.body(#"{"data": {"title": "third"}}"#)
            )
            #expect(stale.status == .preconditionFailed)
        }
    }
}
