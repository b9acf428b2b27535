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
    /// `instance`), its id (the client's when kept, as ``RequestMiddleware`` does) and method.
    struct ReadRequest {
        let path: String?
        let id: String
        let method: String
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
