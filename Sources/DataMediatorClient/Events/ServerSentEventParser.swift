/// Turns the bytes of a `text/event-stream` into events, by the WHATWG HTML standard's
/// "Parsing an event stream" and "Interpreting an event stream" rules: lines end with
/// CRLF, LF or CR (also when a chunk ends between CR and LF); `:` starts a comment;
/// `event`, `data` (multi-line), `id` (ignored when it holds NUL) and `retry` (digits only)
/// fields; one space after the colon dropped; a blank line dispatches; an event with no
/// data is not dispatched; a leading byte order mark is skipped.
///
/// Written here because no kept library parses Server-Sent Events: the package may only
/// depend on the packages already in the project, and none of them runs on Linux without
/// NIO or Hummingbird, which the client kit must not use.
public struct ServerSentEventParser: Sendable {
    /// The last event id seen (`id:`), sent as `Last-Event-ID` when reconnecting.
    public private(set) var lastEventID = ""
    /// The reconnection time in milliseconds, when the stream set one (`retry:`).
    public private(set) var retry: Int?
    /// How many comment lines were read (heartbeats are comments).
    public private(set) var comments = 0
    /// The most bytes one line, or one event's data, may hold: a stream that sends more
    /// (a broken server or proxy sending one endless line) is not read on.
    public let maximumEventBytes: Int
    /// Whether the stream passed ``maximumEventBytes``: nothing more is read from it.
    public private(set) var overflowed = false

    private var line: [UInt8] = []
    private var afterCR = false
    private var atStart = true
    private var type = ""
    private var data = ""
    private var hasData = false
    /// The bytes of ``data``.
    private var dataBytes = 0

    /// Creates a parser at the start of a stream that holds at most `maximumEventBytes` in
    /// one line or one event's data.
    public init(maximumEventBytes: Int = 8 << 20) {
        self.maximumEventBytes = max(1, maximumEventBytes)
    }

    /// Reads more bytes of the stream; returns the events they complete, in order.
    public mutating func feed(_ bytes: some Sequence<UInt8>) -> [ServerSentEvent] {
        var events: [ServerSentEvent] = []
        for byte in bytes where !overflowed {
            if afterCR {
                afterCR = false
                if byte == 0x0A { continue }
            }
            switch byte {
            case 0x0D:
                afterCR = true
                if let event = endLine() { events.append(event) }
            case 0x0A:
                if let event = endLine() { events.append(event) }
            default:
                // Checked before the byte is kept, so the line's buffer never grows past the
                // bound (an append past it would double the buffer first).
                guard line.count + dataBytes < maximumEventBytes else {
                    overflowed = true
                    line = []
                    data = ""
                    continue
                }
                line.append(byte)
            }
        }
        return events
    }

    /// Ends a line: splits it at its first colon by bytes, not characters (WHATWG splits
    /// code points: a combining mark after the colon or the space must not join them).
    private mutating func endLine() -> ServerSentEvent? {
        var bytes = line[...]
        defer { line.removeAll(keepingCapacity: true) }
        if atStart {
            atStart = false
            if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
        }
        if bytes.isEmpty { return dispatch() }
        if bytes.first == 0x3A {
            comments += 1
            return nil
        }
        let field: String
        var valueBytes: ArraySlice<UInt8> = []
        if let colon = bytes.firstIndex(of: 0x3A) {
            field = String(decoding: bytes[..<colon], as: UTF8.self)
            valueBytes = bytes[(colon + 1)...]
            if valueBytes.first == 0x20 { valueBytes = valueBytes.dropFirst() }
        } else {
            field = String(decoding: bytes, as: UTF8.self)
        }
        let value = String(decoding: valueBytes, as: UTF8.self)
        switch field {
        case "event":
            type = value
        case "data":
            data += value
            data += "\n"
            dataBytes += valueBytes.count + 1
            hasData = true
        case "id":
            if !value.unicodeScalars.contains("\u{0}") { lastEventID = value }
        case "retry":
            if !valueBytes.isEmpty, valueBytes.allSatisfy({ (0x30...0x39).contains($0) }) { retry = Int(value) }
        default:
            break
        }
        return nil
    }

    private mutating func dispatch() -> ServerSentEvent? {
        defer {
            type = ""
            data = ""
            dataBytes = 0
            hasData = false
        }
        guard hasData else { return nil }
        if data.hasSuffix("\n") { data.removeLast() }
        return ServerSentEvent(type: type.isEmpty ? "message" : type, data: data, id: lastEventID, retry: retry)
    }
}
