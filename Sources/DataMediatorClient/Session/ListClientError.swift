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

        /// The code's name.
        public var description: String { name }
    }

    /// The kind of failure.
    public let code: Code
    /// The HTTP status, when the server answered.
    public let status: Int?
    /// What happened, safe to show.
    public let message: String

    /// Creates an error.
    public init(_ code: Code, status: Int? = nil, message: String) {
        self.code = code
        self.status = status
        self.message = message
    }

    /// The error for an answer with `status`: ``Code/historyGone`` for `410`.
    public static func answered(_ status: Int, body: String) -> ListClientError {
        ListClientError(status == 410 ? .historyGone : .status, status: status, message: "HTTP \(status): \(body)")
    }

    /// The code and the message.
    public var description: String { "\(code): \(message)" }
}
