/// The segments of a request path as the router matches them: empty ones (`//`, a
/// trailing `/`) are passed over. A middleware that names routes by their path reads it so,
/// or `/lists/a//sections` reaches the route while the middleware takes it for another.
enum RouteSegments {
    /// `path`'s non-empty segments, still percent-encoded.
    static func of(_ path: String) -> [Substring] {
        path.split(separator: "/", omittingEmptySubsequences: true)
    }
}
