import DataMediatorTesting
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Synchronization
import Testing

@testable import DataMediator
@testable import DataMediatorHTTP

/// On a store whose reads may lag (read-your-writes kept), a request's waits for its
/// client's writes and its reads share the store's timeout (``ReadTime``): the reads of a
/// page see when the request's reads began; a stream's reads, made long after, do not.
@Suite struct ReadTimeTests {
    /// A provider that notes whether its reads saw when their request's reads began.
    final class Witness: ForwardingProvider {
        let inner: any DataProvider & SectionInfoProvider
        /// Each read's name, and whether it saw a beginning.
        let seen = Mutex<[String: Bool]>([:])

        init(_ inner: any DataProvider & SectionInfoProvider) { self.inner = inner }

        func window(of view: View, from start: Position?, inclusive: Bool, limit: Int) async throws -> Window {
            seen.withLock { $0["window"] = ReadTime.began != nil }
            return try await inner.window(of: view, from: start, inclusive: inclusive, limit: limit)
        }

        func currentVersion() async throws -> Int64 {
            seen.withLock { $0["version"] = ReadTime.began != nil }
            return try await inner.currentVersion()
        }
    }

    @Test func aPagesReadsShareTheRequestsTimeAndAStreamsDoNot() async throws {
        let fixture = try EventReloadTests.Fixture()
        let start = try await fixture.notes.currentVersion()
        // History of 3 versions: a stream from the start is told to reload, and ends.
        for index in 0..<6 { try await fixture.write("n\(index)") }
        let witness = Witness(fixture.notes.provider)
        let adapter = fixture.notes(readingFrom: witness)
        var configuration = HTTPServerConfiguration(writeTokens: ["ana-writes"])
        configuration.readYourWrites = .seconds(60)
        let router = buildRouter(registry: ListRegistry([adapter]), configuration: configuration)
        try await Application(router: router).test(.router) { client in
            #expect(try await client.execute(uri: "/lists/notes/items", method: .get).status == .ok)
            #expect(witness.seen.withLock { $0["window"] } == true, "the page's read saw when the request began")
            let stream = try await client.execute(
                uri: "/lists/notes/events",
                method: .get,
                headers: [EventStream.lastEventID: "\(start + 1)"]
            )
            #expect(String(buffer: stream.body).contains("event: reload"))
            #expect(witness.seen.withLock { $0["version"] } == false, "the stream's read had its own time")
        }
    }
}
