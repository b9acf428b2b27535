/// RFC 8259's grammar, checked byte by byte over text that comes from outside (write
/// bodies, imported records, token claims) before it is decoded.
///
/// Written here because Foundation's `JSONDecoder`, the JSON parser the package keeps, also
/// takes text that is not JSON: a trailing comma (`{"a": 1,}`, `[1,]`), a leading zero
/// (`01`) and a number ending in its point (`1.`). A body it takes and a strict validator
/// in front of the service (or the client's own) refuses would be read differently on
/// either side; the contract says such a body is `400`. UTF-8 is checked elsewhere
/// (``JSONValue/holdsBadText(_:)``), as are duplicate names (``JSONValue/duplicateKey(in:)``)
/// and nesting (``JSONValue/maximumDepth``).
public enum JSONSyntax {
    /// Where `bytes` first leave RFC 8259's grammar and how (`"at byte 12: a comma before
    /// '}'"`), or nil for JSON text. Text that nests deeper than 512 levels is left to the
    /// parser's own limit.
    public static func problem(in bytes: [UInt8]) -> String? {
        var scanner = Scanner(bytes: bytes)
        do throws(Scanner.Failure) {
            scanner.skipSpace()
            try scanner.value(depth: 0)
            scanner.skipSpace()
            if scanner.index < bytes.count { throw Scanner.Failure("more after the JSON value") }
            return nil
        } catch {
            if error.tooDeep { return nil }
            return "at byte \(scanner.index): \(error.what)"
        }
    }

    private struct Scanner {
        struct Failure: Error {
            let what: String
            var tooDeep = false

            init(_ what: String, tooDeep: Bool = false) {
                self.what = what
                self.tooDeep = tooDeep
            }
        }

        let bytes: [UInt8]
        var index = 0

        var current: UInt8? { index < bytes.count ? bytes[index] : nil }

        mutating func skipSpace() {
            while let byte = current, byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D { index += 1 }
        }

        mutating func value(depth: Int) throws(Failure) {
            guard depth < 512 else { throw Failure("nested too deeply", tooDeep: true) }
            guard let byte = current else { throw Failure("the text ends where a value should be") }
            switch byte {
            case UInt8(ascii: "{"): try object(depth: depth)
            case UInt8(ascii: "["): try array(depth: depth)
            case UInt8(ascii: "\""): try string()
            case UInt8(ascii: "t"): try literal("true")
            case UInt8(ascii: "f"): try literal("false")
            case UInt8(ascii: "n"): try literal("null")
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): try number()
            default: throw Failure("'\(Character(Unicode.Scalar(byte)))' cannot start a value")
            }
        }

        private mutating func object(depth: Int) throws(Failure) {
            try members(closedBy: "}", what: "a member", depth: depth) { scanner throws(Failure) in
                guard scanner.current == UInt8(ascii: "\"") else {
                    throw Failure("a member's name (a string in double quotes) should come here")
                }
                try scanner.string()
                scanner.skipSpace()
                guard scanner.current == UInt8(ascii: ":") else {
                    throw Failure("a ':' should follow the member's name")
                }
                scanner.index += 1
                scanner.skipSpace()
            }
        }

        private mutating func array(depth: Int) throws(Failure) {
            try members(closedBy: "]", what: "an element", depth: depth) { _ throws(Failure) in }
        }

        /// The members of an object or the elements of an array, after its opening bracket:
        /// `lead` reads what comes before each value (a member's name and colon), then the
        /// value, then a comma (never right before `closing`) or `closing`.
        private mutating func members(
            closedBy closing: Unicode.Scalar,
            what: String,
            depth: Int,
            lead: (inout Scanner) throws(Failure) -> Void
        ) throws(Failure) {
            let close = UInt8(ascii: closing)
            index += 1
            skipSpace()
            if current == close {
                index += 1
                return
            }
            while true {
                try lead(&self)
                try value(depth: depth + 1)
                skipSpace()
                switch current {
                case UInt8(ascii: ","):
                    index += 1
                    skipSpace()
                    if current == close { throw Failure("a comma before '\(closing)' (JSON has no trailing commas)") }
                case close:
                    index += 1
                    return
                default: throw Failure("a ',' or '\(closing)' should follow \(what)")
                }
            }
        }

        private mutating func string() throws(Failure) {
            index += 1
            while let byte = current {
                switch byte {
                case UInt8(ascii: "\""):
                    index += 1
                    return
                case UInt8(ascii: "\\"):
                    index += 1
                    guard let escaped = current else { break }
                    if escaped == UInt8(ascii: "u") {
                        for _ in 0..<4 {
                            index += 1
                            guard let digit = current, digit.isHexDigit else {
                                throw Failure("\\u takes four hex digits")
                            }
                        }
                    } else if !Array(#""\/bfnrt"#.utf8).contains(escaped) {
                        throw Failure("'\\\(Character(Unicode.Scalar(escaped)))' is no escape")
                    }
                    index += 1
                case 0..<0x20: throw Failure("a control character in a string (escape it)")
                default: index += 1
                }
            }
            throw Failure("a string that is not closed")
        }

        private mutating func number() throws(Failure) {
            if current == UInt8(ascii: "-") { index += 1 }
            guard let first = current, first.isDigit else { throw Failure("a digit should follow '-'") }
            index += 1
            if first == UInt8(ascii: "0"), let next = current, next.isDigit {
                throw Failure("a number with a leading zero")
            }
            skipDigits()
            if current == UInt8(ascii: ".") {
                index += 1
                guard current?.isDigit == true else { throw Failure("a digit should follow the decimal point") }
                skipDigits()
            }
            if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
                index += 1
                if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { index += 1 }
                guard current?.isDigit == true else { throw Failure("a digit should follow the exponent's 'e'") }
                skipDigits()
            }
        }

        private mutating func skipDigits() {
            while current?.isDigit == true { index += 1 }
        }

        private mutating func literal(_ word: StaticString) throws(Failure) {
            let expected = UnsafeBufferPointer(start: word.utf8Start, count: word.utf8CodeUnitCount)
            guard bytes.count - index >= expected.count, bytes[index..<index + expected.count].elementsEqual(expected)
            else { throw Failure("not a value ('true', 'false' and 'null' are the words JSON has)") }
            index += expected.count
        }
    }
}

extension UInt8 {
    fileprivate var isDigit: Bool { self >= UInt8(ascii: "0") && self <= UInt8(ascii: "9") }
    fileprivate var isHexDigit: Bool {
        isDigit || (self >= UInt8(ascii: "a") && self <= UInt8(ascii: "f"))
            || (self >= UInt8(ascii: "A") && self <= UInt8(ascii: "F"))
    }
}
