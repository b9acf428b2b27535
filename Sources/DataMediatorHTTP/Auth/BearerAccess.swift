import Crypto
import DataMediator
import Foundation
import Hummingbird

/// Who may write (or read, when reads are protected): requests with
/// `Authorization: Bearer <token>` naming one of the configured tokens. Tokens are compared by their SHA-256 digests in constant time, every
/// configured token each time, so timing tells nothing about how close a guess was.
public struct BearerAccess: Sendable {
    private let digests: [[UInt8]]
    /// What the tokens allow, for messages: "Writes" or "Reads".
    private let action: String

    /// Creates the access check; empty tokens are ignored. With none, every request is refused.
    public init(tokens: [String], action: String = "Writes") {
        digests = tokens.filter { !$0.isEmpty }.map { Array(SHA256.hash(data: Array($0.utf8))) }
        self.action = action
    }

    /// Whether any token is configured.
    public var isEnabled: Bool { !digests.isEmpty }

    /// Whether the request holds one of the tokens (without saying why not).
    func accepts(_ request: Request) -> Bool {
        guard isEnabled, let header = request.headers[.authorization], header.lowercased().hasPrefix("bearer ") else {
            return false
        }
        // RFC 6750: "Bearer" 1*SP token; the token itself holds no spaces.
        let token = header.dropFirst(7).trimmingCharacters(in: .whitespaces)
        let presented = Array(SHA256.hash(data: Array(token.utf8)))
        var matched = false
        for digest in digests {
            var difference: UInt8 = 0
            for (left, right) in zip(digest, presented) { difference |= left ^ right }
            matched = matched || difference == 0
        }
        return matched
    }

    /// Names the bearer token a request holds without holding it: the first 8 bytes of its
    /// SHA-256 in hex (what keeps one writer's idempotency keys apart from another's).
    static func credential(of request: Request) -> String {
        let header = request.headers[.authorization] ?? ""
        let token =
            header.lowercased().hasPrefix("bearer ") ? header.dropFirst(7).trimmingCharacters(in: .whitespaces) : ""
        return Hex.string(Array(SHA256.hash(data: Array(token.utf8)).prefix(8)))
    }

    /// Checks a request's credentials.
    ///
    /// - Throws: `forbidden` (403) when no token is configured; `unauthorized` (401, with
    ///   `WWW-Authenticate: Bearer`) when the token is missing or wrong.
    func authorize(_ request: Request) throws(Problem) {
        guard isEnabled else {
            throw Problem(
                .forbidden,
                detail: "\(action) are not enabled on this server: it has no token for them configured."
            )
        }
        guard let header = request.headers[.authorization], header.lowercased().hasPrefix("bearer ") else {
            throw Problem(
                .unauthorized,
                detail: "\(action) need 'Authorization: Bearer <token>'.",
                headers: BearerChallenge.credentialsMissing
            )
        }
        guard accepts(request) else {
            let detail = "The bearer token is not valid."
            throw Problem(.unauthorized, detail: detail, headers: BearerChallenge.invalidToken(detail))
        }
    }
}
