import Foundation
import Logging

/// The secret cursors are signed with: `DATA_MEDIATOR_CURSOR_SECRET`, else a random one
/// made once and kept in the data folder so cursors stay valid across restarts.
enum CursorSecret {
    /// The file in the data folder that keeps a generated secret.
    static let fileName = "cursor-secret"

    /// Loads (or makes and keeps) the secret.
    ///
    /// - Throws: when the environment's secret is shorter than 16 bytes, or the kept one
    ///   cannot be read or written.
    static func load(environment: [String: String], dataDir: String, logger: Logger) throws -> [UInt8] {
        if let configured = environment["DATA_MEDIATOR_CURSOR_SECRET"], !configured.isEmpty {
            // Spaces around it are taken as they come, but do not count: a secret of spaces
            // is none (the kept file's is read trimmed too).
            guard configured.trimmingCharacters(in: .whitespacesAndNewlines).utf8.count >= 16 else {
                throw CursorSecretError(
                    "DATA_MEDIATOR_CURSOR_SECRET must be at least 16 characters long, not counting spaces around it"
                )
            }
            return Array(configured.utf8)
        }
        let path = URL(fileURLWithPath: dataDir).appendingPathComponent(fileName).path
        if let kept = FileManager.default.contents(atPath: path) {
            let text = String(decoding: kept, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            guard text.utf8.count >= 16 else {
                throw CursorSecretError(
                    "\(path) holds a secret shorter than 16 characters; delete it to make a new one"
                )
            }
            return Array(text.utf8)
        }
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let text = bytes.map { String(format: "%02x", $0) }.joined()
        guard
            FileManager.default.createFile(
                atPath: path,
                contents: Data(text.utf8),
                attributes: [.posixPermissions: 0o600]
            )
        else {
            throw CursorSecretError("cannot write the cursor secret to \(path)")
        }
        logger.notice("made a new cursor secret", metadata: ["path": "\(path)"])
        return Array(text.utf8)
    }
}

/// The cursor secret cannot be used.
struct CursorSecretError: Error, CustomStringConvertible {
    /// What is wrong.
    let description: String

    init(_ description: String) { self.description = description }
}
