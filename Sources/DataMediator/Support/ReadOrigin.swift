/// The client a read is made for, as an opaque tag: the edge sets it around each read of a
/// list, and what a store keeps for its readers (the results it keeps per view and slice)
/// counts each client's share by it, so that one client asking for many new slices drops
/// its own kept results, not the ones other clients come back to.
///
/// The tag stays in the process (it is never logged, stored or sent): any text that tells
/// clients apart will do.
public enum ReadOrigin {
    /// The tag of the client the running read is made for; nil when no one asked (reads
    /// made by the service itself, such as an event stream's or a background refresh).
    @TaskLocal public static var client: String?
}
