import DataMediator
import DataMediatorSQL
import DataMediatorSQLite
import Foundation

/// Reads a read-only list's items from a file: a JSON array of objects (`.json`), one
/// object per line (`.ndjson`, `.jsonl`), or CSV with a header row (`.csv`, RFC 4180).
///
/// Every item must have a unique id and meet the list's field rules; CSV cells are read
/// as their declared field's type (an empty cell is `null`).
enum ItemFile {
    /// A file's format, from its extension.
    enum Format {
        case json
        case ndjson
        case csv

        /// The format of `path`, or nil for an extension none of them has.
        init?(path: String) {
            switch URL(fileURLWithPath: path).pathExtension.lowercased() {
            case "json": self = .json
            case "ndjson", "jsonl": self = .ndjson
            case "csv": self = .csv
            default: return nil
            }
        }
    }

    /// The items of the file at `path`, in file order (read through ``RecordStream``, as
    /// `import` reads a file).
    ///
    /// - Throws: ``ItemFileError`` naming the record's line and what is wrong with it.
    static func read(
        path: String,
        idField: String,
        types: [String: FieldType],
        rules: FieldRules
    ) throws(ItemFileError) -> [Item] {
        let records: RecordStream
        do {
            records = try RecordStream(path: path, types: types)
        } catch let error as ItemFileError {
            throw error
        } catch {
            throw ItemFileError(path: path, line: nil, "cannot be read: \(error)")
        }
        var ids = Set<ExactText>()
        var items: [Item] = []
        for record in records {
            if let problem = record.problem { throw ItemFileError(path: path, line: record.line, problem) }
            var fields = record.fields
            let id = fields.removeValue(forKey: idField) ?? .null
            switch id {
            case .string(let text) where !text.isEmpty: break
            case .integer: break
            default:
                throw ItemFileError(
                    path: path,
                    line: record.line,
                    "'\(idField)' must be a non-empty string or a whole number"
                )
            }
            guard ids.insert(ExactText(id.idString)).inserted else {
                throw ItemFileError(path: path, line: record.line, "id '\(id.idString)' appears twice")
            }
            do {
                try rules.check(fields)
            } catch {
                let problems = error.fieldProblems.summary
                throw ItemFileError(path: path, line: record.line, "item '\(id.idString)': \(problems)")
            }
            var values = fields
            values[idField] = id
            for field in types.keys where values[field] == nil { values[field] = .null }
            items.append(Item(values))
        }
        return items
    }

    /// A CSV cell as a value of `type` (a string for an undeclared column, which the
    /// field rules then refuse); nil when it is not one. Numbers are decimal text
    /// (``FieldType/isDecimal(_:fraction:)``; a whole one as a JSON record's is), JSON is
    /// RFC 8259's.
    static func cell(_ text: String, as type: FieldType?) -> JSONValue? {
        if text.isEmpty { return .null }
        switch type {
        case .integer?:
            if FieldType.isDecimal(text, fraction: false) { return Int64(text).map(JSONValue.integer) }
            // A whole number written with a fraction or an exponent (`1.0`, `2e2`) is one, as
            // in a JSON record or a write body: read by their decoder.
            guard FieldType.isDecimal(text, fraction: true),
                case .integer(let whole)? = try? JSONValue.parse(Array(text.utf8))
            else { return nil }
            return .integer(whole)
        case .number?:
            guard FieldType.isDecimal(text, fraction: true), let real = Double(text), real.isFinite else { return nil }
            guard real == 0 else { return .number(real) }
            // Zero as a JSON record or a write body gives it: `-0.0` is 0, and a number no
            // double holds but 0 (`1e-400`, its digits not all zero) is refused.
            let digits = text.prefix { $0 != "e" && $0 != "E" }
            return digits.contains { ("1"..."9").contains($0) } ? nil : .number(0)
        case .boolean?:
            switch text.lowercased() {
            case "true", "1": return .bool(true)
            case "false", "0": return .bool(false)
            default: return nil
            }
        case .json?:
            // RFC 8259 to the letter, as write bodies and NDJSON records are read: a member
            // named twice or a trailing comma is no JSON (Foundation's parser takes both).
            return try? readJSON(Array(text.utf8), depth: cellDepth).get()
        case .string?, nil: return .string(text)
        }
    }

    /// JSON text read as a write body reads it, nesting at most `depth` levels, or why it
    /// cannot be (said of the text: "names 'a' twice in one object"): a member named twice,
    /// RFC 8259's grammar left, text that is no UTF-8, a number out of a double's range, or
    /// nesting deeper than a write takes it (a record's fields sit one level deeper in a
    /// body's `data`, a cell's value two: a `PUT` of what `GET` showed was refused). A JSON
    /// record and a CSV `json` cell are read by this one rule.
    static func readJSON(_ bytes: [UInt8], depth: Int) -> Result<JSONValue, JSONTextProblem> {
        if let name = JSONValue.duplicateKey(in: bytes) {
            return .failure(.init("names '\(name)' twice in one object"))
        }
        if let problem = JSONSyntax.problem(in: bytes) { return .failure(.init("is not JSON (RFC 8259): \(problem)")) }
        do {
            return .success(try JSONValue.parse(bytes, maximumDepth: depth))
        } catch is JSONValue.TooDeep {
            return .failure(
                .init("nests arrays and objects more than \(depth) levels deep, past what a write's body takes of it")
            )
        } catch DecodingError.typeMismatch(_, let context) where !JSONValue.holdsBadText(bytes) {
            let field = context.codingPath.first.map { "'\($0.stringValue)' " } ?? ""
            return .failure(.init(field + JSONValue.outOfRangeDetail))
        } catch {
            return .failure(.init("is not UTF-8 text (or escapes half a surrogate pair)"))
        }
    }

    /// The deepest a CSV `json` cell nests: a body's `{"data": {field: value}}` holds it two
    /// levels down.
    static let cellDepth = JSONValue.maximumDepth - 2

    /// Why JSON text cannot be read (``readJSON(_:depth:)``), said of the text.
    struct JSONTextProblem: Error {
        let reason: String
        init(_ reason: String) { self.reason = reason }
    }
}

/// A file list's file that cannot be served: which file, which record, and why.
struct ItemFileError: Error, CustomStringConvertible {
    /// The file.
    let path: String
    /// The record's line (NDJSON, CSV) or number (JSON); nil for the whole file.
    let line: Int?
    /// What is wrong.
    let message: String

    init(path: String, line: Int?, _ message: String) {
        self.path = path
        self.line = line
        self.message = message
    }

    var description: String {
        "\(path)\(line.map { ":\($0)" } ?? ""): \(message)"
    }
}
