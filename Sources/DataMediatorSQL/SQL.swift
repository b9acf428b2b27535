/// Quoting and placeholders of SQL text; identifiers come from the config, never from requests.
public enum SQL {
    /// `name` as a quoted identifier.
    public static func quote(_ name: String) -> String {
        var quoted = "\""
        for character in name {
            quoted.append(character)
            if character == "\"" { quoted.append(character) }
        }
        return quoted + "\""
    }

    /// `text` as a string literal, for the few statements that take no placeholders (a
    /// trigger's body, its arguments).
    public static func literal(_ text: String) -> String {
        var literal = "'"
        for character in text {
            literal.append(character)
            if character == "'" { literal.append(character) }
        }
        return literal + "'"
    }

    /// `sql` with each `?` outside quotes replaced by `$1`, `$2`, ... in order (PostgreSQL's
    /// placeholders), starting after `offset`.
    public static func numbered(_ sql: String, offset: Int = 0) -> String {
        var result = ""
        result.reserveCapacity(sql.utf8.count + 8)
        var quote: Character?
        var number = offset
        for character in sql {
            if let open = quote {
                if character == open { quote = nil }
                result.append(character)
            } else if character == "\"" || character == "'" {
                quote = character
                result.append(character)
            } else if character == "?" {
                number += 1
                result += "$\(number)"
            } else {
                result.append(character)
            }
        }
        return result
    }

    /// The `WHERE` clause of `conditions` joined with `AND` (always true when there are none).
    public static func whereClause(_ conditions: [String]) -> String {
        conditions.isEmpty ? " WHERE TRUE" : " WHERE " + conditions.joined(separator: " AND ")
    }
}
