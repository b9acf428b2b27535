/// One event of a `text/event-stream`, as the WHATWG HTML standard's parsing rules
/// dispatch it.
public struct ServerSentEvent: Sendable, Hashable {
    /// The event type (`event:`); `message` when the event named none. Empty only for a
    /// notice a transport gives between events: the stream set its reconnection time
    /// (`retry:`, in ``retry``), which holds from then on, before any event carries it.
    public var type: String
    /// The data (`data:` lines joined with line feeds).
    public var data: String
    /// The last event id at dispatch (`id:`, kept across events until a new one); empty
    /// when none was sent yet. Reconnecting sends it as `Last-Event-ID`.
    public var id: String
    /// The stream's reconnection time in milliseconds at dispatch (the last `retry:` it
    /// sent, kept across events); nil when it sent none. A client waits this long before
    /// opening a dropped stream again.
    public var retry: Int?

    /// Creates an event.
    public init(type: String, data: String, id: String, retry: Int? = nil) {
        self.type = type
        self.data = data
        self.id = id
        self.retry = retry
    }
}
