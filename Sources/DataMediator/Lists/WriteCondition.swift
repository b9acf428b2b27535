import Crypto

/// What a write requires of the item as it stands when the write runs: HTTP's `If-Match`
/// and `If-None-Match` (RFC 9110 §13.1), by the item's entity tags. The store checks it in
/// the write's own transaction, so of two writes that expect the same state one passes.
public struct WriteCondition: Sendable, Hashable {
    /// `If-Match`: the item must exist with one of these tags (`*`: any); nil when not asked.
    public var ifMatch: Set<String>?
    /// `If-None-Match`: no item may exist (`*`), or none with one of these tags; nil when
    /// not asked.
    public var ifNoneMatch: Set<String>?

    /// A condition of the two headers' tags (quoted, as sent; weak ones already dropped from
    /// `ifMatch`, which compares strongly, and taken as strong in `ifNoneMatch`).
    public init(ifMatch: Set<String>?, ifNoneMatch: Set<String>?) {
        self.ifMatch = ifMatch
        self.ifNoneMatch = ifNoneMatch
    }

    /// Why an `If-Match` of weak tags alone fails (the tags dropped, ``ifMatch`` is empty):
    /// it never holds, whatever the item, so "changed since" would send a client to read
    /// again in vain.
    public static let weakOnly =
        "If-Match: a weak entity tag (W/\"…\") never matches If-Match, which compares strongly "
        + "(RFC 9110 13.1.1); send the ETag the service answered, without W/ (a cache between may have "
        + "weakened it, as varnish does for a client that takes no gzip: read with Accept-Encoding: gzip)."

    /// Checks the item as it stands (nil when there is none), `tag` giving an item's tag.
    ///
    /// - Throws: `preconditionFailed` when the condition does not hold.
    public func check(_ current: Item?, tag: (Item) -> String) throws(DataMediatorError) {
        if let ifMatch {
            guard let current else {
                throw DataMediatorError(.preconditionFailed, "If-Match: the item does not exist.")
            }
            guard ifMatch.contains("*") || ifMatch.contains(tag(current)) else {
                throw DataMediatorError(
                    .preconditionFailed,
                    ifMatch.isEmpty
                        ? Self.weakOnly
                        : "If-Match: the item changed since that ETag; read it again (its ETag is \(tag(current)))."
                )
            }
        }
        if let ifNoneMatch, let current {
            if ifNoneMatch.contains("*") {
                throw DataMediatorError(.preconditionFailed, "If-None-Match: *: the item exists.")
            }
            if ifNoneMatch.contains(tag(current)) {
                throw DataMediatorError(.preconditionFailed, "If-None-Match: the item still has that ETag.")
            }
        }
    }
}

/// Strong entity tags of JSON answers: one home for the tag a page, an item's place and a
/// written item are answered with, and that a write's condition compares.
public enum EntityTag {
    /// The first 16 bytes of the SHA-256 of `bytes`, in hex, quoted.
    public static func of(_ bytes: [UInt8]) -> String {
        SHA256.hash(data: bytes).withUnsafeBytes { digest in
            "\"" + Hex.string(UnsafeRawBufferPointer(rebasing: digest.prefix(16))) + "\""
        }
    }
}

extension Cell {
    /// The cell's JSON, as a write answers it.
    public func json() -> [UInt8] {
        var writer = JSONWriter(capacity: 256)
        write(to: &writer)
        return writer.bytes
    }

    /// The entity tag of ``json()``: a write's answer's `ETag`, which `If-Match` takes.
    public var entityTag: String { EntityTag.of(json()) }
}
