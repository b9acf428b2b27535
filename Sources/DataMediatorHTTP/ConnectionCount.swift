import DataMediator
import Logging
import NIOCore
import Synchronization

/// The open connections, in all and per address, and those waiting for their next request,
/// shared by every connection's guard (``ConnectionGuard``).
final class ConnectionCount: Sendable {
    let value = Atomic<Int>(0)
    /// Open connections by remote address, kept only under a per-address cap.
    private let byAddress = Mutex<[String: Int]>([:])
    /// The connections with no request in flight, or whose one request's body has not
    /// come whole (nothing was done for it yet), by their guard, with when they began to
    /// wait: the ones a connection beyond the limit may take the place of.
    private let waiting = Mutex<[ObjectIdentifier: (channel: any Channel, since: NIODeadline, receiving: Bool)]>([:])

    /// Connections refused since the last log line that told of them.
    private let refusals = LogThrottle()

    /// Tells of a connection refused at a limit (`why`): at once, or, within 10 s of the
    /// last line, in one line when those 10 s end (on `loop`), with every one refused
    /// meanwhile: a flood of refused connections makes one line each 10 s, not one each,
    /// and the last of a burst are told too.
    func tellRefused(_ why: String, logger: Logger, on loop: any EventLoop) {
        if let count = refusals.count() {
            logger.warning("connections refused", metadata: ["count": "\(count)", "why": "\(why)"])
        } else if let delay = refusals.flushDelay() {
            loop.scheduleTask(in: .nanoseconds(delay.nanoseconds)) { [refusals] in
                guard let count = refusals.flush() else { return }
                logger.warning("connections refused", metadata: ["count": "\(count)", "why": "\(why)"])
            }
        }
    }

    /// Counts one more connection from `address`; whether it is within `cap`.
    func open(from address: String, cap: Int) -> Bool {
        byAddress.withLock { counts in
            let open = counts[address, default: 0] + 1
            counts[address] = open
            return open <= cap
        }
    }

    /// Counts one connection from `address` closed.
    func close(from address: String) {
        byAddress.withLock { counts in
            let open = (counts[address] ?? 1) - 1
            counts[address] = open > 0 ? open : nil
        }
    }

    /// Notes that the connection of `guardID` waits for a request from now on (it opened,
    /// or its last answer ended), or, `receiving`, for the rest of its request's body.
    func wait(_ guardID: ObjectIdentifier, _ channel: any Channel, receiving: Bool = false) {
        waiting.withLock { $0[guardID] = (channel, .now(), receiving) }
    }

    /// Notes that the connection of `guardID` has a request in flight, or closed.
    func stopWaiting(_ guardID: ObjectIdentifier) {
        _ = waiting.withLock { $0.removeValue(forKey: guardID) }
    }

    /// The connection that has waited longest for a request, but the one of `guardID`,
    /// taken off the waiting (its caller closes it); when none waits for one, the one that
    /// has waited longest for the rest of a body (slow bodies on every connection must not
    /// keep the others out either); nil when every other one has a request in flight.
    func waitingLongest(besides guardID: ObjectIdentifier) -> (any Channel)? {
        waiting.withLock { waiting in
            let others = waiting.filter { $0.key != guardID }
            let idle = others.filter { !$0.value.receiving }
            let candidates = idle.isEmpty ? others : idle
            guard let oldest = candidates.min(by: { $0.value.since < $1.value.since }) else { return nil }
            waiting.removeValue(forKey: oldest.key)
            return oldest.value.channel
        }
    }
}
