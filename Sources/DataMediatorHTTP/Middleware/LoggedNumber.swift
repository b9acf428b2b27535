import DataMediator

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

    /// A duration in milliseconds with three decimals (`1.250`): the log lines' `duration_ms`.
    init(milliseconds duration: Duration) {
        description = Self.milliseconds(microseconds: duration.nanoseconds / 1000)
    }

    /// `microseconds` as milliseconds with three decimals, e.g. `1.250`.
    static func milliseconds(microseconds: Int64) -> String {
        let fraction = String(microseconds % 1000)
        return "\(microseconds / 1000)." + String(repeating: "0", count: 3 - fraction.count) + fraction
    }
}
