import DataMediator
import HTTPTypes
import Hummingbird

/// The query and path parameters of a list request, checked: each at most once.
struct ListQuery {
    let view: String?
    let limit: String?
    let cursor: String?
    let since: String?

    /// The query parameters a route may take.
    enum Name: String {
        case view, limit, cursor, since
    }

    /// Reads the `allowed` query parameters in one pass over the query; unknown ones are
    /// ignored, as is usual.
    ///
    /// - Throws: `bad-request` when an allowed parameter is given more than once.
    init(_ request: Request, allowed: [Name]) throws {
        var given: [(name: Name, value: Substring)] = []
        for (key, value) in request.uri.queryParameters {
            guard let name = Name(rawValue: String(key)), allowed.contains(name) else { continue }
            given.append((name, value))
        }
        for name in allowed {
            let count = given.count { $0.name == name }
            if count > 1 {
                throw DataMediatorError(
                    .badRequest,
                    "'\(name.rawValue)' is given \(count) times; give it at most once."
                )
            }
        }
        func first(_ name: Name) -> String? { given.first { $0.name == name }.map { String($0.value) } }
        view = first(.view)
        limit = first(.limit)
        cursor = first(.cursor)
        since = first(.since)
    }

    /// A percent-decoded path parameter.
    static func path<Context: RequestContext>(_ context: Context, _ name: String) throws -> String {
        guard let raw = context.parameters.get(name), let decoded = PathSegment.decode(String(raw)) else {
            throw DataMediatorError(.badRequest, "The path's '\(name)' is not valid percent-encoded UTF-8.")
        }
        return decoded
    }

    /// The item id of `/items/{id}`: one percent-encoded segment, or several segments
    /// joined by `/` (composite ids contain `/`).
    static func itemID<Context: RequestContext>(_ context: Context) throws -> String {
        var segments: [String] = []
        for segment in context.parameters.getCatchAll() {
            guard let decoded = PathSegment.decode(String(segment)) else {
                throw DataMediatorError(.badRequest, "The item id in the path is not valid percent-encoded UTF-8.")
            }
            segments.append(decoded)
        }
        return segments.joined(separator: "/")
    }
}

extension ListQuery {
    /// `Link: <path?name=value&...>; rel="next"`, naming the parameters that are given (in
    /// order), for answers that continue.
    static func nextLink(_ path: String, _ parameters: [(name: String, value: String?)]) -> HTTPFields {
        let query = parameters.compactMap { parameter in
            parameter.value.map { parameter.name + "=" + PathSegment.encode($0) }
        }
        return [.known("Link"): "<\(path)?\(query.joined(separator: "&"))>; rel=\"next\""]
    }
}

extension HTTPField.Name {
    /// A header name written in the source, so known to be valid (`Link`, `Last-Event-ID`).
    static func known(_ name: String) -> HTTPField.Name {
        HTTPField.Name(name) ?? .contentType
    }
}
