import DataMediator
import Foundation
import HTTPTypes
import Hummingbird

/// `405` answers for the methods a route does not serve, and `OPTIONS` answers naming
/// those it does.
enum MethodNotAllowed {
    /// The methods every read route serves.
    static let allow = "GET, HEAD, OPTIONS"

    /// The methods some route serves; any other is refused on every path.
    static let served: Set<HTTPRequest.Method> = [.get, .head, .options, .post, .put, .patch, .delete]

    /// The methods a list's items route serves: the read methods, and on a writable list
    /// `POST` on the collection or `PUT, PATCH, DELETE` on an item.
    static func allow(items adapter: ListAdapter, item: Bool) -> String {
        allow + (adapter.isWritable ? (item ? ", PUT, PATCH, DELETE" : ", POST") : "")
    }

    /// The methods served at `path` (as `OPTIONS` there answers), for a `405` to a method
    /// no route serves: a writable list's items routes, or the read methods.
    static func allow(at path: String, registry: ListRegistry) -> String {
        let segments = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        guard segments.count >= 3, segments.first == "lists", segments.dropFirst(2).first == "items",
            let name = segments.dropFirst().first.flatMap({ String($0).removingPercentEncoding }),
            let adapter = try? registry.adapter(named: name)
        else { return allow }
        return allow(items: adapter, item: segments.count > 3)
    }

    /// `OPTIONS` and `405` answers at a read route's `path`; with `registry`, a path naming a
    /// list (`:list`) that does not exist is `404`, as its `GET` is.
    static func register<Context: RequestContext>(
        _ path: RouterPath,
        on router: Router<Context>,
        registry: ListRegistry? = nil
    ) {
        @Sendable func requireList(_ context: Context) throws {
            guard let registry, context.parameters.get("list") != nil else { return }
            _ = try registry.adapter(named: try ListQuery.path(context, "list"))
        }
        router.on(path, method: .options) { _, context -> Response in
            try requireList(context)
            return Response(status: .noContent, headers: [.allow: allow])
        }
        for method in [HTTPRequest.Method.post, .put, .patch, .delete] {
            router.on(path, method: method) { request, context -> Response in
                try requireList(context)
                throw Problem(
                    .methodNotAllowed,
                    detail: "\(request.method.rawValue) is not served here; this route answers \(allow).",
                    headers: [.allow: allow]
                )
            }
        }
    }
}
