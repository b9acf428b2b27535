import DataMediatorTesting
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import Synchronization
import Testing

@testable import DataMediator
@testable import DataMediatorHTTP

/// A stream that resumes behind reads each batch of its catching up in its client's line
/// of reads (``ClientLines``): one client's streams (32 of them, each reading batches of up
/// to 4 MB) read no more at once than its pages may, and another client's are not held
/// (review 80).
@Suite struct StreamCatchUpLineTests {
    /// The notes list, whose pages wait at a gate while it is shut.
    final class GatedPages: ForwardingProvider {
        let inner: any DataProvider & SectionInfoProvider
        let shut = Mutex(true)
        let arrived = Atomic(0)

        init(_ inner: any DataProvider & SectionInfoProvider) { self.inner = inner }

        func window(of view: View, from start: Position?, inclusive: Bool, limit: Int) async throws -> Window {
            arrived.add(1, ordering: .relaxed)
            while shut.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(5)) }
            return try await inner.window(of: view, from: start, inclusive: inclusive, limit: limit)
        }
    }

    @Test func aStreamCatchingUpWaitsInItsClientsLineOfReads() async throws {
        let fixture = try EventReloadTests.Fixture()
        let start = try await fixture.notes.currentVersion()
        try await fixture.write("first")
        let pages = GatedPages(fixture.notes.provider)
        let adapter = fixture.notes(readingFrom: pages)
        var configuration = HTTPServerConfiguration(
            port: 0,
            writeTokens: ["ana-writes", "bo-writes"],
            limits: ServerLimits(readsPerClient: 1)
        )
        configuration.events.heartbeat = .seconds(60)
        let app = buildApplication(
            registry: ListRegistry([adapter]),
            configuration: configuration,
            logger: Logger(label: "stream-catch-up-line-tests")
        )
        try await app.test(.live) { client in
            let port = try #require(client.port)
            // Ana's one turn: a page held at the gate.
            let page = Task {
                try await client.execute(
                    uri: "/lists/notes/items",
                    method: .get,
                    headers: [.authorization: "Bearer ana-writes"]
                )
            }
            while pages.arrived.load(ordering: .relaxed) < 1 { try await Task.sleep(for: .milliseconds(5)) }
            func stream(_ token: String) throws -> RawClient {
                let raw = try RawClient(port: port)
                raw.send(
                    "GET /lists/notes/events HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer \(token)\r\n"
                        + "Last-Event-ID: \(start)\r\n\r\n"
                )
                return raw
            }
            func events(_ raw: RawClient, within seconds: Int) async -> String {
                var text = ""
                let deadline = ContinuousClock.now + .seconds(seconds)
                while !text.contains("event: insert"), ContinuousClock.now < deadline {
                    guard let more = await raw.read(within: 1), !more.isEmpty else { continue }
                    text += more
                }
                return text
            }
            let ana = try stream("ana-writes")
            let bo = try stream("bo-writes")
            #expect(await events(bo, within: 10).contains("event: insert"), "another client's stream is not held")
            let held = await events(ana, within: 2)
            #expect(held.hasPrefix("HTTP/1.1 200"), "the stream opened: \(held)")
            #expect(!held.contains("event: insert"), "its catching up waits for the client's turn: \(held)")
            pages.shut.withLock { $0 = false }
            #expect(try await page.value.status == .ok)
            #expect(await events(ana, within: 10).contains("event: insert"))
        }
    }
}
