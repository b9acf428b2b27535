import HTTPTypes
import Hummingbird

/// `405` answers for the methods a route does not serve, and `OPTIONS` answers naming
/// those it does.
enum MethodNotAllowed {
    /// The methods every read route serves.
    static let allow = "GET, HEAD, OPTIONS"

    /// The methods some route serves; any other is refused on every path.
    static let served: Set<HTTPRequest.Method> = [.get, .head, .options, .post, .put, .patch, .delete]

    static func register<Context: RequestContext>(_ path: RouterPath, on router: Router<Context>) {
        router.on(path, method: .options) { _, _ -> Response in
            Response(status: .noContent, headers: [.allow: allow])
        }
        for method in [HTTPRequest.Method.post, .put, .patch, .delete] {
            router.on(path, method: method) { request, _ -> Response in
                throw Problem(
                    .methodNotAllowed,
                    detail: "\(request.method.rawValue) is not served here; this route answers \(allow).",
                    headers: [.allow: allow]
                )
            }
        }
    }
}
