/// The segments of a request path as the router matches them: empty ones (`//`, a
/// trailing `/`) are passed over. A middleware that names routes by their path reads it so,
/// or `/lists/a//sections` reaches the route while the middleware takes it for another.
enum RouteSegments {
    /// `path`'s non-empty segments, still percent-encoded.
    static func of(_ path: String) -> [Substring] {
        path.split(separator: "/", omittingEmptySubsequences: true)
    }

    /// The route of `path` as API.md names it (`/lists/{list}/items/{id}`), for an answer
    /// the router gave no route (a method no route serves, such as `TRACE`, which is `405`
    /// at a route's path); nil for a path no route serves. `{id}` takes the rest of the
    /// path, as the item routes do.
    static func route(of path: String) -> String? {
        let segments = of(path)
        return routes.first { route in
            let pattern = of(route)
            if pattern.last == "{id}" {
                return segments.count >= pattern.count && matches(pattern.dropLast(), segments)
            }
            return segments.count == pattern.count && matches(pattern[...], segments)
        }
    }

    /// Every route's path as API.md names it.
    static let routes = ExplorerRoutes.routes.map(\.path) + ["/metrics"] + ExplorerRoutes.assets.keys.sorted()

    private static func matches(_ pattern: ArraySlice<Substring>, _ segments: [Substring]) -> Bool {
        zip(pattern, segments).allSatisfy { expected, segment in expected.first == "{" || expected == segment }
    }
}
