import Foundation

/// The data folder (`--data-dir`): made when missing; a path that is a file, or one that
/// cannot be made, is named with the fix.
enum DataFolder {
    /// Why the data folder cannot be used.
    struct Problem: Error, CustomStringConvertible {
        let description: String
    }

    /// Makes the folder at `path` (and its parents) unless it exists.
    static func make(_ path: String) throws(Problem) {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue {
            throw Problem(
                description:
                    "the data folder '\(path)' is a file; name a folder (--data-dir or DATA_MEDIATOR_DATA_DIR), "
                    + "which is made when missing"
            )
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
                throw Problem(description: "the data folder '\(path)' cannot be made: '\(above)' is a file")
            }
            throw Problem(
                description: "the data folder '\(path)' cannot be made: \(error.localizedDescription)"
            )
        }
    }
}
