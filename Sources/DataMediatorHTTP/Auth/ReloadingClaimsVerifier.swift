import DataMediator
import Foundation
import JWTKit
import Synchronization

/// A ``ClaimsVerifier`` whose public keys are read again from the JWKS file while the
/// server runs, so that keys rotate without a restart.
///
/// The file is the whole truth: after a reload, tokens are verified with exactly the keys
/// it holds. A key rotation therefore publishes the new key next to the old one, starts
/// signing with the new one, and removes the old one once its last tokens expired; removing
/// a key is also how a leaked one is revoked. A file that cannot be used (missing, not a key
/// set, a key that is not RS256 or ES256) changes nothing: the keys in use stay, and the
/// reload says why.
public final class ReloadingClaimsVerifier: Sendable {
    /// What a reload did.
    public enum Outcome: Sendable, Equatable {
        /// The file holds the bytes the keys in use were read from.
        case unchanged
        /// The file's keys are the ones in use now: their `kid`s, sorted, and the keys it
        /// holds that were left out, with why (``ClaimsConfiguration/skippedKeys``).
        case reloaded(keyIDs: [String], skipped: [String])
        /// The file cannot be used now, for the reason given; the keys in use stay.
        case refused(String)
    }

    /// The configuration in use (with the key set's bytes) and its verifier.
    private struct Keys: Sendable {
        var configuration: ClaimsConfiguration
        var verifier: ClaimsVerifier
    }

    private let keys: Mutex<Keys>

    /// Prepares the keys of a configuration, as ``ClaimsVerifier/init(_:)`` does.
    ///
    /// - Throws: what ``ClaimsVerifier/init(_:)`` throws.
    public init(_ configuration: ClaimsConfiguration) async throws(ClaimsConfigurationError) {
        keys = Mutex(Keys(configuration: configuration, verifier: try await ClaimsVerifier(configuration)))
    }

    /// The path of the key set file that ``reload()`` reads, nil when there is none.
    public var keySetFile: String? { keys.withLock { $0.configuration.keySetFile } }

    /// How far past `exp` a token is still accepted: an event stream opened with it runs
    /// as long as its pages are answered.
    public var leeway: Duration { keys.withLock { $0.configuration.leeway } }

    /// The algorithms whose tokens are accepted now, sorted.
    public var algorithms: [String] { keys.withLock { $0.verifier.algorithms } }

    /// Verifies a token with the keys in use (``ClaimsVerifier/claims(fromAuthorization:)``).
    public func claims(fromAuthorization value: String?) async throws(Problem) -> [String: JSONValue] {
        let verifier = keys.withLock { $0.verifier }
        return try await verifier.claims(fromAuthorization: value)
    }

    /// Reads the key set file again and, when its bytes changed and it holds usable keys,
    /// verifies tokens with them from now on.
    ///
    /// Reloads may overlap: one that read the file while another installed newer keys
    /// leaves those in place.
    public func reload() async -> Outcome {
        let current = keys.withLock { $0.configuration }
        guard let path = current.keySetFile else { return .unchanged }
        let changed: ClaimsConfiguration
        let verifier: ClaimsVerifier
        do {
            let data = try ClaimsConfiguration.keySetData(at: path)
            guard data != current.keySetData else { return .unchanged }
            changed = try current.replacingKeySet(with: data)
            verifier = try await ClaimsVerifier(changed)
        } catch {
            return .refused(error.message)
        }
        let installed = keys.withLock { keys in
            guard keys.configuration.keySetData == current.keySetData else { return false }
            keys = Keys(configuration: changed, verifier: verifier)
            return true
        }
        guard installed else { return .unchanged }
        return .reloaded(
            keyIDs: (changed.keySet?.keys ?? []).compactMap { $0.keyIdentifier?.string }.sorted(),
            skipped: changed.skippedKeys
        )
    }
}
