import HTTPTypes
import Logging
import NIOCore
import NIOHTTPTypes

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
        let body = ByteBuffer(bytes: problem.body(instance: request.path))
        var fields = problem.fields
        fields[.contentLength] = String(body.readableBytes)
        fields[.connection] = "close"
        fields[.date] = HTTPDate.now()
        fields[.server] = "data-mediator"
        fields[RequestMiddleware<ClientContext>.field] = request.id
        logger.info(
            "request",
            metadata: [
                "method": .string(request.method), "path": .string(request.path ?? "-"),
                "status": .stringConvertible(LoggedNumber(problem.status.code)), "problem": .string(problem.slug),
                "request_id": .string(request.id),
            ]
        )
        context.write(wrapOutboundOut(.head(HTTPResponse(status: problem.status, headerFields: fields))), promise: nil)
        context.write(wrapOutboundOut(.body(body)), promise: promise)
    }
}
