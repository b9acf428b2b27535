/// One error in a config file: where it is, what is wrong and how to fix it.
struct ConfigFileError: Error, Sendable, CustomStringConvertible, Equatable {
    /// The file's path as given.
    let file: String
    /// The 1-based line, 0 when unknown.
    let line: Int
    /// The 1-based column, 0 when unknown.
    let column: Int
    /// What is wrong, and the fix.
    let message: String

    /// `FILE:LINE:COLUMN: error: MESSAGE`, the form editors and compilers use. Control
    /// characters a message quotes from the file (a YAML error shows its line) are written
    /// as `\u{1B}`: printed raw, an escape sequence would drive the operator's terminal.
    var description: String {
        // A line without a column (bytes that are not UTF-8 somewhere in it) says the line.
        let place = line > 0 ? (column > 0 ? ":\(line):\(column)" : ":\(line)") : ""
        let text = "\(file)\(place): error: \(message)"
        return Self.visible(text)
    }

    /// `text` with its control characters but line breaks and tabs escaped.
    static func visible(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            if scalar.properties.generalCategory == .control, scalar != "\n", scalar != "\t" {
                out += "\\u{\(String(scalar.value, radix: 16, uppercase: true))}"
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}

/// All the errors found in a config file; it is refused when there is at least one.
struct ConfigFileErrors: Error, Sendable, CustomStringConvertible {
    /// The errors, in file order.
    let errors: [ConfigFileError]

    /// One error a line.
    var description: String { errors.map(\.description).joined(separator: "\n") }
}
