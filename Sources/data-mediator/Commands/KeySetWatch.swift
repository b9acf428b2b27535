import DataMediatorHTTP
import Logging
import ServiceLifecycle
import UnixSignals

/// Reads the JWKS file again on SIGHUP and every `interval` (nil: on SIGHUP only), so that
/// a key added to it verifies tokens, and a key taken out of it stops verifying them,
/// without a restart (``ReloadingClaimsVerifier``).
struct KeySetWatch: Service {
    let verifier: ReloadingClaimsVerifier
    let interval: Duration?
    let logger: Logger

    func run() async throws {
        // One reload at a time, in order; a reason that arrives during one is kept (the
        // newest only: two SIGHUPs during a reload need one more read, not two).
        let (reasons, wake) = AsyncStream.makeStream(of: String.self, bufferingPolicy: .bufferingNewest(1))
        let signals = await UnixSignalsSequence(trapping: .sighup)
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for await _ in signals { wake.yield("SIGHUP") }
            }
            if let interval {
                group.addTask {
                    while (try? await Task.sleep(for: interval)) != nil { wake.yield("interval") }
                }
            }
            group.addTask {
                var refusal: String?
                for await reason in reasons { refusal = await reload(reason, lastRefusal: refusal) }
            }
            try? await gracefulShutdown()
            wake.finish()
            group.cancelAll()
        }
    }

    /// Reloads and logs what changed: every reload that took new keys, every refusal the
    /// first time it is seen (the file is read every interval), and a SIGHUP that found
    /// nothing new. Answers the refusal, if any, to compare the next one with.
    private func reload(_ reason: String, lastRefusal: String?) async -> String? {
        let path = verifier.keySetFile ?? ""
        switch await verifier.reload() {
        case .unchanged:
            if reason == "SIGHUP" { logger.info("key set unchanged", metadata: ["file": "\(path)"]) }
            return lastRefusal
        case .reloaded(let keyIDs, let skipped):
            logger.notice(
                "key set reloaded: tokens are verified with its keys now",
                metadata: ["file": "\(path)", "kids": "\(keyIDs.joined(separator: ","))", "on": "\(reason)"]
            )
            for key in skipped {
                logger.warning("key set: \(key); it is left out", metadata: ["file": "\(path)"])
            }
            return nil
        case .refused(let why):
            if why != lastRefusal || reason == "SIGHUP" {
                logger.error(
                    "key set not reloaded: the keys in use stay",
                    metadata: ["file": "\(path)", "why": "\(why)", "on": "\(reason)"]
                )
            }
            return why
        }
    }
}
