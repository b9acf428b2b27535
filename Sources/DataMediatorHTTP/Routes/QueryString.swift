import DataMediator

/// A request's query read as the URL Standard reads `application/x-www-form-urlencoded`:
/// pairs split at `&`, a pair's name and value at its first `=`, `+` a space, then each
/// percent-decoded.
///
/// Written here rather than taken from Hummingbird's `URI.queryParameters`, which keeps `+`
/// as it is (a value that a browser's `URLSearchParams` or Python's `urlencode` sends with
/// a space arrives as `+`), leaves names percent-encoded, and passes an invalid escape on as
/// written; Foundation's `URLComponents` does not read `+` either.
enum QueryString {
    /// The query's name and value pairs in order; empty pairs (`a=1&&b=2`) are skipped and a
    /// pair without `=` has an empty value. A pair whose name begins with `_` is left out
    /// unread (API.md: such names are cache busters, ignored, whatever their value holds).
    ///
    /// - Throws: `bad-request` when a name or value is not valid percent-encoded UTF-8.
    static func pairs(of query: String?) throws -> [(name: String, value: String)] {
        guard let query, !query.isEmpty else { return [] }
        var pairs: [(name: String, value: String)] = []
        for piece in query.utf8.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
            let equals = piece.firstIndex(of: UInt8(ascii: "="))
            let rawName = piece[..<(equals ?? piece.endIndex)]
            if rawName.first == UInt8(ascii: "_") { continue }
            let rawValue = equals.map { piece[piece.index(after: $0)...] } ?? piece[piece.endIndex...]
            guard let name = decode(rawName) else {
                throw DataMediatorError(.badRequest, "A query parameter's name is not valid percent-encoded UTF-8.")
            }
            guard let value = decode(rawValue) else {
                throw DataMediatorError(
                    .badRequest,
                    "The query parameter '\(name)' is not valid percent-encoded UTF-8."
                )
            }
            pairs.append((name, value))
        }
        return pairs
    }

    /// One name or value: `+` read as a space, then percent-decoded; nil when invalid.
    private static func decode(_ raw: Substring.UTF8View) -> String? {
        let text = Substring(raw)
        guard raw.contains(UInt8(ascii: "+")) else { return PathSegment.decode(String(text)) }
        return PathSegment.decode(String(text.map { $0 == "+" ? " " : $0 }))
    }
}
