import Crypto
import DataMediator
import HTTPTypes
import Hummingbird
import Synchronization

/// Each client's latest write on a store whose reads may lag its writes (a read replica
/// behind its primary), so that the client's own reads wait for the replica to replay it:
/// a client that wrote an item sees it in the pages, lookups and counts it reads next.
///
/// Clients are kept by their tag (``tag(of:)``), the digest a write carries to every
/// replica of the service with its notification (``WriteOrigin``): a write made through
/// another replica is kept here too when its notification arrives (``observe(_:)``).
/// A write is kept until one of the client's reads has found it replayed, for ``keep`` at
/// most; a read that waits gives up at the store's database timeout and answers `503`
/// (`Retry-After`) while the write is kept, rather than a list without the client's own
/// write as if it were current.
final class ReadYourWrites: Sendable {
    /// The version a write route made, noted for the middleware around it.
    @TaskLocal static var written: WrittenVersion?

    /// Where a write route notes the version its write made (``written``).
    final class WrittenVersion: Sendable {
        let version = Atomic<Int64>(0)

        /// Notes the store's version after the write.
        func note(_ version: Int64) { self.version.store(version, ordering: .relaxed) }
    }

    private let writes = Mutex<[String: (version: Int64, until: ContinuousClock.Instant)]>([:])
    /// How long a client's write is waited for by its reads.
    let keep: Duration
    /// The most clients kept; past it, those whose time is up are forgotten first, then the
    /// quarter whose time runs out first.
    static let remembered = 4_096

    init(keep: Duration) {
        self.keep = keep
    }

    /// The tag `client` is kept by and its writes carry: a digest (12 bytes of SHA-256, in
    /// hex), so no credential leaves the service.
    static func tag(of client: String) -> String {
        Hex.string(Array(SHA256.hash(data: Array(client.utf8)).prefix(12)))
    }

    /// Keeps the writes `notifier` hears of through every replica of the service, by the
    /// tag of the client each was made for.
    func observe(_ notifier: ChangeNotifier) {
        notifier.observeWriters { [weak self] client, version in self?.note(client, version: version) }
    }

    /// Notes the write at `version` of the client tagged `client`.
    func note(_ client: String, version: Int64) {
        let now = ContinuousClock.now
        writes.withLock { writes in
            if writes[client] == nil, writes.count >= Self.remembered {
                writes = writes.filter { $0.value.until > now }
                if writes.count >= Self.remembered {
                    // The quarter whose time runs out first goes, so that a full memory (every
                    // replica's writes are noted here) is pruned once in many notes, not at each.
                    let cut = writes.values.map(\.until).sorted()[Self.remembered / 4]
                    writes = writes.filter { $0.value.until > cut }
                }
            }
            let kept = writes[client]?.version ?? 0
            writes[client] = (max(kept, version), now + keep)
        }
    }

    /// The version of `client`'s latest write still kept, nil for none.
    func version(for client: String) -> Int64? {
        let now = ContinuousClock.now
        return writes.withLock { writes in
            guard let write = writes[client] else { return nil }
            guard write.until > now else {
                writes[client] = nil
                return nil
            }
            return write.version
        }
    }

    /// Forgets `client`'s write at `version` once a read waited for it (the replica holds
    /// it, or did not catch up in time): later reads do not look again. A newer write stays.
    func forget(_ client: String, version: Int64) {
        writes.withLock { writes in
            if writes[client]?.version == version { writes[client] = nil }
        }
    }

    /// How many clients' writes are kept.
    var count: Int { writes.withLock { $0.count } }

    /// Whether no write is kept (most reads look no further).
    var isEmpty: Bool { writes.withLock { $0.isEmpty } }
}

/// Holds each client's reads of a list until the list's reads hold its latest write
/// (``ReadYourWrites``, noted by ``WriteOriginMiddleware``): only on a store whose reads
/// may lag.
///
/// A write through another replica of the service is known here by its notification,
/// which may reach this replica after the write was answered and the client's next read
/// arrived; so each read with credentials (a client that may have written) first looks at
/// the primary's version (one look shared by the reads of a moment, ``FreshVersionRead``)
/// and waits until this replica has heard the notifications up to it: for
/// ``notificationWait`` at most, then `503` (this replica cannot tell whose writes it has
/// not heard). A primary that does not answer in that time leaves the read to what is
/// known, so a read replica serves through a primary's outage. A read without credentials
/// has no write of its own and skips the look. The waits and the reads after them share
/// the store's timeout (``DataMediator/ReadTime``), so a read request ends within one.
struct ReadYourWritesMiddleware<Context: RequestContext>: RouterMiddleware {
    let writes: ReadYourWrites
    let registry: ListRegistry
    let identity: ClientIdentity
    /// The primary's version, read after each read arrived; nil when not known (a test's
    /// store, or a service without other replicas' notifications).
    let primaryVersion: FreshVersionRead?
    /// The notifications of every replica's writes.
    let notifier: ChangeNotifier?
    /// How long a read waits for the primary's version, and then to hear the notifications
    /// up to it.
    let notificationWait: Duration

    func handle(
        _ request: Request,
        context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        let parts = RouteSegments.of(request.uri.path)
        guard [.get, .head].contains(request.method), parts.count >= 3, parts[0] == "lists",
            let adapter = try? registry.adapter(named: String(parts[1]))
        else { return try await next(request, context) }
        // The waits below and the reads after them share the store's timeout. A stream's
        // reads, made as its body is written after this returns, each have their own.
        return try await ReadTime.$began.withValue(.now) {
            try await waitForWrites(request, context: context, adapter: adapter, next: next)
        }
    }

    /// Waits until this server's reads hold the writes the request's client made (and the
    /// writes it did not hear), then answers the request.
    private func waitForWrites(
        _ request: Request,
        context: Context,
        adapter: ListAdapter,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        if ClientIdentity.mayHaveWritten(request), let primaryVersion, let notifier,
            let version = await primaryVersion.value(),
            notifier.latestVersion < version, await !notifier.heard(version, within: notificationWait)
        {
            throw DataMediatorError(
                .unavailable,
                "This server has not yet heard of every write made before your read (version \(version)); "
                    + "retry shortly."
            )
        }
        guard !writes.isEmpty else { return try await next(request, context) }
        let client = ReadYourWrites.tag(of: await identity.client(of: request, context: context))
        // The client's latest write, and the writes this replica did not hear (made before
        // it listened), which may be anyone's.
        let own = writes.version(for: client)
        let unheard = writes.version(for: WriteOrigin.everyone)
        let version = max(own ?? 0, unheard ?? 0)
        if version > 0 {
            // A replica still behind the write when the wait's time is up answers "retry"
            // rather than a list without the client's write, and keeps the write for the
            // retry to wait for; so does a look that failed (a replica's connection ended,
            // the primary unreachable): it cannot say the replica holds the write.
            switch try await adapter.catchUp(to: version) {
            case .stillBehind:
                let what =
                    version == own
                    ? "your latest write (version \(version))"
                    : "the writes made before this server listened for them (version \(version))"
                throw DataMediatorError(
                    .unavailable,
                    "This server's read replica has not replayed \(what) yet; retry shortly."
                )
            case .independent:
                // A list of no store (a file's) is answered as it is, and says nothing of
                // the store's replica: the write waits for the client's next read of one.
                return try await next(request, context)
            case .notBehind, .caughtUp: break
            }
            if let own { writes.forget(client, version: own) }
            if let unheard { writes.forget(WriteOrigin.everyone, version: unheard) }
        }
        return try await next(request, context)
    }
}
