/// A number in a log line's metadata, as its decimal text: a JSON log line writes it as a
/// number (a collector then compares `status >= 500`), a text line as it is.
public struct LoggedNumber: CustomStringConvertible, Sendable {
    /// The number's text: digits, with a point and digits after it at most.
    public let description: String

    /// A whole number.
    public init(_ value: some BinaryInteger) {
        description = String(value)
    }

    /// A number already written as digits with a point (`1.250`), kept as written.
    init(decimal: String) {
        description = decimal
    }
}
