import DataMediator

/// The entity tag of `GET /lists/{list}/items/{id}`: the item's own tag (its cell's, as a
/// write answers it) and the digest of the whole answer, `"<item>.<answer>"`.
///
/// The answer names the item's place and the store's version, which any write moves, so
/// its tag must change with them for a `304` to be right; a write's `If-Match` naming it
/// holds while the item itself is as that answer showed it (``itemTag(in:)``), wherever
/// other writes, of this list or another, moved its place or the version meanwhile.
enum LookupTag {
    /// The tag of `location`'s answer, whose bytes are `body`.
    static func of(_ location: ItemLocation, body: [UInt8]) -> String {
        String(location.item.entityTag.dropLast()) + "." + EntityTag.of(body).dropFirst()
    }

    /// The item's own tag a lookup tag begins with (quoted), nil for any other tag.
    static func itemTag(in tag: String) -> String? {
        guard tag.count == 67, tag.hasPrefix("\""), tag.hasSuffix("\"") else { return nil }
        let inner = tag.dropFirst().dropLast()
        guard let dot = inner.firstIndex(of: "."), inner.distance(from: inner.startIndex, to: dot) == 32 else {
            return nil
        }
        return "\"" + inner[..<dot] + "\""
    }
}
