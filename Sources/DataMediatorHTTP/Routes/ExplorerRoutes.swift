import DataMediator
import Foundation
import HTTPTypes
import Hummingbird

/// `GET /`: the explorer page for a browser, a JSON index of the routes and lists for
/// anything else; and the page's scripts (ES modules) and style sheet under `/explorer/`.
///
/// The page and its assets are the package's own resources, embedded in the binary: no
/// file is read at run time and nothing is fetched from elsewhere. They are served before
/// the read token is asked for (a browser cannot send one when it opens a page); the page
/// sends the token it is given with every request it makes. The index names the lists
/// only to a caller who may read `GET /lists`.
struct ExplorerRoutes: Sendable {
    /// One embedded file: its bytes, content type and entity tag, made once.
    struct Asset: Sendable {
        let bytes: [UInt8]
        let contentType: String
        let tag: String

        init(_ bytes: [UInt8], contentType: String) {
            self.bytes = bytes
            self.contentType = contentType
            self.tag = JSONResponse.entityTag(of: bytes)
        }
    }

    /// The explorer's script and styles may come from this origin only; no inline script,
    /// no frames, no plugins.
    static let contentSecurityPolicy =
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
        + "object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'"

    static let page = Asset(PackageResources.index_html, contentType: "text/html; charset=utf-8")
    static let assets: [String: Asset] = [
        "/explorer/explorer.js": Asset(PackageResources.explorer_js, contentType: "text/javascript; charset=utf-8"),
        "/explorer/live.js": Asset(PackageResources.live_js, contentType: "text/javascript; charset=utf-8"),
        "/explorer/dom.js": Asset(PackageResources.dom_js, contentType: "text/javascript; charset=utf-8"),
        "/explorer/pages.js": Asset(PackageResources.pages_js, contentType: "text/javascript; charset=utf-8"),
        "/explorer/stream.js": Asset(PackageResources.stream_js, contentType: "text/javascript; charset=utf-8"),
        "/explorer/opening.js": Asset(PackageResources.opening_js, contentType: "text/javascript; charset=utf-8"),
        "/explorer/explorer.css": Asset(PackageResources.explorer_css, contentType: "text/css; charset=utf-8"),
    ]

    let registry: ListRegistry
    /// Who may read the lists when reads need a token; nil when reads are open.
    let readAccess: BearerAccess?
    /// Whether `GET /metrics` is served, for the index.
    let servesMetrics: Bool
    /// The index with the lists, and without them; made once.
    private let index: [UInt8]
    private let routesOnly: [UInt8]

    init(registry: ListRegistry, readAccess: BearerAccess?, servesMetrics: Bool) {
        self.registry = registry
        self.readAccess = readAccess
        self.servesMetrics = servesMetrics
        index = Self.indexJSON(registry: registry, servesMetrics: servesMetrics, listsShown: true)
        routesOnly = Self.indexJSON(registry: registry, servesMetrics: servesMetrics, listsShown: false)
    }

    func register<Context: RequestContext>(on router: Router<Context>) {
        router.get("/") { request, _ in
            if AcceptNegotiation.prefersHTML(request.headers[values: .accept]) {
                return try Self.answer(
                    Self.page,
                    for: request,
                    headers: [
                        .contentSecurityPolicy: Self.contentSecurityPolicy,
                        .vary: "Accept",
                        .xContentTypeOptions: "nosniff",
                        // The page's address (the list and item open) goes to no other site.
                        .referrerPolicy: "no-referrer",
                    ]
                )
            }
            let listsShown = readAccess.map { $0.accepts(request) } ?? true
            // With read tokens the lists shown depend on the token too.
            let vary = readAccess == nil ? "Accept" : "Accept, Authorization"
            return try JSONResponse.make(listsShown ? index : routesOnly, for: request, headers: [.vary: vary])
        }
        for (path, asset) in Self.assets {
            router.get(RouterPath(path)) { request, _ in
                try Self.answer(asset, for: request, headers: [.xContentTypeOptions: "nosniff"])
            }
        }
        for path in ["/"] + Self.assets.keys.sorted() {
            MethodNotAllowed.register(RouterPath(path), on: router)
        }
    }

