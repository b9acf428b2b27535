import HTTPTypes
import Hummingbird
import NIOCore
import Synchronization
import Testing

@testable import DataMediatorHTTP

/// A streamed answer stops counting as an active request once: when written, or when
/// dropped unwritten (its connection closed before the head could be written: the
/// framework never writes the body, and `http.server.active_requests` stayed one up for
/// good; review 84 F5).
@Suite struct CountedBodyTests {
    final class Calls: Sendable {
        let count = Mutex(0)
    }

    @Test func aStreamedBodyDroppedUnwrittenIsCountedDone() {
        let calls = Calls()
        do {
            let body = RequestMiddleware<BasicRequestContext>.counted(ResponseBody { _ in }) {
                calls.count.withLock { $0 += 1 }
            }
            #expect(body.contentLength == nil)
            #expect(calls.count.withLock { $0 } == 0, "done before the body went")
        }
        #expect(calls.count.withLock { $0 } == 1)
    }

    @Test func aStreamedBodyWrittenIsCountedDoneOnce() async throws {
        let calls = Calls()
        do {
            let body = RequestMiddleware<BasicRequestContext>.counted(ResponseBody { _ in }) {
                calls.count.withLock { $0 += 1 }
            }
            try await body.write(Discarding())
        }
        #expect(calls.count.withLock { $0 } == 1, "counted done twice, or never")
    }

    /// A writer that drops what it is given.
    struct Discarding: ResponseBodyWriter {
        mutating func write(_ buffer: ByteBuffer) async throws {}
        consuming func finish(_ trailingHeaders: HTTPFields?) async throws {}
    }
}
