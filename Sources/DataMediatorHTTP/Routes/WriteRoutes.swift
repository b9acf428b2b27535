import DataMediator
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import NIOHTTP1

/// The write routes of the list contract: `POST /lists/{list}/items` and `PUT`, `PATCH`,
/// `DELETE` on `/lists/{list}/items/{id}`.
///
/// Checks run in this order, so nothing is read or stored before it is allowed: the list
/// exists, it is writable (405), the token (403/401), the media type and coding (415), the body size
/// (413, from `Content-Length` before reading, and while reading), JSON (400), then the
/// item's shape and rules (422), and the store's answer (409, 404).
struct WriteRoutes: Sendable {
    let registry: ListRegistry
    let access: BearerAccess
    let scope: ScopeAccess
    let maximumBodySize: Int
    /// The read tokens: one sent to write is told it reads, not that it is not valid.
    var readers = BearerAccess(tokens: [])

    func register<Context: RequestContext>(on router: Router<Context>) {
        router.post("/lists/:list/items") { request, context in
            // `/items/` and `/items//` name items (the empty id, `/`): not the collection.
            if try ListQuery.itemID(request) != nil { return try notServed(request, context, item: true) }
            let (adapter, body, scope, caller) = try await prepare(request, context, readsBody: true)
            let key = try Self.idempotencyKey(request)
            let condition = try WriteConditions.collectionCondition(of: request)
            let written = try await adapter.create(
                body: body,
                idempotencyKey: key,
                caller: caller,
                scope: scope,
                condition: condition
            )
            return answer(written, adapter: adapter, request: request, status: .created)
        }
        for method in [HTTPRequest.Method.put, .patch, .delete] {
            router.on("/lists/:list/items/**", method: method) { request, context in
                try await write(request, context)
            }
            // The router reads `/items/` and `/items//` as the collection; they name items.
            router.on("/lists/:list/items", method: method) { request, context -> Response in
                guard try ListQuery.itemID(request) != nil else { return try notServed(request, context, item: false) }
                return try await write(request, context)
            }
        }
        router.on("/lists/:list/items/**", method: .post) { request, context -> Response in
            try notServed(request, context, item: true)
        }
        for path in ["/lists/:list/items", "/lists/:list/items/**"] {
            router.on(RouterPath(path), method: .options) { request, context -> Response in
                let adapter = try registry.adapter(named: try ListQuery.path(context, "list"))
                let item = try path.hasSuffix("**") || ListQuery.itemID(request) != nil
                var headers: HTTPFields = [.allow: MethodNotAllowed.allow(items: adapter, item: item)]
                // RFC 5789 3.1: the patch formats a resource that takes PATCH takes.
                if item, adapter.isWritable { headers[Self.acceptPatch] = Self.patchFormats }
                return Response(status: .noContent, headers: headers)
            }
        }
    }

    /// `PUT`, `PATCH` or `DELETE` of the item the path names.
    private func write<Context: RequestContext>(_ request: Request, _ context: Context) async throws -> Response {
        let (adapter, body, scope, _) = try await prepare(request, context, readsBody: request.method != .delete)
        let id = try ListQuery.itemID(request) ?? ""
        let condition = try WriteConditions.condition(of: request)
        switch request.method {
        case .put:
            let written = try await adapter.replace(id: id, body: body, scope: scope, condition: condition)
            return answer(written, adapter: adapter, request: request, status: written.created ? .created : .ok)
        case .patch:
            let written = try await adapter.patch(id: id, body: body, scope: scope, condition: condition)
            return answer(written, adapter: adapter, request: request, status: .ok)
        default:
            let version = try await adapter.delete(id: id, scope: scope, condition: condition)
            ReadYourWrites.written?.note(version)
            return Response(status: .noContent, headers: [.cacheControl: "no-store"])
        }
    }

    /// Throws the `405` of a method the collection (or an item, `item`) route does not
    /// serve. It returns nothing, but is typed as a route's answer so that route closures
    /// call it and return: closures that only throw after a call that throws crashed the
    /// release compiler (Swift 6.3, splitting the coroutine), also with this function inlined.
    @inline(never)
    private func notServed<Context: RequestContext>(
        _ request: Request,
        _ context: Context,
        item: Bool
    ) throws -> Response {
        let adapter = try registry.adapter(named: try ListQuery.path(context, "list"))
        let allow = MethodNotAllowed.allow(items: adapter, item: item)
        throw MethodNotAllowed.problem(request.method, allow: allow)
    }

