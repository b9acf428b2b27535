import DataMediator
import Foundation
import HTTPTypes
import Hummingbird

/// The read routes of the list contract: `/lists`, a list's description, its pages,
/// one item, and its section info.
struct ListRoutes: Sendable {
    let registry: ListRegistry

    func register<Context: RequestContext>(on router: Router<Context>) {
        router.get("/lists") { request, _ in listsAnswer(request) }
        router.get("/lists/:list") { request, context in
            let adapter = try registry.adapter(named: try Parameters.path(context, "list"))
            return JSONResponse.make(adapter.definition.descriptionJSON(), for: request)
        }
        router.get("/lists/:list/items") { request, context in
            try await page(request, context: context)
        }
        router.get("/lists/:list/items/**") { request, context in
            let adapter = try registry.adapter(named: try Parameters.path(context, "list"))
            let query = try Parameters(request, allowed: ["view"])
            let location = try await adapter.locate(id: try Parameters.itemID(context), view: query.view)
            return JSONResponse.make(location.json(), for: request)
        }
        router.get("/lists/:list/sections") { request, context in
            let adapter = try registry.adapter(named: try Parameters.path(context, "list"))
            let query = try Parameters(request, allowed: ["view"])
            return JSONResponse.make(try await adapter.sectionInfo(view: query.view).json(), for: request)
        }
        for path in ["/lists/:list/items", "/lists/:list/items/**"] {
            MethodNotAllowed.register(RouterPath(path), on: router)
        }
        for path in ["/lists", "/lists/:list", "/lists/:list/sections"] {
            MethodNotAllowed.register(RouterPath(path), on: router)
        }
    }

    private func listsAnswer(_ request: Request) -> Response {
        var writer = JSONWriter(capacity: 256 * max(1, registry.adapters.count))
        writer.raw("{\"lists\":[")
        for (index, adapter) in registry.adapters.enumerated() {
            writer.separator(index)
            adapter.definition.writeSummary(to: &writer)
        }
        writer.raw("]}")
        return JSONResponse.make(writer.bytes, for: request)
    }

    private func page<Context: RequestContext>(_ request: Request, context: Context) async throws -> Response {
        let adapter = try registry.adapter(named: try Parameters.path(context, "list"))
        let query = try Parameters(request, allowed: ["view", "limit", "cursor"])
        let page = try await adapter.page(view: query.view, limit: query.limit, cursor: query.cursor)
        var headers: HTTPFields = [:]
        if let next = page.next, let link = HTTPField.Name("Link") {
            var target = adapter.definition.href + "/items?"
            if let view = query.view { target += "view=" + PathSegment.encode(view) + "&" }
            if query.limit != nil { target += "limit=\(page.limit)&" }
            headers[link] = "<\(target)cursor=\(next)>; rel=\"next\""
        }
        return JSONResponse.make(page.json(), for: request, headers: headers)
    }
}

/// The query and path parameters of a list request, checked: each at most once.
struct Parameters {
    let view: String?
    let limit: String?
    let cursor: String?

    /// Reads the `allowed` query parameters; unknown ones are ignored, as is usual.
    ///
    /// - Throws: `bad-request` when an allowed parameter is given more than once.
    init(_ request: Request, allowed: Set<String>) throws {
        let query = request.uri.queryParameters
        var values: [String: String] = [:]
        for name in allowed {
            let all = query.getAll(name)
            if all.count > 1 {
                throw DataMediatorError(.badRequest, "'\(name)' is given \(all.count) times; give it at most once.")
            }
            values[name] = all.first.map { String($0) }
        }
        view = values["view"]
        limit = values["limit"]
        cursor = values["cursor"]
    }

    /// A percent-decoded path parameter.
    static func path<Context: RequestContext>(_ context: Context, _ name: String) throws -> String {
        guard let raw = context.parameters.get(name), let decoded = raw.removingPercentEncoding else {
            throw DataMediatorError(.badRequest, "The path's '\(name)' is not valid percent-encoded UTF-8.")
        }
        return decoded
    }

    /// The item id of `/items/{id}`: one percent-encoded segment, or several segments
    /// joined by `/` (composite ids contain `/`).
    static func itemID<Context: RequestContext>(_ context: Context) throws -> String {
        var segments: [String] = []
        for segment in context.parameters.getCatchAll() {
            guard let decoded = segment.removingPercentEncoding else {
                throw DataMediatorError(.badRequest, "The item id in the path is not valid percent-encoded UTF-8.")
            }
            segments.append(decoded)
        }
        return segments.joined(separator: "/")
    }
}

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
