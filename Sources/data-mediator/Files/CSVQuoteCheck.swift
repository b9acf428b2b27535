import Foundation

/// Finds quoting that RFC 4180 does not allow in a CSV file, reading it in chunks (memory
/// stays flat). The CSV reader takes such text without a word: a quote never closed makes
/// the rest of the file one cell, and text after a closing quote (`"x"y`) is dropped while
/// the cell runs on into the next line, so a CSV file is checked whole before it is read.
///
/// A quote inside an unquoted cell (`5" screen`) is left to the reader, which keeps it as
/// text, as most CSV writers and readers do.
enum CSVQuoteCheck {
    /// What is wrong with a CSV file's quoting: the line (from 1) it shows on and what it is.
    struct Problem: Equatable {
        let line: Int
        let message: String
    }

    /// The first quoting problem of the file at `path`, nil when it has none (or cannot be
    /// read: the reader says so then).
    static func firstProblem(path: String) -> Problem? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        var scanner = Scanner()
        while let chunk = (try? handle.read(upToCount: 1 << 16)) ?? nil, !chunk.isEmpty {
            for byte in chunk {
                if let problem = scanner.take(byte) { return problem }
            }
        }
        return scanner.finish()
    }

    /// The quoting state of a CSV text read a byte at a time. The bytes that matter (quote,
    /// comma, CR, LF) are ASCII, which no UTF-8 sequence holds, so bytes serve for scalars.
    private struct Scanner {
        private enum State {
            /// At a cell's first byte.
            case cellStart
            /// In a cell that did not start with a quote.
            case unquoted
            /// In a quoted cell.
            case quoted
            /// Just after a quote inside a quoted cell: it closes the cell or, doubled,
            /// stands for one quote.
            case quoteInQuoted
        }

        private var state = State.cellStart
        private var line = 1
        /// The line the open quoted cell started on.
        private var quoteLine = 1

        mutating func take(_ byte: UInt8) -> Problem? {
            defer { if byte == UInt8(ascii: "\n") { line += 1 } }
            switch state {
            case .cellStart, .unquoted:
                if state == .cellStart, byte == UInt8(ascii: "\"") {
                    state = .quoted
                    quoteLine = line
                } else {
                    state = Self.isBoundary(byte) ? .cellStart : .unquoted
                }
            case .quoted:
                if byte == UInt8(ascii: "\"") { state = .quoteInQuoted }
            case .quoteInQuoted:
                if byte == UInt8(ascii: "\"") {
                    state = .quoted
                } else if Self.isBoundary(byte) {
                    state = .cellStart
                } else {
                    return Problem(
                        line: line,
                        message: "has text after a quoted cell's closing quote; "
                            + "a quote inside a quoted cell is written twice (\"\")"
                    )
                }
            }
            return nil
        }

        /// The problem the text's end shows: a quoted cell never closed.
        func finish() -> Problem? {
            guard state == .quoted else { return nil }
            return Problem(
                line: quoteLine,
                message: "opens a quoted cell that is never closed; "
                    + "close it with a quote, and write a quote inside it twice (\"\")"
            )
        }

        /// A comma, CR or LF: what ends a cell.
        private static func isBoundary(_ byte: UInt8) -> Bool {
            byte == UInt8(ascii: ",") || byte == UInt8(ascii: "\r") || byte == UInt8(ascii: "\n")
        }
    }
}
