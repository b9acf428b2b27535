import Foundation

/// The members of a header that weighs them with quality values (RFC 9110 12.4.2:
/// `Accept`, `Accept-Encoding`): each lower-cased, with its weight (`q`, 1 when not
/// given, 0 when not a number).
enum QualityValues {
    /// Every member of every field of `values`, in order; empty members are skipped.
    static func members(of values: [String]) -> [(value: String, weight: Double)] {
        var members: [(value: String, weight: Double)] = []
        for element in values.flatMap({ $0.split(separator: ",") }) {
            let parts = element.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            guard let value = parts.first, !value.isEmpty else { continue }
            var weight = 1.0
            for parameter in parts.dropFirst() where parameter.hasPrefix("q=") {
                weight = Double(parameter.dropFirst(2)) ?? 0
            }
            members.append((value, weight))
        }
        return members
    }
}
