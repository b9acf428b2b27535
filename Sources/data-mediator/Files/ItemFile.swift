import CSV
import DataMediator
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

    /// The items of the file at `path`, in file order.
    ///
    /// - Throws: ``ItemFileError`` naming the record (its line, for NDJSON and CSV) and
    ///   what is wrong with it.
    static func read(
        path: String,
        idField: String,
        types: [String: FieldType],
        rules: FieldRules
    ) throws(ItemFileError) -> [Item] {
        guard let format = Format(path: path) else {
            throw ItemFileError(path: path, line: nil, "is not a .json, .ndjson, .jsonl or .csv file")
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ItemFileError(path: path, line: nil, "cannot be read; check the path and its permissions")
        }
        let records: [(line: Int?, fields: [String: JSONValue])]
        switch format {
        case .json: records = try jsonRecords(Array(data), path: path)
        case .ndjson: records = try ndjsonRecords(Array(data), path: path)
        case .csv: records = try csvRecords(data, path: path, types: types)
        }
        var ids = Set<String>()
        var items: [Item] = []
        items.reserveCapacity(records.count)
        for (index, record) in records.enumerated() {
            let label = record.line ?? (index + 1)
            var fields = record.fields
            let id = fields.removeValue(forKey: idField) ?? .null
            switch id {
            case .string(let text) where !text.isEmpty: break
            case .integer: break
            default:
                throw ItemFileError(
                    path: path,
                    line: label,
                    "'\(idField)' must be a non-empty string or a whole number"
                )
            }
            guard ids.insert(id.idString).inserted else {
                throw ItemFileError(path: path, line: label, "id '\(id.idString)' appears twice")
            }
            do {
                try rules.check(fields)
            } catch {
                let problems = error.fieldProblems.map { "'\($0.field)' \($0.detail)" }.joined(separator: "; ")
                throw ItemFileError(path: path, line: label, "item '\(id.idString)': \(problems)")
            }
            var values = fields
            values[idField] = id
            for field in types.keys where values[field] == nil { values[field] = .null }
            items.append(Item(values))
        }
        return items
    }

    private static func jsonRecords(
        _ bytes: [UInt8],
        path: String
    ) throws(ItemFileError)
        -> [(line: Int?, fields: [String: JSONValue])]
    {
        let value: JSONValue
        do {
            value = try JSONValue.parse(bytes)
        } catch {
            throw ItemFileError(path: path, line: nil, "is not valid JSON: \(error)")
        }
        guard case .array(let elements) = value else {
            throw ItemFileError(path: path, line: nil, "must hold a JSON array of objects")
        }
        var records: [(line: Int?, fields: [String: JSONValue])] = []
        for (index, element) in elements.enumerated() {
            guard case .object(let fields) = element else {
                throw ItemFileError(path: path, line: nil, "element \(index + 1) of the array is not an object")
            }
            records.append((nil, fields))
        }
        return records
    }

    private static func ndjsonRecords(
        _ bytes: [UInt8],
        path: String
    ) throws(ItemFileError)
        -> [(line: Int?, fields: [String: JSONValue])]
    {
        var records: [(line: Int?, fields: [String: JSONValue])] = []
        for (index, line) in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).enumerated() {
            let text = line.last == UInt8(ascii: "\r") ? line.dropLast() : line[...]
            if text.allSatisfy({ $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }) { continue }
            guard case .object(let fields)? = try? JSONValue.parse(Array(text)) else {
                throw ItemFileError(path: path, line: index + 1, "is not a JSON object")
            }
            records.append((index + 1, fields))
        }
        return records
    }

    private static func csvRecords(
        _ data: Data,
        path: String,
        types: [String: FieldType]
    ) throws(ItemFileError)
        -> [(line: Int?, fields: [String: JSONValue])]
    {
        let reader: CSVReader
        do {
            reader = try CSVReader(string: String(decoding: data, as: UTF8.self), hasHeaderRow: true)
        } catch {
            throw ItemFileError(path: path, line: 1, "has no header row: \(error)")
        }
        guard let header = reader.headerRow else { throw ItemFileError(path: path, line: 1, "has no header row") }
        var records: [(line: Int?, fields: [String: JSONValue])] = []
        var record = 1
        while let row = reader.next() {
            record += 1
            if row.count == 1, row[0].isEmpty { continue }
            guard row.count == header.count else {
                throw ItemFileError(
                    path: path,
                    line: record,
                    "has \(row.count) cells, the header \(header.count)"
                )
            }
            var fields: [String: JSONValue] = [:]
            for (name, text) in zip(header, row) {
                guard let value = cell(text, as: types[name]) else {
                    throw ItemFileError(
                        path: path,
                        line: record,
                        "'\(name)' must be \(types[name].map { "\($0)" } ?? "a value"); got '\(text)'"
                    )
                }
                fields[name] = value
            }
            records.append((record, fields))
        }
        if let error = reader.error { throw ItemFileError(path: path, line: record, "cannot be read: \(error)") }
        return records
    }

    /// A CSV cell as a value of `type` (a string for an undeclared column, which the
    /// field rules then refuse); nil when it is not one.
    static func cell(_ text: String, as type: FieldType?) -> JSONValue? {
        if text.isEmpty { return .null }
        switch type {
        case .integer?: return Int64(text).map(JSONValue.integer)
        case .number?: return Double(text).flatMap { $0.isFinite ? JSONValue.number($0) : nil }
        case .boolean?:
            switch text.lowercased() {
            case "true", "1": return .bool(true)
            case "false", "0": return .bool(false)
            default: return nil
            }
        case .json?: return try? JSONValue.parse(Array(text.utf8))
        case .string?, nil: return .string(text)
        }
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
