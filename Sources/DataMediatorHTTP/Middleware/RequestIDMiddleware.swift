import DataMediator
import HTTPTypes
import Hummingbird
import Logging

/// Gives every request an id: the client's `X-Request-ID` when it is a sensible one
/// (1 to 128 letters, digits and `-_.:`), else a new random one. The id is in every log
/// line of the request (`request_id`) and echoed in the answer's `X-Request-ID`, so a
/// client's report and the server's log meet.
struct RequestIDMiddleware<Context: RequestContext>: RouterMiddleware {
    /// The `X-Request-ID` header.
    static var field: HTTPField.Name { .known("X-Request-ID") }

    func handle(
        _ request: Request,
        context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        let id = request.headers[Self.field].flatMap(Self.accepted) ?? Hex.randomID()
        var context = context
        context.logger[metadataKey: "request_id"] = "\(id)"
        var response = try await next(request, context)
        response.headers[Self.field] = id
        return response
    }

    /// The client's id when it is one to keep, else nil.
    static func accepted(_ value: String) -> String? {
        guard (1...128).contains(value.utf8.count),
            value.utf8.allSatisfy({ byte in
                (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
                    || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: ".")
                    || byte == UInt8(ascii: ":")
            })
        else { return nil }
        return value
    }
}
