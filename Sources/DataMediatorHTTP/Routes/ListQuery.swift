import DataMediator
import HTTPTypes
import Hummingbird

/// The query and path parameters of a list request, checked: each at most once.
struct ListQuery {
    let view: String?
    let limit: String?
    let cursor: String?
    let around: String?
    let since: String?
    /// The route's own names, and every other query parameter by name, raw (the view's
    /// parameters, checked by ``slice(of:caller:)``).
    private let allowed: [Name]
    private let others: [String: [String]]

    /// The query parameters a route may take.
    enum Name: String {
        case view, limit, cursor, around, since

        /// The error a value of this parameter that cannot be used answers with, a
        /// repeated one too: a client that tells bad limits or cursors apart by `type`
        /// sees `limit=1&limit=2` as a bad limit.
        var refusal: DataMediatorError.Code {
            switch self {
            case .limit: .badLimit
            case .cursor: .badCursor
            case .around: .badParameter
            case .view, .since: .badRequest
            }
        }
    }

    /// Reads the `allowed` query parameters in one pass over the query (as ``QueryString``
    /// reads it: `+` is a space), and keeps the others for the view's parameters.
    ///
    /// - Throws: the parameter's ``Name/refusal`` when an allowed parameter is given more
    ///   than once; `bad-request` when a name or value is not valid percent-encoded UTF-8.
    init(_ request: Request, allowed: [Name]) throws {
        var given: [(name: Name, value: String)] = []
        var others: [String: [String]] = [:]
        for (key, value) in try QueryString.pairs(of: request.uri.query) {
            guard let name = Name(rawValue: key), allowed.contains(name) else {
                others[key, default: []].append(value)
                continue
            }
            given.append((name, value))
        }
        self.allowed = allowed
        self.others = others
        for name in allowed {
            let count = given.count { $0.name == name }
            if count > 1 {
                throw DataMediatorError(
                    name.refusal,
                    "'\(name.rawValue)' is given \(count) times; give it at most once."
                )
            }
        }
        func first(_ name: Name) -> String? { given.first { $0.name == name }?.value }
        view = first(.view)
        limit = first(.limit)
        cursor = first(.cursor)
        around = first(.around)
        since = first(.since)
    }

    /// Refuses any query parameter of a list route that takes none (`/lists`,
    /// `/lists/{list}`, the writes), as the routes with parameters refuse the ones they do
    /// not take; names that begin with `_` are ignored (cache busters).
    ///
    /// - Throws: `unknown-parameter` naming the first; `bad-request` for a query that is not
    ///   valid percent-encoded UTF-8.
    static func refuseAny(_ request: Request) throws {
        let names = try QueryString.pairs(of: request.uri.query).map(\.name).filter { !$0.hasPrefix("_") }
        if let name = names.first {
            throw DataMediatorError(.unknownParameter, "This route takes no parameter '\(name)'; it takes none.")
        }
    }

    /// The slice the request selects in `adapter`'s view: the view's parameters from the
    /// query, and the caller's claims when the list is scoped (none for an operator, who
    /// reads it whole).
    ///
    /// - Throws: `unknown-parameter` for a query parameter that neither the route nor the
    ///   view takes (names that begin with `_` are ignored: cache busters); `unknownView`.
    func slice(of adapter: ListAdapter, caller: ScopeCaller) throws -> SliceRequest {
        let view = try adapter.definition.view(named: view)
        let parameters = view.parameters.map(\.name)
        let unknown = others.keys.filter { !$0.hasPrefix("_") && !parameters.contains($0) }.sorted()
        if let name = unknown.first {
            let taken = (allowed.map(\.rawValue) + parameters).map { "'\($0)'" }.joined(separator: ", ")
            throw DataMediatorError(
                .unknownParameter,
                "This route takes no parameter '\(name)'; it takes \(taken)."
            )
        }
        return SliceRequest(
            parameters: others.filter { parameters.contains($0.key) },
            claims: caller.claims,
            wholeScope: caller.whole
        )
    }

