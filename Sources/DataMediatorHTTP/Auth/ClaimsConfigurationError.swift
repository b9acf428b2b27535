/// A token-verification setting that cannot be used: the server should refuse to start and
/// print the message, which names the environment variable or file at fault.
public struct ClaimsConfigurationError: Error, Sendable, CustomStringConvertible {
    /// What kind of setting is wrong; stable, so a caller can tell them apart.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private let name: String

        private init(_ name: String) { self.name = name }

        /// Neither a shared secret nor a key set is given, so no token could be verified.
        public static let noKeys = Code("no-keys")
        /// The HS256 secret is shorter than HS256 needs.
        public static let shortSecret = Code("short-secret")
        /// The key set file cannot be read.
        public static let unreadableKeySet = Code("unreadable-key-set")
        /// The key set file is not a JWKS of RS256 or ES256 public keys, each with a `kid`.
        public static let malformedKeySet = Code("malformed-key-set")
        /// A setting holds a value it does not take (a switch that is not `true` or `false`).
        public static let badValue = Code("bad-value")

        /// The code's stable name.
        public var description: String { name }
    }

    /// What kind of setting is wrong.
    public let code: Code
    /// What is wrong and how to fix it, naming the variable or file; never a secret.
    public let message: String

    /// Creates the error.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// The message.
    public var description: String { message }
}
