import HTTPTypes
import Hummingbird

/// CORS for the configured origins only: a request whose `Origin` is one of them (or any,
/// with `*`) is answered through Hummingbird's `CORSMiddleware`, which answers preflights
/// and adds the `Access-Control-*` headers, exposing `Link` and `ETag` (and the other
/// headers a client reads) to browsers. Other requests pass through without them.
struct CORSOriginsMiddleware<Context: RequestContext>: RouterMiddleware {
    let origins: Set<String>
    private let cors: CORSMiddleware<Context>
    /// The headers a browser script may read: the Fetch standard wants them on the
    /// actual answer, which Hummingbird's middleware only sets on preflights. A `401`'s
    /// `WWW-Authenticate` says why a token was refused, a `405`'s `Allow` what is allowed.
    static var exposed: [String] {
        [
            "Link", "ETag", "Location", "Retry-After", "X-Request-ID", "Idempotent-Replayed", "WWW-Authenticate",
            "Allow",
            "Accept-Patch",
        ]
    }

    /// `origin` when `origins` takes it (listed, or any with `*`), nil otherwise: `null` (a
    /// file, a sandboxed frame) is no configured origin, and `*` does not take it.
    static func taken(_ origin: String?, by origins: Set<String>) -> String? {
        guard let origin, origin != "null", origins.contains("*") || origins.contains(origin) else { return nil }
        return origin
    }

    /// The fields that let a script of `origin` (one taken) read an answer made without
    /// Hummingbird's middleware: a route's own `OPTIONS`, and the answers the connection's
    /// guard writes below the router (``ConnectionGuard``: a late body's `408`, an evicted
    /// write's `503`, a second `Authorization`'s `400`), which a browser otherwise showed
    /// as a network error, `Retry-After` unread (review 105 #5).
    static func fields(for origin: String) -> HTTPFields {
        [
            .accessControlAllowOrigin: origin, .accessControlExposeHeaders: exposed.joined(separator: ", "),
            .vary: "Origin",
        ]
    }

    init(origins: [String]) {
        self.origins = Set(origins)
        self.cors = CORSMiddleware(
            allowOrigin: .originBased,
            allowHeaders: [
                .accept, .authorization, .contentType, .origin, .ifNoneMatch, .ifMatch, .known("Idempotency-Key"),
                .known("Last-Event-ID"), .known("X-Request-ID"),
            ],
            allowMethods: [.get, .head, .options, .post, .put, .patch, .delete],
            exposedHeaders: Self.exposed,
            maxAge: .seconds(600)
        )
    }

    func handle(
        _ request: Request,
        context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        // `null` (a file, a sandboxed frame) is no configured origin, and `*` does not
        // take it: Hummingbird's middleware withholds it too (review 105 #8).
        guard let origin = Self.taken(request.headers[.origin], by: origins) else {
            // The answer differs by Origin (it would carry CORS headers for a listed one), so
            // a cache must not give this one to another origin (Fetch, "CORS protocol and
            // HTTP caches").
            do {
                var response = try await next(request, context)
                response.headers.append(HTTPField(name: .vary, value: "Origin"))
                return response
            } catch {
                throw HeaderedError(base: error, headers: [.vary: "Origin"])
            }
        }
        let exposed = Self.exposed.joined(separator: ", ")
        if request.method == .options, request.headers[.accessControlRequestMethod] == nil {
            // Not a preflight (that names the method to come): an OPTIONS of the route's
            // own, answered with its `Allow`, which Hummingbird's middleware would replace.
            let headers = Self.fields(for: origin)
            do {
                var response = try await next(request, context)
                for field in headers { response.headers.append(field) }
                return response
            } catch {
                throw HeaderedError(base: error, headers: headers)
            }
        }
        var response: Response
        do {
            response = try await cors.handle(request, context: context, next: next)
        } catch {
            // An error goes on up to the middleware that counts it, answering with the headers.
            throw HeaderedError(base: error, headers: [.accessControlExposeHeaders: exposed])
        }
        if request.method != .options {
            response.headers[.accessControlExposeHeaders] = exposed
        }
        return response
    }
}
