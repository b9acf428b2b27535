import DataMediator
import HTTPTypes

extension ConnectionGuard {
    /// What tells a connection's guard that a newcomer takes its place.
    struct Evicted {}

    /// What ends the body of a request the guard answered itself (late, or its connection
    /// taken): the framework's reading of it fails with this, and its own answer, which
    /// goes nowhere, is neither logged nor counted (``RequestMiddleware``).
    struct RequestCut: Error {}

    /// What the guard's own answer to a request names of it: its path (the problem's
    /// `instance`), its id (the client's when kept, as ``RequestMiddleware`` does), method
    /// (`-` for a request it could not read) and when it began.
    struct ReadRequest {
        let path: String?
        let id: String
        let method: String
        /// Its `Origin`, for the CORS fields of an answer the guard writes.
        var origin: String? = nil
        /// When its head was read, for its line's `duration_ms` and its metrics.
        var started = ContinuousClock.now

        /// A request the framework could not read, answered now: a `CONNECT` (which it reads
        /// no further) by its method, any other as `-`.
        static func unread(path: String?, connect: Bool) -> ReadRequest {
            ReadRequest(path: path, id: RequestIDs.next(), method: connect ? "CONNECT" : "-")
        }
    }
}

extension Problem {
    /// The answer to a write whose body did not come whole within `timeout` of its head.
    static func late(_ timeout: Duration) -> Problem {
        Problem(
            .requestTimeout,
            detail: "The request's body did not come whole within \(timeout.components.seconds) "
                + "seconds of its head: nothing was stored. Send it again, whole."
        )
    }

    /// The answer to a write whose connection a newcomer took, its body awaited longest.
    static var evicted: Problem {
        Problem(
            .tooManyConnections,
            detail: "The server holds as many connections as it keeps, and this request's body was the one "
                + "awaited longest: nothing was stored. Send it again, whole.",
            headers: [.retryAfter: "1"]
        )
    }
}
