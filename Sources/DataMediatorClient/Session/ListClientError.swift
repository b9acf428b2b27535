import Foundation

/// What went wrong talking to the server, with a stable code to switch on.
public struct ListClientError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of failure; new codes may be added.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        let name: String

        /// The server answered with an unexpected HTTP status (see ``ListClientError/status``).
        public static let status = Code(name: "status")
        /// The history the session needs is gone (`410`): the session reloads.
        public static let historyGone = Code(name: "history-gone")
        /// An answer that is not what the contract says.
        public static let badAnswer = Code(name: "bad-answer")
        /// The connection failed or was cut.
        public static let transport = Code(name: "transport")
        /// Every answer to a page by cursor was older than what the session holds (a
        /// replica behind the one read before, for longer than the session reads again):
        /// nothing changed; try again after ``ListClientError/retryAfter``.
        public static let behind = Code(name: "behind")
        /// The session's configuration cannot make a request (a parameter named as one of
        /// the routes' own, `limit` say): nothing was sent, and trying again fails again.
        public static let badConfiguration = Code(name: "bad-configuration")

        /// The code's name.
        public var description: String { name }
    }

    /// The kind of failure.
    public let code: Code
    /// The HTTP status, when the server answered.
    public let status: Int?
    /// What happened, safe to show: the problem's `detail` when the server sent one.
    public let message: String
    /// The problem's kind when the server answered `application/problem+json` (RFC 9457):
    /// the last segment of its `type`, such as `bad-cursor`.
    public let problem: String?
    /// How long the server asked the client to wait before trying again (`Retry-After`, in
    /// seconds, on `429` and `503`).
    public var retryAfter: Duration?

    /// Creates an error.
    public init(_ code: Code, status: Int? = nil, message: String, problem: String? = nil) {
        self.code = code
        self.status = status
        self.message = message
        self.problem = problem
    }

    /// The error for an answer with `status` and `body`: ``Code/historyGone`` for `410`,
    /// with the problem's kind and detail (or title) when the body is a problem, and
    /// `retryAfter` from a `Retry-After` of seconds or an HTTP date. A body that is not a
    /// problem (a proxy's HTML page) is left out of the message, which stays safe to show.
    public static func answered(_ status: Int, body: [UInt8], retryAfter: String? = nil) -> ListClientError {
        let problem = try? JSONDecoder().decode(ProblemBody.self, from: Data(body))
        var error = ListClientError(
            status == 410 ? .historyGone : .status,
            status: status,
            message: (problem?.detail ?? problem?.title).map { "HTTP \(status): \($0)" } ?? "HTTP \(status)",
            problem: problem?.type?.split(separator: "/").last.map(String.init)
        )
        error.retryAfter = retryAfter.flatMap { Self.wait($0, now: Date()) }
        return error
    }

    /// A `Retry-After` value as a wait from `now` (RFC 9110 10.2.3): whole seconds, or an
    /// HTTP date (a date already past is no wait); nil for anything else.
    static func wait(_ value: String, now: Date) -> Duration? {
        let text = value.trimmingCharacters(in: .whitespaces)
        if let seconds = Int(text) { return seconds >= 0 ? .seconds(seconds) : nil }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        guard let date = formatter.date(from: text) else { return nil }
        return .milliseconds(max(0, Int((date.timeIntervalSince(now) * 1000).rounded(.up))))
    }

    /// Whether the server refused the cursor the session held (`bad-cursor`, as after the
    /// server's cursor secret changed, or `cursor-mismatch`): the session reloads.
    var refusedCursor: Bool { problem == "bad-cursor" || problem == "cursor-mismatch" }

    /// The code and the message.
    public var description: String { "\(code): \(message)" }
}

/// The members of a problem (RFC 9457) the kit reads; others are ignored, and so is one of
/// these that is not a string (RFC 9457 3.1: a member of the wrong type is ignored, and a
/// problem without `type` is `about:blank`), so a gateway's problem still says its detail.
private struct ProblemBody: Decodable {
    let type: String?
    let title: String?
    let detail: String?

    private enum Member: String, CodingKey {
        case type, title, detail
    }

    init(from decoder: any Decoder) throws {
        let members = try decoder.container(keyedBy: Member.self)
        type = try? members.decode(String.self, forKey: .type)
        title = try? members.decode(String.self, forKey: .title)
        detail = try? members.decode(String.self, forKey: .detail)
    }
}
