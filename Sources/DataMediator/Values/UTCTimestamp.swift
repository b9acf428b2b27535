#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// ISO 8601 timestamps in UTC written from a count since 1970, without a date formatter
/// (log lines write one each; the demo writes a million).
public enum UTCTimestamp {
    /// `milliseconds` since 1970-01-01T00:00:00Z as `2026-11-19T23:00:00.250Z`, or as
    /// `2026-11-19T23:00:00Z` without the fraction.
    public static func text(milliseconds: Int64, fraction: Bool) -> String {
        let seconds = milliseconds >= 0 ? milliseconds / 1000 : (milliseconds - 999) / 1000
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = Int(seconds - days * 86_400)
        let (year, month, day) = civil(days: days)
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
        if fraction {
            digits.append(UInt8(ascii: "."))
            put(Int(milliseconds - seconds * 1000), 3)
        }
        digits.append(UInt8(ascii: "Z"))
        return String(decoding: digits, as: UTF8.self)
    }

    /// The proleptic Gregorian date of a day count since 1970-01-01 (Howard Hinnant's
    /// `civil_from_days`).
    public static func civil(days: Int64) -> (year: Int64, month: Int, day: Int) {
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = Int(dayOfYear - (153 * monthIndex + 2) / 5 + 1)
        let month = Int(monthIndex < 10 ? monthIndex + 3 : monthIndex - 9)
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    /// Milliseconds since 1970 now, from the system's real-time clock.
    public static func nowMilliseconds() -> Int64 {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Int64(spec.tv_sec) * 1000 + Int64(spec.tv_nsec) / 1_000_000
    }
}
