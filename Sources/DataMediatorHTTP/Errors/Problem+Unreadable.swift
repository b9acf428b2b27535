import NIOHTTP1

extension Problem {
    /// The answer to a request the HTTP/1 parser could not read (the server closes the
    /// connection after it): headers over the limit `431`, a method it does not know `501`,
    /// an HTTP version it does not speak `505` (RFC 9110 15.6.6), anything else `400`.
    ///
    /// NIO's parser takes the method `PRI` for the start of HTTP/2's connection preface
    /// (RFC 9113 3.4): with an HTTP/1 version it names the version bad, so a request that
    /// `beganWithPRI` is `501` as any other unknown method; the whole preface (a client that
    /// speaks HTTP/2 without asking) pauses the parser and is `505`.
    init(unreadable error: HTTPParserError, beganWithPRI: Bool = false) {
        switch error {
        case .headerOverflow:
            self.init(
                .headersTooLarge,
                detail: "The request line and headers are larger than this server reads, or hold more than "
                    + "\(ServerLimits.maximumHeaderFields) fields; the connection is closed."
            )
        case .invalidMethod:
            self.init(
                .notImplemented,
                detail: "The request's method is not one this server knows; the connection is closed."
            )
        case .invalidVersion where beganWithPRI:
            self.init(
                .notImplemented,
                detail: "The request's method, PRI, only opens an HTTP/2 connection, and this server speaks "
                    + "HTTP/1.1 and HTTP/1.0; the connection is closed."
            )
        case .paused:
            self.init(
                .httpVersionNotSupported,
                detail: "The connection began with HTTP/2's preface: this server speaks HTTP/1.1 and HTTP/1.0 "
                    + "(over TLS, a proxy before it may speak HTTP/2). The connection is closed."
            )
        case .invalidVersion:
            self.init(
                .httpVersionNotSupported,
                // The parser says so too of a request line that ends in a bare LF after the
                // version (RFC 9112 2.2 lets a server take it; NIO's parser does not).
                detail: "The request line does not end in 'HTTP/1.1' or 'HTTP/1.0' followed by CRLF (or its method "
                    + "is PRI, which only opens HTTP/2): this server speaks HTTP/1.1 and HTTP/1.0, with CRLF line "
                    + "ends. The connection is closed."
            )
        case .invalidURL:
            self.init(.badRequest, detail: "The request's target is not a valid URI; the connection is closed.")
        default:
            self.init(.badRequest, detail: "The request is not valid HTTP/1.1; the connection is closed.")
        }
    }

    /// The answer to a request ``RequestHeadCheck`` refused (RFC 9112 3.2).
    static let hostRefused = Problem(
        .badRequest,
        detail: "The request has no Host header, more than one, or one that is not a host and port; "
            + "the connection is closed."
    )
}
