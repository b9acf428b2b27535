import Foundation
import JWTKit

extension ClaimsConfiguration {
    /// The public keys of a key set file's bytes, each with its `alg` set to RS256 or ES256,
    /// and the keys left out with why.
    ///
    /// A key of another type (`oct`, `OKP`), for encryption (`use`, `key_ops`) or of another
    /// algorithm or curve is left out, as RFC 7517 section 5 has a set's reader do, so that
    /// an identity provider's published set works as it is. A key this service would take
    /// but cannot (no `kid`, a `kid` twice, a private part) is a broken file and refused,
    /// and so is a set left with no key to verify with.
    static func keySet(
        from data: Data,
        at path: String
    ) throws(ClaimsConfigurationError) -> (keys: JWKS, skipped: [String], skippedIDs: Set<String>) {
        let members = ((try? JSONSerialization.jsonObject(with: data)) as? [String: Any])?["keys"] as? [Any]
        guard let members else { throw notAKeySet(data, at: path) }
        guard !members.isEmpty else {
            throw ClaimsConfigurationError(.malformedKeySet, "DATA_MEDIATOR_JWKS_FILE '\(path)' holds no keys.")
        }
        var kept: [(number: Int, member: [String: Any])] = []
        var skipped: [String] = []
        var skippedIDs = Set<String>()
        for (index, member) in members.enumerated() {
            // A member that is not an object is the decoder's to describe.
            guard let member = member as? [String: Any] else { throw notAKeySet(data, at: path) }
            // A private part is refused in any key: the file is meant to be public.
            guard member["d"] == nil else {
                throw ClaimsConfigurationError(
                    .malformedKeySet,
                    "DATA_MEDIATOR_JWKS_FILE '\(path)': \(name(member["kid"] as? String, index)) holds a private key; "
                        + "the file must hold public keys only."
                )
            }
            if let reason = skipReason(member) {
                skipped.append("\(name(member["kid"] as? String, index)) \(reason)")
                if let kid = member["kid"] as? String { skippedIDs.insert(kid) }
            } else {
                kept.append((index, member))
            }
        }
        guard !kept.isEmpty else {
            throw ClaimsConfigurationError(
                .malformedKeySet,
                "DATA_MEDIATOR_JWKS_FILE '\(path)' holds no key this service verifies with (public RSA keys for "
                    + "RS256, EC P-256 keys for ES256): "
                    + skipped.joined(separator: "; ") + "."
            )
        }
        var keySet: JWKS
        do {
            let keptData = try JSONSerialization.data(withJSONObject: ["keys": kept.map(\.member)])
            keySet = try JSONDecoder().decode(JWKS.self, from: keptData)
        } catch {
            throw ClaimsConfigurationError(
                .malformedKeySet,
                "DATA_MEDIATOR_JWKS_FILE '\(path)' is not a JSON Web Key Set ({\"keys\": [...]}) "
                    + "of RSA and EC keys: \(describe(error))"
            )
        }
        var seen = Set<String>()
        for index in keySet.keys.indices {
            let key = keySet.keys[index]
            let name = name(key.keyIdentifier?.string, kept[index].number)
            func refuse(_ reason: String) -> ClaimsConfigurationError {
                ClaimsConfigurationError(.malformedKeySet, "DATA_MEDIATOR_JWKS_FILE '\(path)': \(name) \(reason)")
            }
            guard let kid = key.keyIdentifier?.string, !kid.isEmpty else {
                throw refuse("has no 'kid' (or an empty one); every key needs one so that tokens can name it.")
            }
            // Two keys of one `kid`: a token naming it is verified by either, or refused by
            // the one tried (RFC 7517 4.5: distinct within a set).
            guard seen.insert(kid).inserted else {
                throw refuse("is named twice; give each key its own 'kid'.")
            }
            guard key.privateExponent == nil else {
                throw refuse("holds a private key; the file must hold public keys only.")
            }
            keySet.keys[index].algorithm = key.keyType == .rsa ? .rs256 : .es256
        }
        return (keySet, skipped, skippedIDs)
    }

    /// Why a key set member is not one to verify RS256 or ES256 tokens with, nil when it is.
    private static func skipReason(_ member: [String: Any]) -> String? {
        let type = member["kty"] as? String
        guard type == "RSA" || type == "EC" else {
            let shown = type.map { "'\($0)'" } ?? "no 'kty'"
            return "is of type \(shown)" + (type == "oct" ? " (a shared secret goes in DATA_MEDIATOR_JWT_SECRET)" : "")
        }
        if let use = member["use"], use as? String != "sig" {
            return "is for '\(use)', not for signatures ('use': 'sig')"
        }
        if let operations = member["key_ops"], !((operations as? [String])?.contains("verify") ?? false) {
            return "has 'key_ops' without 'verify'"
        }
        let wanted = type == "RSA" ? "RS256" : "ES256"
        if let algorithm = member["alg"], algorithm as? String != wanted {
            return "is \(type ?? "") with \(algorithm); only RS256 (RSA) and ES256 (EC P-256) keys are taken"
        }
        if type == "EC", member["crv"] as? String != "P-256" {
            let curve = member["crv"].map { "on curve \($0)" } ?? "with no 'crv'"
            return "is EC \(curve); only ES256 (EC P-256) keys are taken"
        }
        return nil
    }

    /// A key as messages name it: by its `kid`, or by its place in the file.
    private static func name(_ kid: String?, _ index: Int) -> String {
        kid.map { "key '\($0)'" } ?? "key \(index + 1)"
    }

    /// The refusal of bytes that are not a key set, in the decoder's words.
    private static func notAKeySet(_ data: Data, at path: String) -> ClaimsConfigurationError {
        let reason: String
        do {
            _ = try JSONDecoder().decode(JWKS.self, from: data)
            reason = "the file is not valid JSON."
        } catch {
            reason = describe(error)
        }
        return ClaimsConfigurationError(
            .malformedKeySet,
            "DATA_MEDIATOR_JWKS_FILE '\(path)' is not a JSON Web Key Set ({\"keys\": [...]}) of RSA and EC keys: "
                + reason
        )
    }
}
