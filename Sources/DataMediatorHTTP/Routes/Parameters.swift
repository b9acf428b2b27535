import DataMediator
import HTTPTypes
import Hummingbird

/// The query and path parameters of a list request, checked: each at most once.
struct Parameters {
    let view: String?
    let limit: String?
    let cursor: String?
    let since: String?

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
        since = values["since"]
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

extension Parameters {
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
