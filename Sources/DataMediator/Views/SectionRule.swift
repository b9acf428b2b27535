/// How a view groups its items into sections: which field, how its value becomes a
/// section key, and how a key becomes a title.
///
/// The section key is the field's value (`value`) or the leading part of an ISO 8601
/// date or timestamp (`day`, `month`, `year`), so a view sorted on that field keeps each
/// section contiguous.
public struct SectionRule: Sendable, Hashable {
    /// How a field value becomes a section key.
    public enum Grouping: String, Sendable, Hashable, CaseIterable {
        /// The value itself.
        case value
        /// The `YYYY-MM-DD` prefix of an ISO 8601 date or timestamp.
        case day
        /// The `YYYY-MM` prefix.
        case month
        /// The `YYYY` prefix.
        case year

        /// How many leading characters of a string form the key, or nil for the whole value.
        public var prefixLength: Int? {
            switch self {
            case .value: return nil
            case .day: return 10
            case .month: return 7
            case .year: return 4
            }
        }
    }

    /// The field whose value decides the section.
    public let field: String
    /// How the value becomes a key.
    public let grouping: Grouping
    /// A title template in which `{key}` stands for the default title; nil for the default.
    public let titleTemplate: String?
    /// A field that holds each section's title (read from the section's first item), used
    /// instead of a title formed from the key; nil to form it from the key.
    public let titleField: String?

    /// Creates a section rule.
    public init(field: String, grouping: Grouping = .value, titleTemplate: String? = nil, titleField: String? = nil) {
        self.field = field
        self.grouping = grouping
        self.titleTemplate = titleTemplate
        self.titleField = titleField
    }

    /// The section key of an item whose field holds `value`.
    public func key(for value: JSONValue) -> JSONValue {
        guard let length = grouping.prefixLength, case .string(let text) = value else { return value }
        // Unicode scalars, as SQLite's substr counts them, so both stores agree. In ASCII
        // text (dates) a scalar is a byte, and the prefix is cut from the bytes.
        let utf8 = text.utf8
        let end = utf8.index(utf8.startIndex, offsetBy: length, limitedBy: utf8.endIndex) ?? utf8.endIndex
        if utf8[..<end].allSatisfy({ $0 < 0x80 }) {
            return end == utf8.endIndex ? value : .string(String(text[..<end]))
        }
        return .string(String(String.UnicodeScalarView(text.unicodeScalars.prefix(length))))
    }

    /// The section id for a key: the key as a string.
    public func id(for key: JSONValue) -> String {
        key.idString
    }

    /// The section title for a key: `19 Nov 2026` for a day, `November 2026` for a month,
    /// the key itself otherwise, put into the template when there is one. A `null` key has
    /// no title.
    public func title(for key: JSONValue) -> String? {
        let text = key.idString
        if text.isEmpty { return nil }
        let plain: String
        switch grouping {
        case .value, .year: plain = text
        case .day: plain = Self.dayTitle(text) ?? text
        case .month: plain = Self.monthTitle(text) ?? text
        }
        guard let titleTemplate else { return plain }
        return titleTemplate.replacingAll("{key}", with: plain)
    }

    private static let monthNames = [
        "January", "February", "March", "April", "May", "June",
        "July", "August", "September", "October", "November", "December",
    ]

    /// `19 Nov 2026` for a key of the form `YYYY-MM-DD` with a month 1-12 and a day 1-31;
    /// nil for any other (`2026-3-8`, which is another section than `2026-03-08`, a year
    /// of five digits or a sign): such a key is its own title (review 110 #5: `-0044-03-15`
    /// cut to `1 Mar 0044`).
    private static func dayTitle(_ key: String) -> String? {
        let parts = key.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, isDigits(parts[0], 4), isDigits(parts[1], 2), isDigits(parts[2], 2),
            let month = Int(parts[1]), (1...12).contains(month), let day = Int(parts[2]), (1...31).contains(day)
        else { return nil }
        return "\(day) \(monthNames[month - 1].prefix(3)) \(parts[0])"
    }

    /// `November 2026` for a key of the form `YYYY-MM` with a month 1-12; nil for any other.
    private static func monthTitle(_ key: String) -> String? {
        let parts = key.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2, isDigits(parts[0], 4), isDigits(parts[1], 2), let month = Int(parts[1]),
            (1...12).contains(month)
        else { return nil }
        return "\(monthNames[month - 1]) \(parts[0])"
    }

    /// Whether `text` is `count` ASCII digits.
    private static func isDigits(_ text: Substring, _ count: Int) -> Bool {
        text.utf8.count == count && text.utf8.allSatisfy { (0x30...0x39).contains($0) }
    }
}

extension String {
    /// This string with every occurrence of `target` replaced, without Foundation.
    func replacingAll(_ target: String, with replacement: String) -> String {
        guard !target.isEmpty else { return self }
        var result = ""
        var rest = self[...]
        while let range = rest.firstRange(of: target) {
            result += rest[..<range.lowerBound]
            result += replacement
            rest = rest[range.upperBound...]
        }
        return result + rest
    }
}
