import DataMediator
import GRDB

extension JSONValue {
    /// The value as SQLite stores it: booleans as 0 and 1, arrays and objects as JSON text.
    var databaseValue: DatabaseValue {
        switch self {
        case .null: return .null
        case .bool(let flag): return (flag ? 1 : 0).databaseValue
        case .integer(let whole): return whole.databaseValue
        case .number(let real): return real.databaseValue
        case .string(let text): return text.databaseValue
        case .array, .object: return idString.databaseValue
        }
    }

    /// The JSON value of a stored SQLite value; a blob becomes its bytes as a string.
    init(_ stored: DatabaseValue) {
        switch stored.storage {
        case .null: self = .null
        case .int64(let whole): self = .integer(whole)
        case .double(let real): self = .number(real)
        case .string(let text): self = .string(text)
        case .blob(let data): self = .string(String(decoding: data, as: UTF8.self))
        }
    }
}