    /// The body of a write, read whole (``ClientShareMiddleware`` reads a credentialed
    /// write's before its turn; the route then reads what it read).
    ///
    /// - Throws: `413` for a body over `limit` bytes, `400` (closing the connection) for one
    ///   whose framing cannot be read, ``BodyCutShort`` for one its client stopped sending
    ///   (its connection closed).
    static func body(of request: Request, limit: Int) async throws -> ByteBuffer {
        if let length = request.headers[.contentLength].flatMap({ Int($0) }), length > limit {
            throw Problem(.bodyTooLarge, detail: "The body is \(length) bytes; this server takes at most \(limit).")
        }
        do {
            return try await request.body.collect(upTo: limit)
        } catch is NIOTooManyBytesError {
            // A body without `Content-Length` (chunked) is only known to be too large here.
            throw Problem(.bodyTooLarge, detail: "The body is larger than this server's limit of \(limit) bytes.")
        } catch HTTPParserError.invalidEOFState {
            // The client closed its connection before the body ended: nobody reads an answer.
            throw BodyCutShort()
        } catch let error as IOError where [ECONNRESET, EPIPE].contains(error.errnoCode) {
            // ...or reset it.
            throw BodyCutShort()
        } catch let error as HTTPParserError {
            // The client's framing (a chunk size that is not hexadecimal, say), not the server.
            // The parser cannot find the next request after it either: the connection closes.
            throw Problem(.badRequest, detail: "The body cannot be read: \(error).", headers: [.connection: "close"])
        }
    }

    /// The list's adapter, the request's JSON body, the slice the caller may write (nil:
    /// every item) and who the caller is (``WriteRoutes/writeScope(_:_:)``), after every
    /// check before the store.
    private func prepare<Context: RequestContext>(
        _ request: Request,
        _ context: Context,
        readsBody: Bool
    ) async throws -> (ListAdapter, JSONValue, WriteScope?, String) {
        let adapter = try registry.adapter(named: try ListQuery.path(context, "list"))
        guard adapter.isWritable else {
            throw DataMediatorError(
                .readOnly,
                "List '\(adapter.definition.name)' is read-only; it answers GET, HEAD and OPTIONS."
            )
        }
        let (scope, caller) = try await writeScope(adapter, request)
        // A write takes no query parameter (API.md, scoped lists' rule 2): one a client
        // meant to narrow the write (`?game=8`) would otherwise be ignored as it writes.
        try ListQuery.refuseAny(request)
        // RFC 9110 14.5: a `PUT` with `Content-Range` is a partial body; replacing the item
        // with it would lose the rest, so it is refused.
        if request.method == .put, request.headers[.contentRange] != nil {
            throw Problem(
                .badRequest,
                detail: "PUT replaces the whole item and takes no Content-Range (RFC 9110 14.5); "
                    + "send the whole item, or PATCH the fields to change."
            )
        }
        guard readsBody else { return (adapter, .null, scope, caller) }
        guard let type = request.headers[.contentType], Self.isJSON(type) else {
            throw Problem(
                .unsupportedMediaType,
                detail:
                    "The body must be 'Content-Type: application/json'; got '\(request.headers[.contentType] ?? "none")'.",
                headers: request.method == .patch ? [Self.acceptPatch: Self.patchFormats] : [:]
            )
        }
        // RFC 5789 2.2: a patch document in a format the server does not apply (JSON Patch,
        // RFC 6902, is a list of operations) is refused, naming the ones it applies.
        if request.method == .patch, Self.mediaType(of: type) == "application/json-patch+json" {
            throw Problem(
                .unsupportedMediaType,
                detail: "PATCH takes a JSON merge patch (RFC 7396: 'application/merge-patch+json' or "
                    + "'application/json', {\"data\": {...}}), not a JSON Patch (RFC 6902).",
                headers: [Self.acceptPatch: Self.patchFormats]
            )
        }
        // RFC 8259 8.1: JSON between systems is UTF-8; a body labelled otherwise would be misread.
        if let charset = Self.charset(of: type), charset != "utf-8", charset != "utf8" {
            throw Problem(
                .unsupportedMediaType,
                detail:
                    "The body must be JSON in UTF-8; got 'charset=\(charset)'. Send it in UTF-8 (or without a charset)."
            )
        }
        // RFC 9110 15.5.16: a body in a content coding the server does not decode (gzip,
        // say) is refused, naming the one it takes, rather than read as JSON and misread.
        let codings = request.headers[values: .contentEncoding].flatMap { $0.split(separator: ",") }
            .map { $0.trimmingCharacters(in: .whitespaces).lowercased() }.filter { !$0.isEmpty && $0 != "identity" }
        if let coding = codings.first {
            throw Problem(
                .unsupportedMediaType,
                detail: "The body is sent with 'Content-Encoding: \(coding)'; this server takes it unencoded.",
                headers: [.acceptEncoding: "identity"]
            )
        }
        let buffer = try await Self.body(of: request, limit: maximumBodySize)
        let bytes = Array(buffer.readableBytesView)
        if let name = JSONValue.duplicateKey(in: bytes) {
            throw Problem(.badRequest, detail: "The body names '\(name)' twice in one object; give each member once.")
        }
        if let problem = JSONSyntax.problem(in: bytes) {
            throw Problem(.badRequest, detail: "The body is not valid JSON (RFC 8259): \(problem).")
        }
        do {
            let body = try JSONValue.parse(bytes, maximumDepth: JSONValue.maximumDepth)
            return (adapter, body, scope, caller)
        } catch let error as JSONValue.TooDeep {
            throw Problem(
                .badRequest,
                detail: "The body nests arrays and objects more than \(error.limit) levels deep; "
                    + "this server takes at most \(error.limit)."
            )
        } catch DecodingError.typeMismatch(_, let context) {
            // A value the decoder cannot read: a string that is no Unicode text, or a
            // number out of a 64-bit float's range (`1e400`). The second is JSON (RFC 8259
            // puts no bound on numbers): the item is refused as a field's bad value.
            if JSONValue.holdsBadText(bytes) {
                throw Problem(
                    .badRequest,
                    detail: "The body is not valid JSON: a string in it is not UTF-8, or escapes half "
                        + "of a UTF-16 surrogate pair alone (\\ud800)."
                )
            }
            throw Self.outOfRange(at: context.codingPath.map(\.stringValue))
        } catch {
            throw Problem(.badRequest, detail: "The body is not valid JSON.")
        }
    }

