import DataMediator
import HTTPTypes
import Hummingbird
import Logging
import Synchronization

/// Gives every request an id: the client's `X-Request-ID` when it is a sensible one
/// (1 to 128 letters, digits and `-_.:`), else a new one (32 hex digits, unique in the
/// process and, with a random start per process, across replicas). The id is in every log
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
        let id = request.headers[Self.field].flatMap(Self.accepted) ?? RequestIDs.next()
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

/// New request ids (``RequestIDMiddleware``).
enum RequestIDs {
    /// The process's random half of new ids, and the count of ids made.
    private static let processPart: UInt64 = {
        var generator = SystemRandomNumberGenerator()
        return generator.next()
    }()
    private static let made = Atomic<UInt64>(0)

    /// A new id, without a system call: the process's random half, then the count mixed
    /// (SplitMix64's finalizer, a bijection) so ids do not tell how many requests came.
    static func next() -> String {
        Hex.id(processPart, SplitMix64.mix(made.add(1, ordering: .relaxed).newValue &+ processPart))
    }
}
