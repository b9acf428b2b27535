/// Quoting and placeholders of SQL text; identifiers come from the config, never from requests.
public enum SQL {
    /// `name` as a quoted identifier.
    public static func quote(_ name: String) -> String {
        enclosed(name, in: "\"")
    }

    /// `text` as a string literal, for the few statements that take no placeholders (a
    /// trigger's body, its arguments).
    public static func literal(_ text: String) -> String {
        enclosed(text, in: "'")
    }

    /// `text` between two `mark`s, each `mark` in it doubled (SQL's one escape in both).
    private static func enclosed(_ text: String, in mark: Character) -> String {
        var enclosed = String(mark)
        for character in text {
            enclosed.append(character)
            if character == mark { enclosed.append(character) }
        }
        enclosed.append(mark)
        return enclosed
    }

    /// `sql` with each `?` outside quotes and comments replaced by `$1`, `$2`, ... in order
    /// (PostgreSQL's placeholders), starting after `offset`.
    public static func numbered(_ sql: String, offset: Int = 0) -> String {
        // Byte by byte: the marks are ASCII, which UTF-8 never uses inside another
        // character, and a page's statement is numbered on every page.
        var result: [UInt8] = []
        result.reserveCapacity(sql.utf8.count + 16)
        var number = offset
        forEachByte(of: sql) { byte, isPlaceholder in
            if isPlaceholder {
                number += 1
                result.append(UInt8(ascii: "$"))
                result.append(contentsOf: String(number).utf8)
            } else {
                result.append(byte)
            }
        }
        return String(decoding: result, as: UTF8.self)
    }

    /// Whether `sql` holds a `?` outside quotes and comments: a placeholder in both stores
    /// (PostgreSQL's once ``numbered(_:offset:)`` made it one).
    public static func hasPlaceholder(_ sql: String) -> Bool {
        var found = false
        forEachByte(of: sql) { _, isPlaceholder in found = found || isPlaceholder }
        return found
    }

    /// Calls `body` with each byte of `sql` and whether it is a `?` outside quoted text
    /// (`'...'`, `"..."`) and comments (`-- ...` to the line's end, `/* ... */`).
    private static func forEachByte(of sql: String, _ body: (UInt8, Bool) -> Void) {
        enum Place {
            case code
            case quoted(UInt8)
            case lineComment
            case blockComment
        }
        var place = Place.code
        var previous: UInt8 = 0
        for byte in sql.utf8 {
            var isPlaceholder = false
            // The byte a comment's mark ends on starts no other mark with the next one.
            var marked = false
            switch place {
            case .code:
                if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                    place = .quoted(byte)
                } else if byte == UInt8(ascii: "-"), previous == UInt8(ascii: "-") {
                    (place, marked) = (.lineComment, true)
                } else if byte == UInt8(ascii: "*"), previous == UInt8(ascii: "/") {
                    (place, marked) = (.blockComment, true)
                } else {
                    isPlaceholder = byte == UInt8(ascii: "?")
                }
            case .quoted(let mark):
                if byte == mark { place = .code }
            case .lineComment:
                if byte == UInt8(ascii: "\n") { place = .code }
            case .blockComment:
                if byte == UInt8(ascii: "/"), previous == UInt8(ascii: "*") { (place, marked) = (.code, true) }
            }
            body(byte, isPlaceholder)
            previous = marked ? 0 : byte
        }
    }

    /// The placeholder of a value written into `column`: `?`, or `CAST(? AS type)` for a
    /// column that `casts` names (PostgreSQL's `json` and `jsonb`, which take the JSON text
    /// a json field is written as only through a cast); a cast that holds a `?` is the
    /// whole term (a PostgreSQL array built from a JSON array), `?` its one placeholder.
    public static func placeholder(of column: String, casts: [String: String]) -> String {
        guard let type = casts[column] else { return "?" }
        return type.contains("?") ? type : "CAST(? AS \(type))"
    }

    /// A column as a select list reads it: `forms`' SQL for its text under the column's own
    /// name when `forms` names it (``KeysetSQL/textForms``), the quoted column otherwise.
    public static func selected(_ column: String, forms: [String: String]) -> String {
        guard let form = forms[column] else { return quote(column) }
        return "\(form) AS \(quote(column))"
    }

    /// The `WHERE` clause of `conditions` joined with `AND` (always true when there are none).
    public static func whereClause(_ conditions: [String]) -> String {
        conditions.isEmpty ? " WHERE TRUE" : " WHERE " + conditions.joined(separator: " AND ")
    }
}
