/// The client a write is made for, as an opaque tag: the edge sets it around a write, and
/// a store whose writes other replicas of the service hear of (PostgreSQL's notification
/// on commit) sends it with the write's version, so each replica can hold that client's
/// next reads until its read replica holds the write (``ChangeNotifier/observeWriters(_:)``).
///
/// A tag is a digest of the client, never a credential: it travels through the database.
public enum WriteOrigin {
    /// The tag of the client the running write is made for; nil when no one asked (writes
    /// made by the service itself, or a store whose reads never lag).
    @TaskLocal public static var client: String?

    /// What a replica of the service publishes as the writer of the primary's version
    /// when it begins to listen for notifications (at start, and after a lost connection):
    /// the writes up to it may be any client's, unheard, so every client's reads wait for
    /// its read replica to hold it. No notification can carry it (it is no tag).
    public static let everyone = "*"

    /// The longest tag carried.
    public static let maximumLength = 64

    /// Whether `tag` may travel with a write: 1 to ``maximumLength`` lowercase hex digits
    /// (a notification carrying anything else names no client).
    public static func isTag(_ tag: Substring) -> Bool {
        (1...maximumLength).contains(tag.utf8.count)
            && tag.utf8.allSatisfy {
                (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0)
                    || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0)
            }
    }
}