    /// The view's parameters as given, in the view's order, for links that continue.
    func sliceParameters(of adapter: ListAdapter) -> [(name: String, value: String?)] {
        let view = try? adapter.definition.view(named: view)
        return (view?.parameters ?? []).map { ($0.name, others[$0.name]?.first) }
    }

    /// A percent-decoded path parameter.
    static func path<Context: RequestContext>(_ context: Context, _ name: String) throws -> String {
        guard let raw = context.parameters.get(name), let decoded = PathSegment.decode(String(raw)) else {
            throw DataMediatorError(.badRequest, "The path's '\(name)' is not valid percent-encoded UTF-8.")
        }
        return decoded
    }

    /// The item id of `/lists/{list}/items/{id}`, read from the path as the client sent it:
    /// one percent-encoded segment, or several joined by `/` (composite ids contain `/`),
    /// empty ones included (`a//b` is the id `a//b`, `a/` the id `a/`: the router's own
    /// reading drops empty segments). Nil when the path ends at `items` (the list's pages).
    ///
    /// - Throws: `bad-request` for a segment that is not valid percent-encoded UTF-8.
    static func itemID(_ request: Request) throws -> String? {
        // Empty segments before the id are skipped, as the router skipped them to get here.
        var segments = request.uri.path.split(separator: "/", omittingEmptySubsequences: false)[...]
        var named = 0
        while named < 3, let segment = segments.first {
            segments = segments.dropFirst()
            if !segment.isEmpty { named += 1 }
        }
        guard named == 3, !segments.isEmpty else { return nil }
        var decoded: [String] = []
        for segment in segments {
            guard let text = PathSegment.decode(String(segment)) else {
                throw DataMediatorError(.badRequest, "The item id in the path is not valid percent-encoded UTF-8.")
            }
            decoded.append(text)
        }
        return decoded.joined(separator: "/")
    }
}

extension ListQuery {
    /// `Link: <path?name=value&...>; rel="next"`, naming the parameters that are given (in
    /// order), for answers that continue.
    static func nextLink(_ path: String, _ parameters: [(name: String, value: String?)]) -> HTTPFields {
        links(path, [("next", parameters)])
    }

    /// One `Link` field with a link per relation (`<path?...>; rel="next", <...>; rel="prev"`,
    /// RFC 8288), each naming the parameters that are given, in order; none when there are
    /// no relations.
    static func links(
        _ path: String,
        _ relations: [(rel: String, parameters: [(name: String, value: String?)])]
    ) -> HTTPFields {
        guard !relations.isEmpty else { return [:] }
        // Written as bytes and made a string once: every page answer has this field.
        var bytes: [UInt8] = []
        bytes.reserveCapacity(relations.count * (path.utf8.count + 320))
        for (index, relation) in relations.enumerated() {
            if index > 0 { bytes.append(contentsOf: ", ".utf8) }
            bytes.append(UInt8(ascii: "<"))
            bytes.append(contentsOf: path.utf8)
            bytes.append(UInt8(ascii: "?"))
            var first = true
            for parameter in relation.parameters {
                guard let value = parameter.value else { continue }
                if !first { bytes.append(UInt8(ascii: "&")) }
                first = false
                bytes.append(contentsOf: parameter.name.utf8)
                bytes.append(UInt8(ascii: "="))
                PathSegment.append(value, to: &bytes)
            }
            bytes.append(contentsOf: ">; rel=\"".utf8)
            bytes.append(contentsOf: relation.rel.utf8)
            bytes.append(UInt8(ascii: "\""))
        }
        return [linkField: String(decoding: bytes, as: UTF8.self)]
    }

    /// The `Link` header.
    static let linkField = HTTPField.Name.known("Link")
}

extension HTTPField.Name {
    /// A header name written in the source, so known to be valid (`Link`, `Last-Event-ID`):
    /// an invalid one is a programming error, caught the first time it is made.
    static func known(_ name: String) -> HTTPField.Name {
        guard let field = HTTPField.Name(name) else { preconditionFailure("'\(name)' is not a header name") }
        return field
    }
}