    /// The refusal of a body holding a number out of range at `path` (members from the
    /// body's top), naming the item's field that holds it.
    static func outOfRange(at path: [String]) -> DataMediatorError {
        let field = path.first == "data" && path.count > 1 ? path[1] : path.first ?? "data"
        let detail = JSONValue.outOfRangeDetail
        return DataMediatorError(
            .invalidItem,
            "'\(field)' \(detail).",
            fieldProblems: [FieldProblem(field: field, detail: detail)]
        )
    }

    /// Who writes: a configured write token writes every item (nil); on a scoped list, a
    /// verified JWT writes its holder's slice. A JWT never writes to a list without a scope.
    /// With the slice, the caller whose idempotency keys the write's is
    /// (``idempotencyCaller(_:_:)``).
    ///
    /// - Throws: as ``BearerAccess/authorize(_:)`` when the request holds no write token and
    ///   the list is not scoped; `unauthorized` for a scoped list's token that is not valid
    ///   or lacks the claim.
    private func writeScope(_ adapter: ListAdapter, _ request: Request) async throws -> (WriteScope?, String) {
        let definition = adapter.definition
        guard let listScope = definition.scope, !access.accepts(request) else {
            // A caller's JWT that verifies is a valid token that does not write here: say
            // so, rather than call it not valid (a client would get a new one in vain).
            if access.isEnabled, !access.accepts(request), let verify = scope.verify,
                (try? await verify(request.headers[.authorization])) != nil
            {
                let detail =
                    "A JWT writes only to a list with a scope, and '\(definition.name)' has none: "
                    + "its writes need one of the server's write tokens."
                throw Problem(.unauthorized, detail: detail, headers: BearerChallenge.invalidToken(detail))
            }
            // A read token too: a client that drops a token called not valid would drop a
            // good one (review 105 #7).
            if access.isEnabled, !access.accepts(request), readers.accepts(request) {
                let detail = "This token reads; writes need one of the server's write tokens."
                throw Problem(.unauthorized, detail: detail, headers: BearerChallenge.invalidToken(detail))
            }
            try access.authorize(request)
            return (nil, "token " + BearerAccess.credential(of: request))
        }
        let claims = try await scope.claims(for: adapter, request)
        let slice = WriteScope(field: listScope.field, value: try definition.scopeValue(claims))
        return (slice, Self.idempotencyCaller(claims, request))
    }

