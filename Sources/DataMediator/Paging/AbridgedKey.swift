import Crypto

/// A cursor's long sort keys, carried in part: a text key longer than ``maximumBytes``
/// goes into a token as its first bytes and a digest of the whole, and the cursor's item
/// (its id, the position's last value, is carried whole) gives the whole key back when a
/// page is read from it (``ListAdapter``).
///
/// A token carries its position's sort keys; a row another program wrote may hold keys of
/// any length, and a token made of them whole was longer than the server takes back (the
/// walk stopped at that row) and made a `Link` header too long for proxies. Abridged, a
/// token stays short whatever the keys hold. When the item is gone, or its keys changed,
/// the position is widened to the side its page reads from (``widened(_:in:)``): the page
/// may show again items it showed, never skip one.
public enum AbridgedKey {
    /// The most UTF-8 bytes of a text sort key that a token carries whole.
    public static let maximumBytes = 256

    /// The bytes of a key's digest a token carries.
    static let digestBytes = 8

    /// `cursor` with each text key but the last (the id) over ``maximumBytes`` cut to its
    /// first bytes (whole characters), its digest kept in ``Cursor/abridged``; the same
    /// cursor when none is that long.
    static func abridge(_ cursor: Cursor) -> Cursor {
        let values = cursor.position.values
        guard values.dropLast().contains(where: isLong) else { return cursor }
        var abridged = cursor.abridged
        var kept = values
        for index in values.indices.dropLast() {
            guard case .string(let text) = values[index], text.utf8.count > maximumBytes else { continue }
            kept[index] = .string(prefix(of: text))
            abridged[index] = digest(of: text)
        }
        return cursor.with(position: Position(kept), abridged: abridged)
    }

    /// Whether `cursor`'s abridged keys are those of `position`, the place of its item now.
    static func matches(_ cursor: Cursor, _ position: Position) -> Bool {
        let again = abridge(cursor.with(position: position, abridged: [:]))
        guard again.abridged == cursor.abridged, again.position.values.count == cursor.position.values.count
        else { return false }
        return zip(again.position.values, cursor.position.values).allSatisfy { JSONValue.compare($0, $1) == 0 }
    }

    /// `cursor`'s position with each abridged key replaced by a bound on the side its page
    /// reads from: the key's first bytes, which order at or before the whole key, where the
    /// page reads toward larger keys (forward in ascending order, backward in descending);
    /// those bytes followed by the largest character, at or after it, where it reads toward
    /// smaller ones. The page may show again the items between the bound and the key.
    static func widened(_ cursor: Cursor, in view: View) -> Cursor {
        var values = cursor.position.values
        for index in cursor.abridged.keys where index < values.count && index < view.sort.count {
            guard case .string(let prefix) = values[index] else { continue }
            let towardLarger = (view.sort[index].order == .ascending) != cursor.backward
            values[index] = .string(towardLarger ? prefix : prefix + "\u{10FFFF}")
        }
        return cursor.with(position: Position(values), abridged: [:])
    }

    private static func isLong(_ value: JSONValue) -> Bool {
        if case .string(let text) = value { return text.utf8.count > maximumBytes }
        return false
    }

    /// The longest run of `text`'s first characters (Unicode scalars) within ``maximumBytes``.
    static func prefix(of text: String) -> String {
        var bytes = 0
        var scalars = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            bytes += UTF8.width(scalar)
            if bytes > maximumBytes { break }
            scalars.append(scalar)
        }
        return String(scalars)
    }

    /// The first ``digestBytes`` of the SHA-256 of `text`'s UTF-8.
    static func digest(of text: String) -> [UInt8] {
        Array(SHA256.hash(data: Array(text.utf8)).prefix(digestBytes))
    }
}
