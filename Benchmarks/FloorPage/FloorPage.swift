import NIOCore

/// The body of a floor's page, written by hand (no Codable), the same for every floor
/// (SQLite's and PostgreSQL's): `{"items":[...],"next":"CREATED_AT,ID"}`. Not part of the
/// product: the floors measure what a framework and a database alone allow a page to cost.
public struct FloorPage {
    private var buffer = ByteBuffer()
    private var next = ""
    private var first = true

    /// An empty page.
    public init() {
        buffer.reserveCapacity(4096)
        buffer.writeString(#"{"items":["#)
    }

    /// Appends one transaction of the demo's table.
    public mutating func append(id: Int64, player: String, points: Int64, reason: String, createdAt: String, rev: Int64)
    {
        buffer.writeString(first ? #"{"id":"# : #",{"id":"#)
        first = false
        buffer.writeString(String(id))
        buffer.writeString(#","player":"#)
        writeString(player)
        buffer.writeString(#","points":"#)
        buffer.writeString(String(points))
        buffer.writeString(#","reason":"#)
        writeString(reason)
        buffer.writeString(#","created_at":"#)
        writeString(createdAt)
        buffer.writeString(#","rev":"#)
        buffer.writeString(String(rev))
        buffer.writeString("}")
        next = "\(createdAt),\(id)"
    }

    /// The page's body, with the cursor of the last transaction appended.
    public mutating func finish() -> ByteBuffer {
        buffer.writeString(#"],"next":"#)
        writeString(next)
        buffer.writeString("}")
        return buffer
    }

    /// `text` as a JSON string; escapes quotes and backslashes (the demo's text has no
    /// control characters).
    private mutating func writeString(_ text: String) {
        buffer.writeInteger(UInt8(ascii: "\""))
        if text.utf8.contains(where: { $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) {
            for byte in text.utf8 {
                if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") { buffer.writeInteger(UInt8(ascii: "\\")) }
                buffer.writeInteger(byte)
            }
        } else {
            buffer.writeString(text)
        }
        buffer.writeInteger(UInt8(ascii: "\""))
    }
}

/// A floor's cursor, `CREATED_AT,ID`: the transaction a page starts after.
public struct FloorCursor: Sendable {
    /// The transaction's `created_at`.
    public let createdAt: String
    /// The transaction's id.
    public let id: Int64

    /// The cursor `text` spells; nil when it is not `CREATED_AT,ID`.
    public init?(_ text: String) {
        let parts = text.split(separator: ",")
        guard parts.count == 2, let id = Int64(parts[1]) else { return nil }
        self.createdAt = String(parts[0])
        self.id = id
    }
}