    /// Whose idempotency keys a JWT's write uses: its holder's, named by `iss` and `sub`
    /// (RFC 7519 4.1.2: a subject is unique within its issuer's), so two callers of one
    /// slice (a team's, scoped by another claim) never replay each other's creates; a token
    /// without a `sub` names no holder, so it is its own caller (its hash).
    static func idempotencyCaller(_ claims: [String: JSONValue]?, _ request: Request) -> String {
        guard case .string(let subject)? = claims?["sub"] else {
            return "jwt-token " + BearerAccess.credential(of: request)
        }
        var writer = JSONWriter()
        writer.write(.array([claims?["iss"] ?? .null, .string(subject)]))
        return "jwt " + writer.string
    }

    private func answer(
        _ written: WrittenItem,
        adapter: ListAdapter,
        request: Request,
        status: HTTPResponse.Status
    ) -> Response {
        ReadYourWrites.written?.note(written.version)
        let bytes = written.cell.json()
        // The item's entity tag, which a later write's `If-Match` may name.
        var headers: HTTPFields = [
            .contentType: "application/json", .cacheControl: "no-store", .eTag: EntityTag.of(bytes),
        ]
        if written.created {
            headers[.location] = adapter.definition.href + "/items/" + PathSegment.encode(written.cell.id)
        }
        if written.replayed { headers[Self.idempotentReplayed] = "true" }
        return Response(
            status: status,
            headers: headers,
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes))
        )
    }

    static let idempotencyKeyField = HTTPField.Name.known("Idempotency-Key")
    static let idempotentReplayed = HTTPField.Name.known("Idempotent-Replayed")

    /// The request's `Idempotency-Key`: 1 to 255 visible ASCII characters, bare or as a
    /// quoted string (the structured-field form of the IETF draft).
    ///
    /// - Throws: `bad-request` for an empty, over-long or non-ASCII key, or one given twice.
    static func idempotencyKey(_ request: Request) throws -> String? {
        let values = request.headers[values: idempotencyKeyField]
        guard let raw = values.first else { return nil }
        guard values.count == 1 else {
            throw Problem(.badRequest, detail: "Idempotency-Key is given \(values.count) times; give it once.")
        }
        var key = raw.trimmingCharacters(in: .whitespaces)
        // `"k"` is the key `k`; `""` (nothing inside) is a bare key of two characters.
        if key.utf8.count >= 3, key.hasPrefix("\""), key.hasSuffix("\"") { key = String(key.dropFirst().dropLast()) }
        guard (1...255).contains(key.utf8.count), key.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) else {
            throw Problem(
                .badRequest,
                detail: "Idempotency-Key must be 1 to 255 visible ASCII characters (a UUID, say); got "
                    + (raw.utf8.count > 64 ? "\(raw.utf8.count) bytes." : "'\(raw)'.")
            )
        }
        return key
    }

    /// The `charset` parameter of a media type, lowercased and unquoted; nil when absent.
    static func charset(of contentType: String) -> String? {
        for parameter in contentType.split(separator: ";").dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard pair.count == 2, pair[0].lowercased() == "charset" else { continue }
            var value = pair[1][...]
            if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") { value = value.dropFirst().dropLast() }
            return value.lowercased()
        }
        return nil
    }

    /// `application/json`, or a `+json` type such as `application/merge-patch+json`, with
    /// any parameters (a suffix names a subtype's structure, so `application/+json`, with
    /// no subtype, is neither).
    static func isJSON(_ contentType: String) -> Bool {
        let type = mediaType(of: contentType)
        return type == "application/json"
            || (type.hasPrefix("application/") && type.hasSuffix("+json") && type.count > "application/+json".count)
    }

    /// The media type of a `Content-Type` without its parameters, lowercased.
    static func mediaType(of contentType: String) -> String {
        contentType.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
    }

    /// `Accept-Patch` (RFC 5789 3.1).
    static let acceptPatch = HTTPField.Name.known("Accept-Patch")

    /// The patch formats `PATCH` applies: JSON merge patches.
    static let patchFormats = "application/merge-patch+json, application/json"
}

/// A request body its client stopped sending, closing its connection: no answer reaches
/// it, so the request is logged and counted as the client's leaving (`499`, the status
/// nginx gives it), not as a `400` among the server's refusals of bad requests. Not a
/// `...Error` of a domain: it ends a request no client hears, as
/// ``ConnectionGuard/RequestCut`` does, and never becomes a problem.
struct BodyCutShort: Error {
    /// The status the request is logged and counted with.
    static let status = HTTPResponse.Status(code: 499, reasonPhrase: "Client Closed Request")
}
