import DataMediatorClient
import Foundation
import Hummingbird
import HummingbirdTesting
import NIOCore
import Synchronization
import Testing

/// A server that breaks the contract on purpose, as a broken server or a proxy in front of
/// one does: endless bodies and lines, an empty answer of another type, a stream that only
/// sets its reconnection time and sends heartbeats.
enum HostileServer {
    /// How many times `/lists/spinning/changes` and a cursor page of `hollow` were asked.
    static let changesAsked = Atomic(0)
    static let hollowPages = Atomic(0)

    /// An answer of JSON `text`.
    static func json(_ text: String) -> Response {
        Response(
            status: .ok,
            headers: [.contentType: "application/json"],
            body: ResponseBody(byteBuffer: ByteBuffer(string: text))
        )
    }

    /// `hollow`'s page: one item first, one more on the first cursor page, then pages that
    /// hold nothing and still say `next`.
    static func hollowPage(_ request: Request) -> Response {
        let item = #"{"id":"ID","type":"t","rev":"1","data":{}}"#
        let section = #"{"id":"s","kind":"items","title":null,"continues":false,"items":[ITEMS]}"#
        func page(_ items: [String]) -> Response {
            let sections =
                items.isEmpty ? "" : section.replacingOccurrences(of: "ITEMS", with: items.joined(separator: ","))
            return json(#"{"list":"hollow","view":"v","version":"1","sections":[\#(sections)],"next":"c","prev":null}"#)
        }
        guard request.uri.queryParameters["cursor"] != nil else {
            return page([item.replacingOccurrences(of: "ID", with: "a")])
        }
        let asked = hollowPages.add(1, ordering: .relaxed).newValue
        return page(asked == 1 ? [item.replacingOccurrences(of: "ID", with: "b")] : [])
    }

    /// Runs `body` with the base URL of a live server with those routes on a free port.
    static func run(_ body: @Sendable (URL) async throws -> Void) async throws {
        let router = Router()
        router.get("/lists/spinning/changes") { _, _ -> Response in
            changesAsked.add(1, ordering: .relaxed)
            return json(#"{"version":"5","changes":[],"next":"1"}"#)
        }
        router.get("/lists/:list/items") { request, context -> Response in
            let list = context.parameters.get("list") ?? ""
            if list == "hollow" { return hollowPage(request) }
            guard list == "huge" else {
                let page = #"{"list":"\#(list)","view":"v","version":"1","sections":[],"next":null,"prev":null}"#
                return Response(
                    status: .ok,
                    headers: [.contentType: "application/json"],
                    body: ResponseBody(byteBuffer: ByteBuffer(string: page))
                )
            }
            return Response(
                status: .ok,
                headers: [.contentType: "application/json"],
                body: ResponseBody { writer in
                    try await writer.write(ByteBuffer(string: #"{"list":"huge","sections":["#))
                    let blanks = ByteBuffer(repeating: UInt8(ascii: " "), count: 64 << 10)
                    // Up to 6 GiB: the client stops reading long before.
                    for _ in 0..<100_000 { try await writer.write(blanks) }
                    try await writer.finish(nil)
                }
            )
        }
        router.get("/lists/longline/events") { _, _ -> Response in
            Response(
                status: .ok,
                headers: [.contentType: "text/event-stream"],
                body: ResponseBody { writer in
                    try await writer.write(ByteBuffer(string: "data: "))
                    let letters = ByteBuffer(repeating: UInt8(ascii: "x"), count: 64 << 10)
                    for _ in 0..<100_000 { try await writer.write(letters) }
                    try await writer.finish(nil)
                }
            )
        }
        router.get("/lists/empty/events") { _, _ -> Response in
            Response(status: .ok, headers: [.contentType: "text/html"], body: ResponseBody())
        }
        router.get("/lists/quiet/events") { _, _ -> Response in
            Response(
                status: .ok,
                headers: [.contentType: "text/event-stream"],
                body: ResponseBody { writer in
                    try await writer.write(ByteBuffer(string: "retry: 1234\n\n"))
                    for _ in 0..<600 {
                        try await writer.write(ByteBuffer(string: ": heartbeat\n\n"))
                        try await Task.sleep(for: .milliseconds(100))
                    }
                    try await writer.finish(nil)
                }
            )
        }
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        try await app.test(.live) { client in
            let port = try #require(client.port)
            try await body(try #require(URL(string: "http://127.0.0.1:\(port)")))
        }
    }
}

/// What the kit does with a server that breaks the contract: it bounds what it reads and
/// what it asks again, and says what went wrong.
@Suite struct HostileServerTests {
    @Test func anEndlessBodyIsNotReadOn() async throws {
        try await HostileServer.run { base in
            let transport = URLSessionTransport(baseURL: base, maximumBodyBytes: 1 << 20)
            do {
                _ = try await transport.get(path: "/lists/huge/items", query: [], headers: [:])
                Issue.record("an endless body was answered")
            } catch let error as ListClientError {
                #expect(error.code == .badAnswer && error.message.contains("1048576 bytes"), "\(error)")
            }
        }
    }

    /// The error a stream at `path` ends with; nil (and an issue) when it yields an event or
    /// ends as if the server had closed it.
    static func streamFailure(_ transport: URLSessionTransport, _ path: String) async -> ListClientError? {
        do {
            for try await event in transport.events(path: path, query: [], headers: [:]) {
                Issue.record("\(path): an event: \(event.type), \(event.data.count) bytes")
            }
            Issue.record("\(path): the stream ended as if the server had closed it")
        } catch {
            return error as? ListClientError
        }
        return nil
    }

    /// An endless line is not read on; a `200` of another type with no body at all (never
    /// seen by the data callback) is a failed connection, as a captive portal's page is:
    /// waited for before asking again.
    @Test func anEndlessLineAndAnEmptyAnswerOfAnotherTypeEndTheStream() async throws {
        try await HostileServer.run { base in
            let transport = URLSessionTransport(baseURL: base, maximumBodyBytes: 1 << 20)
            let long = await Self.streamFailure(transport, "/lists/longline/events")
            #expect(
                long?.code == .badAnswer && long?.message.contains("1048576 bytes") == true,
                "\(String(describing: long))"
            )
            let empty = await Self.streamFailure(transport, "/lists/empty/events")
            #expect(
                empty?.code == .transport && empty?.message.contains("not text/event-stream") == true,
                "\(String(describing: empty))"
            )
        }
    }

    /// A server that answers `next` without changes, or pages without items, for ever is
    /// not asked for ever: the changes end in a reload after a few answers, and a reload
    /// stops at a page that adds nothing.
    @Test func answersThatSayNextForEverAreNotReadForEver() async throws {
        try await HostileServer.run { base in
            let spinning = ListSession(baseURL: base, configuration: ListSessionConfiguration(list: "spinning"))
            try await spinning.loadFirstPage()
            try await spinning.catchUp()
            let asked = HostileServer.changesAsked.load(ordering: .relaxed)
            #expect((1...12).contains(asked), "/changes asked \(asked) times")
            #expect(await spinning.statistics.reloads == 1)
            let hollow = ListSession(baseURL: base, configuration: ListSessionConfiguration(list: "hollow"))
            try await hollow.loadFirstPage()
            #expect(try await hollow.loadMore())
            #expect(await hollow.snapshot.items.map(\.id) == ["a", "b"])
            try await hollow.refresh()
            #expect(HostileServer.hollowPages.load(ordering: .relaxed) == 2)
        }
    }

    /// The stream's `retry:` holds from when it comes, not from the first event after it: a
    /// quiet list's stream sends heartbeats only.
    @Test func theRetryHoldsBeforeAnyEvent() async throws {
        try await HostileServer.run { base in
            let configuration = ListSessionConfiguration(list: "quiet", reconnectDelay: .seconds(30))
            let session = ListSession(baseURL: base, configuration: configuration)
            let follower = Task { try await session.follow() }
            defer { follower.cancel() }
            let deadline = ContinuousClock.now + .seconds(20)
            while await session.statistics.reconnectionTime == nil, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect(await session.statistics.reconnectionTime == .milliseconds(1234))
        }
    }
}
