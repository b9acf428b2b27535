/// Text compared and hashed byte for byte (its UTF-8), as the stores compare ids: Swift's
/// `String` takes canonically equivalent text for one (`é` as U+00E9 and as `e` followed
/// by U+0301), which a store keeps as two ids of two items.
public struct ExactText: Hashable, Sendable {
    /// The text.
    public let text: String

    /// Wraps `text`.
    public init(_ text: String) {
        self.text = text
    }

    /// Whether both are the same bytes.
    public static func == (lhs: ExactText, rhs: ExactText) -> Bool {
        lhs.text.utf8.elementsEqual(rhs.text.utf8)
    }

    /// Hashes the bytes.
    public func hash(into hasher: inout Hasher) {
        var text = text
        text.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
    }
}

extension String {
    /// Whether this is `other`'s text byte for byte (see ``ExactText``); never `nil`'s.
    package func isExactly(_ other: String?) -> Bool {
        guard let other else { return false }
        return utf8.elementsEqual(other.utf8)
    }

    /// What follows `prefix` when this starts with its bytes, else nil: `hasPrefix` and
    /// `dropFirst` go by characters, which take a combining mark after the prefix into its
    /// last character (and canonically equivalent text for the prefix).
    package func afterExactPrefix(_ prefix: String) -> String? {
        guard utf8.starts(with: prefix.utf8) else { return nil }
        return String(decoding: utf8.dropFirst(prefix.utf8.count), as: UTF8.self)
    }
}
