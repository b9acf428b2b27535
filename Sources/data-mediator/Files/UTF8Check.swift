import Foundation

/// Finds text that is not UTF-8 in a file, reading it in chunks (memory stays flat): the
/// CSV reader cuts a cell at such bytes and reads the rest as a row of its own, so a CSV
/// file is checked whole before it is read.
enum UTF8Check {
    /// The line (from 1) of the first bytes of the file at `path` that are not UTF-8, nil
    /// when it is all UTF-8 (or cannot be read: the reader says so then).
    static func firstBadLine(path: String) -> Int? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        var line = 1
        var carried: [UInt8] = []
        while true {
            let chunk = ((try? handle.read(upToCount: 1 << 16)) ?? nil).map { Array($0) } ?? []
            var bytes = carried + chunk
            carried = []
            if !chunk.isEmpty, let start = unfinishedSequence(in: bytes) {
                // A sequence the next chunk may finish waits for it.
                carried = Array(bytes[start...])
                bytes.removeSubrange(start...)
            }
            if String(validating: bytes, as: UTF8.self) == nil {
                var lineStart = 0
                for (index, byte) in bytes.enumerated() where byte == UInt8(ascii: "\n") || index == bytes.count - 1 {
                    if String(validating: bytes[lineStart...index], as: UTF8.self) == nil { return line }
                    line += 1
                    lineStart = index + 1
                }
                return line
            }
            line += bytes.count { $0 == UInt8(ascii: "\n") }
            if chunk.isEmpty { return nil }
        }
    }

    /// The line (from 1) of the first bytes of `bytes` that are not UTF-8, nil when they are
    /// all UTF-8.
    static func firstBadLine(in bytes: some Collection<UInt8>) -> Int? {
        let lines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        return lines.firstIndex { String(validating: $0, as: UTF8.self) == nil }.map { $0 + 1 }
    }

    /// Where a multi-byte sequence begins among the last four bytes, if one does (its end
    /// may lie in the next chunk); nil when the bytes end between sequences.
    private static func unfinishedSequence(in bytes: [UInt8]) -> Int? {
        var index = bytes.count - 1
        while index >= 0, bytes.count - index <= 4 {
            let byte = bytes[index]
            if byte & 0xC0 != 0x80 { return byte >= 0xC0 ? index : nil }
            index -= 1
        }
        return nil
    }
}
