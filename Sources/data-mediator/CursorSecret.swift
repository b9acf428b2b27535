import DataMediatorHTTP
import Foundation
import Logging

/// The secret cursors are signed with: `DATA_MEDIATOR_CURSOR_SECRET`, else a random one
/// made once and kept in the data folder so cursors stay valid across restarts.
enum CursorSecret {
    /// The file in the data folder that keeps a generated secret.
    static let fileName = "cursor-secret"
    /// The fewest bytes a secret may have, without spaces around it.
    static let minimumBytes = 16

    /// The environment's secret (`DATA_MEDIATOR_CURSOR_SECRET`), nil when it gives none:
    /// checked before the data folder is made, so a start it refuses makes nothing.
    ///
    /// - Throws: when the environment's secret is shorter than 16 bytes or a placeholder.
    static func configured(environment: [String: String]) throws -> [UInt8]? {
        try secret(named: "DATA_MEDIATOR_CURSOR_SECRET", in: environment)
    }

    /// The secrets whose cursors are still taken besides the one they are signed with: the
    /// one a rotation replaced (`DATA_MEDIATOR_CURSOR_SECRET_PREVIOUS`), and each of the two
    /// variables' secrets with the spaces or line break around it that releases before this
    /// one signed with (a mounted file's line break: an upgrade would end every cursor).
    ///
    /// - Throws: as ``configured(environment:)``, for the previous secret.
    static func previous(environment: [String: String]) throws -> [[UInt8]] {
        let name = "DATA_MEDIATOR_CURSOR_SECRET_PREVIOUS"
        let former = try secret(named: name, in: environment).map { [$0] } ?? []
        let untrimmed = [name, "DATA_MEDIATOR_CURSOR_SECRET"].compactMap { name -> [UInt8]? in
            guard let given = environment[name], given.trimmingCharacters(in: .whitespacesAndNewlines) != given,
                given.trimmingCharacters(in: .whitespacesAndNewlines).utf8.count >= minimumBytes
            else { return nil }
            return Array(given.utf8)
        }
        return former + untrimmed
    }

    /// The secret the variable `name` holds, without spaces around it (a file mounted as a
    /// variable ends with a line break that a replica given the bare value would not hold,
    /// and the kept file's secret is read trimmed too); nil when it is unset or empty.
    private static func secret(named name: String, in environment: [String: String]) throws -> [UInt8]? {
        guard let given = environment[name], !given.isEmpty else { return nil }
        let secret = Array(given.trimmingCharacters(in: .whitespacesAndNewlines).utf8)
        guard secret.count >= minimumBytes else {
            throw CursorSecretError(
                "\(name) must be at least \(minimumBytes) bytes long, not counting spaces around it"
            )
        }
        // A secret long enough of few characters is a placeholder (`xxxx...`), not a random
        // one; with a cursor in hand (its payload and signature), a guessable secret can be
        // found offline, and positions forged. The shared JWT secret's rule.
        guard Set(secret).count >= ClaimsConfiguration.minimumDistinctSecretBytes else {
            throw CursorSecretError(
                "\(name) holds only \(Set(secret).count) different characters, a placeholder rather than a secret; "
                    + "use a random one, e.g. `openssl rand -base64 32`"
            )
        }
        return secret
    }

    /// Loads (or makes and keeps) the secret.
    ///
    /// - Throws: when the environment's secret is shorter than 16 bytes, or the kept one
    ///   cannot be read or written.
    static func load(environment: [String: String], dataDir: String, logger: Logger) throws -> [UInt8] {
        if let configured = try configured(environment: environment) { return configured }
        let path = URL(fileURLWithPath: dataDir).appendingPathComponent(fileName).path
        // Made only where nothing is (`O_EXCL`): a kept secret that cannot be read (its
        // permissions, a link to a volume not mounted yet) is never replaced, as that would
        // end every cursor out there and part replicas sharing the folder; and of two
        // processes starting at once on one folder, one makes it and both read it.
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let text = bytes.map { String(format: "%02x", $0) }.joined()
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0o600)
        if descriptor >= 0 {
            let written = text.utf8.withContiguousStorageIfAvailable { write(descriptor, $0.baseAddress, $0.count) }
            let synced = fsync(descriptor) == 0
            close(descriptor)
            guard written == text.utf8.count, synced else {
                unlink(path)
                throw CursorSecretError("cannot write the cursor secret to \(path)")
            }
            logger.notice("made a new cursor secret", metadata: ["path": "\(path)"])
            return Array(text.utf8)
        }
        guard errno == EEXIST else {
            throw CursorSecretError("cannot write the cursor secret to \(path): \(String(cString: strerror(errno)))")
        }
        return try kept(at: path)
    }

    /// The secret kept at `path`, which exists: waited for a moment when it is empty (another
    /// process is writing it).
    private static func kept(at path: String) throws -> [UInt8] {
        for attempt in 0..<20 {
            guard let kept = FileManager.default.contents(atPath: path) else {
                throw CursorSecretError(
                    "\(path) exists but cannot be read (its permissions, or a link whose target is missing); "
                        + "it is not replaced, as cursors signed with it would stop working"
                )
            }
            let text = String(decoding: kept, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            if text.utf8.count >= minimumBytes { return Array(text.utf8) }
            if !kept.isEmpty || attempt == 19 { break }
            usleep(50_000)
        }
        throw CursorSecretError(
            "\(path) holds a secret shorter than \(minimumBytes) bytes; delete it to make a new one"
        )
    }
}

/// The cursor secret cannot be used.
struct CursorSecretError: Error, CustomStringConvertible {
    /// What is wrong.
    let description: String

    init(_ description: String) { self.description = description }
}
