import NIOCore

/// How long a connection's request head and body may take.
extension ConnectionGuard {
    /// The request head's limit (`DATA_MEDIATOR_REQUEST_HEAD_TIMEOUT_SECONDS`).
    var headTimeout: TimeAmount {
        .seconds(limits.requestHeadTimeout.components.seconds)
    }

    /// The body's limit, within the idle limit too: the framework closes a connection whose
    /// body stops for that long without a word, so the `408` must come first.
    var bodyTimeout: TimeAmount {
        min(
            .seconds(limits.requestBodyTimeout.components.seconds),
            .seconds(limits.idleTimeout.components.seconds) - .milliseconds(250)
        )
    }
}
