import Foundation
import Logging

extension ServeCommand {
    /// Says on standard error why the start stopped, in the format of the service's log:
    /// as text, or where the log is JSON as one record a line of `text` (level
    /// `critical`), so a log collector that reads the service's lines reads the reason
    /// too; a config's problems, one a line, are a record each.
    static func refuse(_ text: String, format: LogFormat) {
        guard case .json = format else {
            printError(text)
            return
        }
        let milliseconds = Int64((Date().timeIntervalSince1970 * 1000).rounded(.down))
        var bytes: [UInt8] = []
        for line in text.split(separator: "\n") {
            bytes += format.line(
                milliseconds: milliseconds,
                level: .critical,
                label: logLabel,
                message: String(line),
                sortedFields: []
            )
        }
        FileHandle.standardError.write(Data(bytes))
    }
}
