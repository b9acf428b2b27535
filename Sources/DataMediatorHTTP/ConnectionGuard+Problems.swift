import DataMediator
import HTTPTypes
import Logging
import Metrics
import NIOCore
import NIOHTTP1
import NIOHTTPTypes
import Synchronization

extension ConnectionGuard {
    /// Writes the head and body of `problem`'s answer to `request` (the caller or the
    /// framework writes its end), with the connection to close after it; answered as the
    /// routes' answers are (RequestMiddleware): its id, the date and server (RFC 9110 6.6.1,
    /// 10.2.4), and a line in the log.
    func writeHeadAndBody(
        _ context: ChannelHandlerContext,
        _ problem: Problem,
        request: ReadRequest,
        promise: EventLoopPromise<Void>?
    ) {
        let (fields, body) = answer(problem, request: request)
        context.write(wrapOutboundOut(.head(HTTPResponse(status: problem.status, headerFields: fields))), promise: nil)
        context.write(wrapOutboundOut(.body(body)), promise: promise)
    }

    /// Writes `problem`'s answer to a `CONNECT` request as bytes, past NIO's HTTP/1 encoder,
    /// which sends every answer to `CONNECT` without its body (only a `2xx` one has none,
    /// RFC 9112 6.3: it turns the connection into a tunnel); the connection closes after it.
    /// The head is written here by hand for that reason alone.
    func writePastEncoder(
        _ context: ChannelHandlerContext,
        _ problem: Problem,
        request: ReadRequest,
        promise: EventLoopPromise<Void>?
    ) {
        guard let encoder = try? context.pipeline.syncOperations.context(handlerType: HTTPResponseEncoder.self)
        else {
            writeHeadAndBody(context, problem, request: request, promise: promise)
            return
        }
        let (fields, body) = answer(problem, request: request)
        var bytes = ByteBuffer(string: "HTTP/1.1 \(problem.status.code) \(problem.status.reasonPhrase)\r\n")
        for field in fields { bytes.writeString("\(field.name.rawName): \(field.value)\r\n") }
        bytes.writeString("\r\n")
        bytes.writeImmutableBuffer(body)
        encoder.writeAndFlush(NIOAny(bytes), promise: promise)
    }

    /// The fields and body of `problem`'s answer to `request`, with the connection to close
    /// after it, logged as the routes' answers are.
    private func answer(_ problem: Problem, request: ReadRequest) -> (HTTPFields, ByteBuffer) {
        let body = ByteBuffer(bytes: problem.body(instance: request.path))
        var fields = problem.fields
        fields[.contentLength] = String(body.readableBytes)
        fields[.connection] = "close"
        fields[.date] = HTTPDate.now()
        fields[.server] = "data-mediator"
        fields[.xContentTypeOptions] = "nosniff"
        fields[RequestMiddleware<ClientContext>.field] = request.id
        if let origin = CORSOriginsMiddleware<ClientContext>.taken(request.origin, by: corsOrigins) {
            for field in CORSOriginsMiddleware<ClientContext>.fields(for: origin) { fields[field.name] = field.value }
        }
        let took = ContinuousClock.now - request.started
        logger.info(
            "request",
            metadata: [
                "method": .string(request.method), "path": .string(request.path ?? "-"),
                "status": .stringConvertible(LoggedNumber(problem.status.code)), "problem": .string(problem.slug),
                "request_id": .string(request.id),
                "duration_ms": .stringConvertible(LoggedNumber(milliseconds: took)),
            ]
        )
        // Counted as the routes' answers are (a request the server could not read is not:
        // it names no method or route).
        if request.method != "-", let method = HTTPRequest.Method(request.method) {
            let handles = Self.answers.handles(
                route: RequestMiddleware<ClientContext>.route(nil, path: request.path ?? "/"),
                method: method,
                status: problem.status
            )
            handles.record(since: request.started)
            handles.errors?.increment()
        }
        return (fields, body)
    }

    /// The metric handles of the answers the guards write themselves (a `408`, a `503` to
    /// a write whose connection a newcomer took, a readable `CONNECT`'s `405`).
    static let answers = RequestMetrics()
}

extension ConnectionGuard {
    /// Writes `end`, then closes the connection's output, and the connection once its client
    /// closes or `time` later (closed at once, its next bytes could lose the answer): a
    /// second after the guard's own answers, a body's time after a `413`, whose client may
    /// still be sending the body. Answers the close's task, for the guard to cancel.
    static func linger(
        _ context: ChannelHandlerContext,
        after end: NIOAny,
        promise: EventLoopPromise<Void>?,
        for time: TimeAmount
    ) -> Scheduled<Void> {
        let channel = context.channel
        context.writeAndFlush(end).whenComplete { result in
            promise?.completeWith(result)
            channel.close(mode: .output, promise: nil)
        }
        return context.eventLoop.assumeIsolated().scheduleTask(in: time) { channel.close(promise: nil) }
    }

    /// Stops counting the connection against the limits (it is on its way out).
    func stopCounting() {
        connections.stopWaiting(ObjectIdentifier(self))
        guard counted else { return }
        counted = false
        connections.value.subtract(1, ordering: .relaxed)
    }

    /// Closes a connection refused at a limit and logs it (a line each 10 s at most), and
    /// counts it by `kind` (`data_mediator_connections_refused{why}`: `address` or `all`),
    /// so that a saturated server is a value in the metrics, not only a failed scrape.
    func refuse(_ why: String, kind: String, _ context: ChannelHandlerContext) {
        Counter(label: "data_mediator_connections_refused", dimensions: [("why", kind)]).increment()
        connections.tellRefused(why, logger: logger, on: context.eventLoop)
        context.close(promise: nil)
    }
}
