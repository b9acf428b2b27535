import DataMediator
import Hummingbird
import Synchronization

/// Runs each write for its client's tag (``WriteOrigin``), which the write's notification
/// carries to every replica of the service, and answers it once this replica has heard
/// that notification: the other replicas hear it at the same moment, so a client's next
/// read through any of them waits for its write (``ReadYourWritesMiddleware``), not only
/// through this one. Notes the write in ``writes`` when this replica keeps writes itself
/// (it reads a lagging database replica).
struct WriteOriginMiddleware<Context: RequestContext>: RouterMiddleware {
    let identity: ClientIdentity
    /// This replica's memory of each client's latest write; nil when its reads never lag.
    let writes: ReadYourWrites?
    /// The notifications of every replica's writes; nil when there are none to wait for.
    let notifier: ChangeNotifier?
    /// How long a write's answer waits for its notification (one lost or late costs no more).
    let notificationWait: Duration

    func handle(
        _ request: Request,
        context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        guard ClientShareMiddleware<Context>.isWrite(request) else { return try await next(request, context) }
        let written = ReadYourWrites.WrittenVersion()
        let client = ReadYourWrites.tag(of: await identity.client(of: request, context: context))
        let response = try await ReadYourWrites.$written.withValue(written) {
            try await WriteOrigin.$client.withValue(client) { try await next(request, context) }
        }
        let version = written.version.load(ordering: .relaxed)
        if version > 0 {
            writes?.note(client, version: version)
            if let notifier { _ = await notifier.heard(version, within: notificationWait) }
        }
        return response
    }
}
