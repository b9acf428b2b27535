import DataMediator
import Foundation
import HTTPTypes
import Hummingbird
import Metrics
import NIOCore

/// The read routes of the list contract: `/lists`, a list's description, its pages,
/// one item, and its section info.
struct ListRoutes: Sendable {
    let registry: ListRegistry
    let scope: ScopeAccess
    /// Per list, made once: its description (it never changes while the service runs)
    /// and the timer of its page reads.
    private let descriptions: [String: [UInt8]]
    private let pageTimers: [String: Timer]
    /// The last `/sections` answer of each view, encoded.
    private let sectionAnswers = SectionAnswers()

    init(registry: ListRegistry, scope: ScopeAccess) {
        self.registry = registry
        self.scope = scope
        var descriptions: [String: [UInt8]] = [:]
        var pageTimers: [String: Timer] = [:]
        for adapter in registry.adapters {
            let name = adapter.definition.name
            descriptions[name] = adapter.definition.descriptionJSON()
            pageTimers[name] = Timer(label: "data_mediator_page_query_seconds", dimensions: [("list", name)])
        }
        self.descriptions = descriptions
        self.pageTimers = pageTimers
    }

    func register<Context: RequestContext>(on router: Router<Context>) {
        router.get("/lists") { request, _ in
            try ListQuery.refuseAny(request)
            return try listsAnswer(request)
        }
        router.get("/lists/:list") { request, context in
            let adapter = try registry.adapter(named: try ListQuery.path(context, "list"))
            try ListQuery.refuseAny(request)
            return try JSONResponse.make(
                descriptions[adapter.definition.name] ?? adapter.definition.descriptionJSON(),
                for: request
            )
        }
        router.get("/lists/:list/items") { request, context in
            try await page(request, context: context)
        }
        router.get("/lists/:list/items/**") { request, context in
            try await item(try ListQuery.itemID(request) ?? "", request, context: context)
        }
        router.get("/lists/:list/sections") { request, context in
            let adapter = try registry.adapter(named: try ListQuery.path(context, "list"))
            let query = try ListQuery(request, allowed: [.view])
            let slice = try query.slice(of: adapter, caller: try await scope.caller(for: adapter, request))
            let view = try adapter.definition.view(named: query.view, slice: slice)
            let answer = sectionAnswers.answer(
                for: adapter.definition.name + "/" + view.binding,
                try await adapter.sectionInfo(of: view)
            )
            return try JSONResponse.make(body: answer.body, tag: answer.tag, for: request)
        }
        for path in ["/lists", "/lists/:list", "/lists/:list/sections"] {
            MethodNotAllowed.register(RouterPath(path), on: router, registry: registry)
        }
    }

    private func listsAnswer(_ request: Request) throws -> Response {
        var writer = JSONWriter(capacity: 256 * max(1, registry.adapters.count))
        writer.raw("{\"lists\":[")
        for (index, adapter) in registry.adapters.enumerated() {
            writer.separator(index)
            adapter.definition.writeSummary(to: &writer)
        }
        writer.raw("]}")
        return try JSONResponse.make(writer.bytes, for: request)
    }

    /// One item's place (`GET /lists/{list}/items/{id}`).
    private func item<Context: RequestContext>(
        _ id: String,
        _ request: Request,
        context: Context
    ) async throws -> Response {
        let adapter = try registry.adapter(named: try ListQuery.path(context, "list"))
        let query = try ListQuery(request, allowed: [.view])
        let slice = try query.slice(of: adapter, caller: try await scope.caller(for: adapter, request))
        let location = try await adapter.locate(id: id, view: query.view, slice: slice)
        let body = location.json()
        return try JSONResponse.make(
            body: ByteBuffer(bytes: body),
            tag: LookupTag.of(location, body: body),
            itemTag: location.item.entityTag,
            for: request
        )
    }

    private func page<Context: RequestContext>(_ request: Request, context: Context) async throws -> Response {
        // The router reads `/items/` and `/items//x` as `/items`: they name items ("", "/x").
        if let id = try ListQuery.itemID(request) { return try await item(id, request, context: context) }
        let adapter = try registry.adapter(named: try ListQuery.path(context, "list"))
        let query = try ListQuery(request, allowed: [.view, .limit, .cursor, .around])
        let slice = try query.slice(of: adapter, caller: try await scope.caller(for: adapter, request))
        let start = ContinuousClock.now
        let page = try await adapter.page(
            view: query.view,
            limit: query.limit,
            cursor: query.cursor,
            around: query.around,
            slice: slice
        )
        pageTimers[adapter.definition.name]?.record(duration: ContinuousClock.now - start)
        let given = [("view", query.view)] + query.sliceParameters(of: adapter)
        let limit = ("limit", query.limit.map { _ in String(page.limit) })
        var relations: [(rel: String, parameters: [(name: String, value: String?)])] = []
        if let next = page.next { relations.append(("next", given + [limit, ("cursor", next)])) }
        if let prev = page.prev { relations.append(("prev", given + [limit, ("cursor", prev)])) }
        let headers = ListQuery.links(adapter.definition.href + "/items", relations)
        return try JSONResponse.make(page.json(), for: request, headers: headers)
    }
}
