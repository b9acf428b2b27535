import Foundation

/// The data folder (`--data-dir`): made when missing, and only when something goes in it
/// (the cursor secret, the demo's SQLite store); a path that is a file, or one that
/// cannot be made, is named with what it is for and the fix.
enum DataFolder {
    /// What the folder is made for, said when it cannot be.
    enum Use: String {
        /// The cursor secret the service keeps when the environment gives none.
        case cursorSecret = "for the cursor secret, or set DATA_MEDIATOR_CURSOR_SECRET"
        /// The built-in demo's SQLite store.
        case demoStore = "for the built-in demo's store"
    }

    /// Why the data folder cannot be used.
    struct Problem: Error, CustomStringConvertible {
        let description: String
    }

    /// Makes the folder at `path` (and its parents) for `use` unless it exists.
    static func make(_ path: String, for use: Use) throws(Problem) {
        let fix = "name a folder that can be made (--data-dir or DATA_MEDIATOR_DATA_DIR) \(use.rawValue)"
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue {
            throw Problem(description: "the data folder '\(path)' is a file; \(fix)")
        }
        do {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        } catch {
            // Foundation says only "NSCocoaErrorDomain error 512" when a folder above is a file.
            var above = (path as NSString).deletingLastPathComponent
            while !above.isEmpty, above != "/", !FileManager.default.fileExists(atPath: above) {
                above = (above as NSString).deletingLastPathComponent
            }
            var aboveIsFolder: ObjCBool = true
            if FileManager.default.fileExists(atPath: above, isDirectory: &aboveIsFolder), !aboveIsFolder.boolValue {
                throw Problem(description: "the data folder '\(path)' cannot be made: '\(above)' is a file; \(fix)")
            }
            throw Problem(
                description: "the data folder '\(path)' cannot be made: \(error.localizedDescription); \(fix)"
            )
        }
    }
}
