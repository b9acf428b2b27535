import Foundation

/// A moment of a log record, written as ISO 8601 in UTC with milliseconds
/// (`2026-11-19T23:00:00.250Z`) without a date formatter.
struct LogTime: Sendable {
    /// Milliseconds since 1970-01-01T00:00:00Z.
    let milliseconds: Int64

    /// The moment `milliseconds` after the epoch.
    init(milliseconds: Int64) {
        self.milliseconds = milliseconds
    }

    /// Now.
    static func now() -> LogTime {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return LogTime(milliseconds: Int64(spec.tv_sec) * 1000 + Int64(spec.tv_nsec) / 1_000_000)
    }

    /// The time's text.
    var text: [UInt8] {
        let seconds = milliseconds >= 0 ? milliseconds / 1000 : (milliseconds - 999) / 1000
        let millis = Int(milliseconds - seconds * 1000)
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = Int(seconds - days * 86_400)
        let (year, month, day) = Self.civil(days: days)
        var digits: [UInt8] = []
        digits.reserveCapacity(24)
        func put(_ value: Int, _ width: Int) {
            var place = 1
            for _ in 1..<width { place *= 10 }
            var rest = value
            while place > 0 {
                digits.append(UInt8(ascii: "0") + UInt8(rest / place))
                rest %= place
                place /= 10
            }
        }
        put(Int(year), 4)
        digits.append(UInt8(ascii: "-"))
        put(month, 2)
        digits.append(UInt8(ascii: "-"))
        put(day, 2)
        digits.append(UInt8(ascii: "T"))
        put(secondOfDay / 3600, 2)
        digits.append(UInt8(ascii: ":"))
        put(secondOfDay / 60 % 60, 2)
        digits.append(UInt8(ascii: ":"))
        put(secondOfDay % 60, 2)
        digits.append(UInt8(ascii: "."))
        put(millis, 3)
        digits.append(UInt8(ascii: "Z"))
        return digits
    }

    /// The proleptic Gregorian date of a day count since 1970-01-01 (Howard Hinnant's
    /// `civil_from_days`).
    static func civil(days: Int64) -> (year: Int64, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let day = Int(dayOfYear - (153 * shiftedMonth + 2) / 5 + 1)
        let month = Int(shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9)
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
