import Foundation

/// The `Date` field's text (RFC 9110 5.6.7, IMF-fixdate) for answers written outside the
/// framework, whose own formatter is internal to it.
enum HTTPDate {
    /// Now, e.g. `Sun, 06 Nov 1994 08:49:37 GMT`.
    static func now() -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.string(from: Date())
    }
}
