import CSV
import DataMediator
import DataMediatorSQL
import DataMediatorSQLite
import Foundation

/// The records of a JSON array, NDJSON or CSV file, read as they are needed: memory stays
/// flat however large the file. A record that cannot be read comes with its `problem`.
final class RecordStream: Sequence, IteratorProtocol {
    /// How much of the file has been read, for progress.
    private(set) var bytesRead = 0
    /// The file's size.
    let size: Int

    private let handle: FileHandle
    private let format: ItemFile.Format
    private let types: [String: FieldType]
    private var buffer: [UInt8] = []
    private var offset = 0
    private var atEnd = false
    private var line = 1
    private var csv: CSVReader?
    private var header: [String] = []
    private var arrayState = ArrayState.beforeArray
    /// Whether the array's last token was an element (a comma or `]` comes next), and
    /// whether it was a comma (an element comes next): `[a b]`, `[,a]` and `[a,]` are not
    /// JSON.
    private var afterElement = false
    private var afterComma = false

    private enum ArrayState {
        case beforeArray
        case inArray
        case finished
    }

    /// Opens `path`.
    ///
    /// - Throws: ``ItemFileError`` for an unknown format, a missing or unreadable file, a
    ///   folder, or a CSV file without a header row.
    init(path: String, types: [String: FieldType]) throws {
        guard let format = ItemFile.Format(path: path) else {
            throw ItemFileError(path: path, line: nil, "is not a .json, .ndjson, .jsonl or .csv file")
        }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw ItemFileError(path: path, line: nil, "does not exist; check the path")
        }
        guard !isDirectory.boolValue else {
            throw ItemFileError(path: path, line: nil, "is a folder, not a file of records")
        }
        // A device, a pipe or a socket (`/dev/zero` behind a link, a FIFO) never ends, or
        // blocks the open itself: only a regular file is read (its link followed).
        let target = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
        let attributes = try? FileManager.default.attributesOfItem(atPath: target)
        guard attributes?[.type] as? FileAttributeType == .typeRegular else {
            throw ItemFileError(
                path: path,
                line: nil,
                "is not a regular file (a device, a pipe or a socket); save the records to a file"
            )
        }
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw ItemFileError(path: path, line: nil, "cannot be read; check its permissions")
        }
        self.handle = handle
        self.format = format
        self.types = types
        self.size = (attributes?[.size] as? Int) ?? 0
        if format == .csv {
            if let line = UTF8Check.firstBadLine(path: path) {
                throw ItemFileError(path: path, line: line, "is not UTF-8 text; save the CSV file as UTF-8")
            }
            if let problem = CSVQuoteCheck.firstProblem(path: path) {
                throw ItemFileError(path: path, line: problem.line, problem.message)
            }
            guard let stream = InputStream(fileAtPath: path),
                let reader = try? CSVReader(stream: stream, hasHeaderRow: true),
                let header = reader.headerRow
            else { throw ItemFileError(path: path, line: 1, "has no header row") }
            // Two columns of one name: one of them would be dropped unseen.
            var seen = Set<String>()
            if let twice = header.first(where: { !seen.insert($0).inserted }) {
                throw ItemFileError(path: path, line: 1, "names the column '\(twice)' twice; keep one")
            }
            self.csv = reader
            self.header = header
        }
    }

    func next() -> ImportRecord? {
        switch format {
        case .ndjson: return nextLine()
        case .csv: return nextRow()
        case .json: return nextElement()
        }
    }

    // MARK: - Bytes

    /// The next byte, reading a chunk when the buffer is used up; nil at the end.
    private func byte() -> UInt8? {
        guard let next = peek() else { return nil }
        offset += 1
        bytesRead += 1
        return next
    }

    /// The next byte without taking it; nil at the end. A UTF-8 byte order mark at the
    /// file's start is passed over: RFC 8259 8.1 lets a reader ignore one, and editors on
    /// some systems write it (the CSV reader takes one too).
    private func peek() -> UInt8? {
        if offset == buffer.count {
            guard !atEnd else { return nil }
            let chunk = (try? handle.read(upToCount: 1 << 16)) ?? nil
            guard let chunk, !chunk.isEmpty else {
                atEnd = true
                return nil
            }
            let first = bytesRead == 0 && buffer.isEmpty
            buffer = Array(chunk)
            offset = 0
            if first, buffer.starts(with: [0xEF, 0xBB, 0xBF]) {
                offset = 3
                bytesRead = 3
                return peek()
            }
        }
        return buffer[offset]
    }

    // MARK: - NDJSON

    private func nextLine() -> ImportRecord? {
        while true {
            var bytes: [UInt8] = []
            var sawByte = false
            while let byte = byte() {
                sawByte = true
                if byte == UInt8(ascii: "\n") { break }
                bytes.append(byte)
            }
            guard sawByte else { return nil }
            let number = line
            line += 1
            if bytes.last == UInt8(ascii: "\r") { bytes.removeLast() }
            if bytes.allSatisfy({ $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }) { continue }
            return Self.record(bytes, line: number)
        }
    }

    // MARK: - CSV

    /// The line the next CSV row starts on: a quoted cell may hold line breaks.
    private var rowLine = 2

    private func nextRow() -> ImportRecord? {
        guard let csv else { return nil }
        while let row = csv.next() {
            let record = rowLine
            rowLine +=
                1 + row.reduce(0) { lines, cell in lines + cell.utf8.lazy.filter { $0 == UInt8(ascii: "\n") }.count }
            bytesRead = Swift.min(size, bytesRead + row.reduce(row.count) { $0 + $1.utf8.count })
            if row.count == 1, row[0].isEmpty { continue }
            guard row.count == header.count else {
                return ImportRecord(
                    line: record,
                    fields: [:],
                    problem: "has \(row.count) cells, the header \(header.count)"
                )
            }
            var fields: [String: JSONValue] = [:]
            for (name, text) in zip(header, row) {
                guard let value = ItemFile.cell(text, as: types[name]) else {
                    var why: String?
                    if types[name] == .json,
                        case .failure(let problem) = ItemFile.readJSON(Array(text.utf8), depth: ItemFile.cellDepth)
                    {
                        why = "; it " + problem.reason
                    }
                    return ImportRecord(
                        line: record,
                        fields: [:],
                        problem: "'\(name)' must be \(types[name]?.description ?? "a value"); got \(Self.quoted(text))"
                            + (why ?? "")
                    )
                }
                fields[name] = value
            }
            return ImportRecord(line: record, fields: fields)
        }
        return nil
    }

    // MARK: - JSON array

    /// The next element of the top-level array, found by tracking nesting and strings.
    private func nextElement() -> ImportRecord? {
        while true {
            switch arrayState {
            case .finished:
                return nil
            case .beforeArray:
                guard let byte = skipSpace() else { return nil }
                guard byte == UInt8(ascii: "[") else {
                    arrayState = .finished
                    return ImportRecord(line: line, fields: [:], problem: "must hold a JSON array of objects")
                }
                arrayState = .inArray
            case .inArray:
                guard let byte = skipSpace() else {
                    arrayState = .finished
                    return ImportRecord(
                        line: line,
                        fields: [:],
                        problem: "must hold a JSON array of objects; the array is not closed"
                    )
                }
                var separator: String?
                if byte == UInt8(ascii: ",") {
                    guard afterElement else {
                        afterComma = true
                        return ImportRecord(line: line, fields: [:], problem: "has a comma with no element before it")
                    }
                    afterElement = false
                    afterComma = true
                    continue
                }
                if byte == UInt8(ascii: "]") {
                    if afterComma {
                        afterComma = false
                        return ImportRecord(line: line, fields: [:], problem: "has a comma before the array's ']'")
                    }
                    arrayState = .finished
                    // A second array or anything else after it would be dropped unseen.
                    guard skipSpace() == nil else {
                        return ImportRecord(
                            line: line,
                            fields: [:],
                            problem: "has more after its array's closing ']'; a .json file holds one array of objects"
                        )
                    }
                    return nil
                }
                if afterElement { separator = "follows the element before it with no comma between them" }
                afterElement = true
                afterComma = false
                let start = line
                var bytes: [UInt8] = [byte]
                var depth = (byte == UInt8(ascii: "{") || byte == UInt8(ascii: "[")) ? 1 : 0
                var inString = byte == UInt8(ascii: "\"")
                var escaped = false
                // A number, `true`, `null` or a stray word is one element up to the next
                // separator, not one element a byte.
                if depth == 0 && !inString {
                    while let next = peek(), !Self.endsScalar(next) {
                        bytes.append(next)
                        _ = self.byte()
                    }
                }
                while depth > 0 || inString {
                    guard let next = self.byte() else { break }
                    if next == UInt8(ascii: "\n") { line += 1 }
                    bytes.append(next)
                    if inString {
                        if escaped {
                            escaped = false
                        } else if next == UInt8(ascii: "\\") {
                            escaped = true
                        } else if next == UInt8(ascii: "\"") {
                            inString = false
                        }
                    } else if next == UInt8(ascii: "\"") {
                        inString = true
                    } else if next == UInt8(ascii: "{") || next == UInt8(ascii: "[") {
                        depth += 1
                    } else if next == UInt8(ascii: "}") || next == UInt8(ascii: "]") {
                        depth -= 1
                    }
                }
                if let separator { return ImportRecord(line: start, fields: [:], problem: separator) }
                return Self.record(bytes, line: start)
            }
        }
    }

    /// The record of one JSON object's text, read as a write body is: a member named
    /// twice, text that is not RFC 8259 JSON (a trailing comma, a leading zero), nesting
    /// deeper than a body would, or a number out of a 64-bit float's range is a bad record that
    /// says so, not read as the lenient decoder would.
    private static func record(_ bytes: [UInt8], line: Int) -> ImportRecord {
        // A record is an item's data and its id: written back, its fields nest one level
        // deeper, in a body's `data`.
        switch ItemFile.readJSON(bytes, depth: JSONValue.maximumDepth - 1) {
        case .success(.object(let fields)): return ImportRecord(line: line, fields: fields)
        case .success: return ImportRecord(line: line, fields: [:], problem: "is not a JSON object")
        case .failure(let problem): return ImportRecord(line: line, fields: [:], problem: problem.reason)
        }
    }

    /// A cell's text as a report quotes it (``ImportRejection/shown(_:between:)``).
    static func quoted(_ text: String) -> String {
        ImportRejection.shown(text, between: "'")
    }

    /// Whether `byte` ends a scalar element of the array: a separator, white space or
    /// the start of another element.
    private static func endsScalar(_ byte: UInt8) -> Bool {
        Array(",]}[{\" \t\r\n".utf8).contains(byte)
    }

    /// The next byte that is not white space, counting lines.
    private func skipSpace() -> UInt8? {
        while let byte = byte() {
            if byte == UInt8(ascii: "\n") { line += 1 }
            if byte != UInt8(ascii: " ") && byte != UInt8(ascii: "\n") && byte != UInt8(ascii: "\r")
                && byte != UInt8(ascii: "\t")
            {
                return byte
            }
        }
        return nil
    }
}
