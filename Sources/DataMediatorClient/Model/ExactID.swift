/// An id compared and hashed by its UTF-8 bytes, as the service compares ids: Swift's
/// `String` takes canonically equivalent text for one (`é` as U+00E9 and as `e` followed
/// by U+0301), which the service serves as two items. The core's `ExactText` is the same
/// rule; the client kit keeps its own because it depends on no server target.
struct ExactID: Hashable, Sendable {
    /// The id.
    let text: String

    init(_ text: String) {
        self.text = text
    }

    static func == (lhs: ExactID, rhs: ExactID) -> Bool {
        lhs.text.utf8.elementsEqual(rhs.text.utf8)
    }

    func hash(into hasher: inout Hasher) {
        var text = text
        text.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
    }
}

extension String {
    /// Whether this is `other`'s text byte for byte (see ``ExactID``); never `nil`'s.
    func isExactly(_ other: String?) -> Bool {
        guard let other else { return false }
        return utf8.elementsEqual(other.utf8)
    }
}
