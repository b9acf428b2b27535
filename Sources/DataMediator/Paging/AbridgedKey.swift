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

    /// The most UTF-8 bytes past ``maximumBytes`` that a token's keys carry together to
    /// tell its item's keys from those of the item beside it on its page
    /// (``abridge(_:beside:)``): small, so that a page's `Link` header, which holds two
    /// tokens, stays within the 4 KiB a proxy's header buffer may hold.
    static let distinguishingBytes = 512

    /// `cursor` with each text key but the last (the id) over ``maximumBytes`` cut to its
    /// first bytes (whole characters), its digest kept in ``Cursor/abridged``; the same
    /// cursor when none is that long.
    ///
    /// `neighbor` gives the position of the item beside the cursor's on the side its page
    /// has shown (the one before a `next`'s item, after a `prev`'s; asked only when a key is
    /// long): a key is then carried up to the first character where it differs from the
    /// neighbour's (whole when they are equal), within ``distinguishingBytes`` past
    /// ``maximumBytes`` for all keys together.
    /// When the cursor's item is gone, the page reads on from that bound
    /// (``widened(_:in:)``), and no item the page showed lies between the bound and the
    /// key: it shows none again. Cut at ``maximumBytes``, the items the page showed whose
    /// keys begin with the same bytes were shown again (probe 60).
    ///
    /// A composite's position is one JSON value that holds its child's position
    /// (``CompositeDataProvider``): a long key in there, at any depth, becomes a marker
    /// (``marker(of:)``) that the composite reads back through its child
    /// (``DataProvider/whole(_:backward:)``).
    static func abridge(_ cursor: Cursor, beside neighbor: () -> Position? = { nil }) -> Cursor {
        let values = cursor.position.values
        guard values.dropLast().contains(where: isLong) || values.contains(where: holdsLong) else { return cursor }
        var abridged = cursor.abridged
        var kept = values
        // A key tells the two items apart only while every key before it is the same.
        var beside = neighbor().flatMap { $0.values.count == values.count ? $0.values : nil }
        var budget = distinguishingBytes
        for index in values.indices {
            switch values[index] {
            case .string(let text) where index < values.count - 1 && text.utf8.count > maximumBytes:
                let cut = prefix(of: text, apartFrom: beside?[index], budget: &budget)
                if cut.utf8.count < text.utf8.count {
                    kept[index] = .string(cut)
                    abridged[index] = digest(of: text)
                }
            case .array(let nested): kept[index] = .array(marked(nested))
            default: break
            }
            if let other = beside?[index], JSONValue.compare(values[index], other) != 0 { beside = nil }
        }
        return cursor.with(position: Position(kept), abridged: abridged)
    }

    /// `text`'s first characters up to the first one where it differs from `other` (all of
    /// it when `other` begins with it), when that is within ``maximumBytes`` and `budget`
    /// bytes past it (taken from `budget`); else its first ``maximumBytes``.
    private static func prefix(of text: String, apartFrom other: JSONValue?, budget: inout Int) -> String {
        guard case .string(let theirs)? = other else { return prefix(of: text) }
        var needed = 0
        var mine = text.unicodeScalars.makeIterator()
        var their = theirs.unicodeScalars.makeIterator()
        while let scalar = mine.next() {
            needed += UTF8.width(scalar)
            if their.next() != scalar { break }
        }
        guard needed > maximumBytes, needed - maximumBytes <= budget else { return prefix(of: text) }
        budget -= needed - maximumBytes
        return prefix(of: text, bytes: needed)
    }

    /// `values` (a position held in a composite's) with each long text but the last (the
    /// id) replaced by its marker, at any depth.
    private static func marked(_ values: [JSONValue]) -> [JSONValue] {
        values.enumerated().map { index, value in
            switch value {
            case .string(let text) where index < values.count - 1 && text.utf8.count > maximumBytes:
                return marker(of: text)
            case .array(let nested): return .array(marked(nested))
            default: return value
            }
        }
    }

    /// A long key inside a JSON position: an object (no key is one) of its first bytes and
    /// its digest in hexadecimal.
    static func marker(of text: String) -> JSONValue {
        .object(["abridged": .string(prefix(of: text)), "digest": .string(Hex.string(digest(of: text)))])
    }

    /// `values`, a position from inside a composite's, as its first bytes and the digests
    /// of the keys its markers stand for (``Cursor/abridged``'s form); nil when it holds
    /// no marker at its top level.
    static func unmarked(_ values: [JSONValue]) -> (position: Position, abridged: [Int: [UInt8]])? {
        var abridged: [Int: [UInt8]] = [:]
        var plain = values
        for (index, value) in values.enumerated() {
            guard case .object(let members) = value, case .string(let prefix)? = members["abridged"],
                case .string(let hex)? = members["digest"], let digest = Hex.bytes(hex)
            else { continue }
            plain[index] = .string(prefix)
            abridged[index] = digest
        }
        return abridged.isEmpty ? nil : (Position(plain), abridged)
    }

    /// Whether `value` holds a long text inside an array (a composite's position), or a
    /// marker of one.
    static func holdsLong(_ value: JSONValue) -> Bool {
        switch value {
        case .array(let nested): return nested.dropLast().contains(where: isLong) || nested.contains(where: holdsLong)
        case .object(let members): return members["abridged"] != nil
        default: return false
        }
    }

    /// Whether `cursor`'s keys are those of `position`, the place of its item now: each
    /// abridged one begins with the bytes carried and has their digest, the others equal.
    static func matches(_ cursor: Cursor, _ position: Position) -> Bool {
        let carried = cursor.position.values
        let again = abridge(cursor.with(position: position, abridged: [:])).position.values
        guard again.count == carried.count else { return false }
        for index in carried.indices {
            guard let digest = cursor.abridged[index] else {
                // A key carried whole (a long one too, where it had to be to tell the items
                // apart) as it is; a composite's position as the token holds it, marked.
                var now = position.values[index]
                if case .array = carried[index] { now = again[index] }
                if JSONValue.compare(now, carried[index]) != 0 { return false }
                continue
            }
            guard case .string(let bytes) = carried[index], case .string(let text) = position.values[index],
                text.utf8.count > bytes.utf8.count, text.utf8.starts(with: bytes.utf8),
                Self.digest(of: text) == digest
            else { return false }
        }
        return true
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

    /// The longest run of `text`'s first characters (Unicode scalars) within `bytes`.
    static func prefix(of text: String, bytes limit: Int = maximumBytes) -> String {
        var bytes = 0
        var scalars = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            bytes += UTF8.width(scalar)
            if bytes > limit { break }
            scalars.append(scalar)
        }
        return String(scalars)
    }

    /// The first ``digestBytes`` of the SHA-256 of `text`'s UTF-8.
    static func digest(of text: String) -> [UInt8] {
        Array(SHA256.hash(data: Array(text.utf8)).prefix(digestBytes))
    }
}
