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