    /// A `200` with the asset, or `304` when `If-None-Match` names its tag. Browsers keep
    /// it and revalidate: a new binary may serve other bytes at the same path.
    private static func answer(_ asset: Asset, for request: Request, headers extra: HTTPFields) throws -> Response {
        try JSONResponse.checkIfMatch(request, tag: asset.tag)
        var headers = extra
        headers[.eTag] = asset.tag
        headers[.cacheControl] = JSONResponse.cacheControl
        if JSONResponse.matches(request.headers[values: .ifNoneMatch], asset.tag) {
            return Response(status: .notModified, headers: headers)
        }
        headers[.contentType] = asset.contentType
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: asset.bytes)))
    }

    /// The index: the routes, by template, and (when `listsShown`) the lists as `GET /lists`
    /// shows them.
    static func indexJSON(registry: ListRegistry, servesMetrics: Bool, listsShown: Bool) -> [UInt8] {
        var writer = JSONWriter(capacity: 2048 + 256 * registry.adapters.count)
        writer.raw("{\"name\":\"data-mediator\",\"explorer\":\"/\",\"openapi\":\"/openapi.yaml\",\"routes\":[")
        var all = Self.routes
        if servesMetrics { all.append((["GET"], "/metrics", "Prometheus metrics (text).")) }
        for (index, route) in all.enumerated() {
            writer.separator(index)
            writer.raw("{\"methods\":[")
            for (methodIndex, method) in route.methods.enumerated() {
                writer.separator(methodIndex)
                writer.write(method)
            }
            writer.raw("],\"path\":")
            writer.write(route.path)
            writer.raw(",\"summary\":")
            writer.write(route.summary)
            writer.raw("}")
        }
        writer.raw("],\"lists\":[")
        for (index, adapter) in (listsShown ? registry.adapters : []).enumerated() {
            writer.separator(index)
            adapter.definition.writeSummary(to: &writer)
        }
        writer.raw("]}")
        return writer.bytes
    }

    /// The routes every server serves (`GET` ones also answer `HEAD` and `OPTIONS`).
    static let routes: [(methods: [String], path: String, summary: String)] = [
        (["GET"], "/", "This index as JSON; the explorer page for a browser (Accept: text/html)."),
        (["GET"], "/lists", "The lists, with their views."),
        (["GET"], "/lists/{list}", "A list's description: views, parameters, cell types, scope, limits."),
        (["GET", "POST"], "/lists/{list}/items", "A page (view, limit, cursor or around); POST writes an item."),
        (["GET", "PUT", "PATCH", "DELETE"], "/lists/{list}/items/{id}", "One item and its place in the view."),
        (["GET"], "/lists/{list}/sections", "The view's sections with their item counts."),
        (["GET"], "/lists/{list}/changes", "The changes after version `since`."),
        (["GET"], "/lists/{list}/events", "The changes live, as Server-Sent Events."),
        (["GET"], "/health", "Liveness."),
        (["GET"], "/ready", "Readiness: every source can be read."),
        (["GET"], "/openapi.yaml", "The OpenAPI document of the contract."),
        (["GET"], "/problems/{slug}", "Documentation of a problem type (text)."),
    ]
}

/// Chooses between the explorer page and the JSON index from a request's `Accept`.
enum AcceptNegotiation {
    /// Whether `Accept` asks for HTML over JSON: `text/html` (or, where the page is not
    /// named, `text/*`: the most specific range decides, RFC 9110 12.5.1) with a quality
    /// above zero and above the best that `application/json`, `application/*` or `*/*`
    /// gets. No `Accept`, `*/*` alone, or a tie answers JSON.
    static func prefersHTML(_ values: [String]) -> Bool {
        var html: Double?
        var text = 0.0
        var json = 0.0
        for (range, quality) in QualityValues.members(of: values) {
            switch range {
            case "text/html", "application/xhtml+xml": html = max(html ?? 0, quality)
            case "text/*": text = max(text, quality)
            case "application/json", "application/*", "*/*": json = max(json, quality)
            default: break
            }
        }
        let page = html ?? text
        return page > 0 && page > json
    }
}

extension HTTPField.Name {
    /// `Content-Security-Policy`.
    static let contentSecurityPolicy = known("Content-Security-Policy")
    /// `X-Content-Type-Options`.
    static let xContentTypeOptions = known("X-Content-Type-Options")
    /// `Referrer-Policy`.
    static let referrerPolicy = known("Referrer-Policy")
}
