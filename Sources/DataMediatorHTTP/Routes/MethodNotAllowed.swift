import DataMediator
import Foundation
import HTTPTypes
import Hummingbird

/// `405` answers for the methods a route does not serve, and `OPTIONS` answers naming
/// those it does.
enum MethodNotAllowed {
    /// The methods every read route serves.
    static let allow = "GET, HEAD, OPTIONS"

    /// The methods some route serves, in the order `Allow` names them; any other is
    /// refused on every path.
    static let servedInOrder: [HTTPRequest.Method] = [.get, .head, .options, .post, .put, .patch, .delete]

    /// ``servedInOrder``, to look up.
    static let served = Set(servedInOrder)

    /// ``servedInOrder`` as `Allow` names them: what `OPTIONS *` answers.
    static let allowAnywhere = servedInOrder.map(\.rawValue).joined(separator: ", ")

    /// The methods a list's items route serves: the read methods, and on a writable list
    /// `POST` on the collection or `PUT, PATCH, DELETE` on an item.
    static func allow(items adapter: ListAdapter, item: Bool) -> String {
        allow + (adapter.isWritable ? (item ? ", PUT, PATCH, DELETE" : ", POST") : "")
    }

    /// The `405` of `method` where `allow` is what is served (RFC 9110 15.5.6: `Allow`
    /// names the target's methods).
    static func problem(_ method: HTTPRequest.Method, allow: String) -> Problem {
        Problem(
            .methodNotAllowed,
            detail: "\(method.rawValue) is not served here; this route answers \(allow).",
            headers: [.allow: allow]
        )
    }

    /// The methods served at `path` (as `OPTIONS` there answers), for a `405` to a method
    /// no route serves: a writable list's items routes, or the read methods.
    static func allow(at path: String, registry: ListRegistry) -> String {
        let segments = RouteSegments.of(path)[...]
        guard segments.count >= 3, segments.first == "lists", segments.dropFirst(2).first == "items",
            let name = segments.dropFirst().first.flatMap({ String($0).removingPercentEncoding }),
            let adapter = try? registry.adapter(named: name)
        else { return allow }
        return allow(items: adapter, item: segments.count > 3)
    }

    /// Throws `unknownList` when `context`'s path names a list (`:list`) that `registry`
    /// does not hold; nothing without a registry or a list in the path.
    private static func requireList<Context: RequestContext>(_ context: Context, in registry: ListRegistry?) throws {
        guard let registry, context.parameters.get("list") != nil else { return }
        _ = try registry.adapter(named: try ListQuery.path(context, "list"))
    }

    /// The `OPTIONS` answer of a read route.
    private static func options<Context: RequestContext>(
        _ context: Context,
        in registry: ListRegistry?
    ) throws
        -> Response
    {
        try requireList(context, in: registry)
        return Response(status: .noContent, headers: [.allow: allow])
    }

    /// The `405` of a method a read route does not serve (a `404` for an unknown list).
    /// Synchronous, like ``requireList(_:in:)``: route closures that only throw after a
    /// call that throws crashed the release compiler (Swift 6.3, splitting the coroutine),
    /// also when this function was inlined into them, hence `@inline(never)`.
    @inline(never)
    private static func notServed<Context: RequestContext>(
        _ request: Request,
        _ context: Context,
        in registry: ListRegistry?
    ) throws -> Response {
        try requireList(context, in: registry)
        throw problem(request.method, allow: allow)
    }

    /// `OPTIONS` and `405` answers at a read route's `path`; with `registry`, a path naming a
    /// list (`:list`) that does not exist is `404`, as its `GET` is.
    static func register<Context: RequestContext>(
        _ path: RouterPath,
        on router: Router<Context>,
        registry: ListRegistry? = nil
    ) {
        router.on(path, method: .options) { _, context -> Response in
            try options(context, in: registry)
        }
        for method in [HTTPRequest.Method.post, .put, .patch, .delete] {
            router.on(path, method: method) { request, context -> Response in
                try notServed(request, context, in: registry)
            }
        }
    }
}
