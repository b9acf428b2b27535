import DataMediator
import Foundation

/// One record to import: where it was read (a line number), and its fields.
public struct ImportRecord: Sendable {
    /// The record's line in its file.
    public let line: Int
    /// Its fields, the id among them.
    public let fields: [String: JSONValue]
    /// Why it could not be read (not JSON, a cell of the wrong type); nil when it was.
    public let problem: String?

    /// Creates a record.
    public init(line: Int, fields: [String: JSONValue], problem: String? = nil) {
        self.line = line
        self.fields = fields
        self.problem = problem
    }

    /// The record's values in `columns` order, checked against the list's rules: the id
    /// as the id column stores it (a whole number for integer ids), JSON fields as JSON text.
    ///
    /// - Throws: `invalidItem` naming the fields that break the rules, or the id.
    public func values(
        columns: [String],
        idField: String,
        idType: FieldType,
        types: [String: FieldType],
        rules: FieldRules
    ) throws -> [JSONValue] {
        if let problem { throw DataMediatorError(.invalidItem, problem) }
        var fields = fields
        guard var id = fields.removeValue(forKey: idField), id != .null else {
            // A CSV header's ' id' or 'ID' is another field: name it, or the unknown field
            // goes unseen behind the missing id.
            let near = fields.keys.sorted().first {
                $0 != idField && $0.trimmingCharacters(in: .whitespaces).lowercased() == idField.lowercased()
            }
            let hint = near.map { "; '\($0)' is another field (names are exact: no spaces, same case)" } ?? ""
            throw DataMediatorError(
                .invalidItem,
                "no id",
                fieldProblems: [FieldProblem(field: idField, detail: "is missing: every record needs its id\(hint)")]
            )
        }
        switch (id, idType) {
        case (.integer, _), (.string, .string):
            break
        // In its one decimal spelling only, as a write's id: "+8" or "009" would be stored as
        // another id than the record's.
        case (.string(let text), .integer) where Int64(text).map { String($0) == text } == true:
            id = .integer(Int64(text) ?? 0)
        default:
            let expected = idType == .integer ? "a whole number" : "a non-empty string or a whole number"
            throw DataMediatorError(
                .invalidItem,
                "bad id",
                fieldProblems: [FieldProblem(field: idField, detail: "must be \(expected)")]
            )
        }
        if case .string(let text) = id, let problem = FieldRules.idProblem(text) {
            throw DataMediatorError(
                .invalidItem,
                "bad id",
                fieldProblems: [FieldProblem(field: idField, detail: problem)]
            )
        }
        try rules.check(fields)
        return columns.map { column in
            let value = column == idField ? id : (fields[column] ?? .null)
            guard types[column] == .json, value != .null else { return value }
            var writer = JSONWriter()
            writer.write(value)
            return .string(writer.string)
        }
    }
}

/// A record that was not imported, and why.
public struct ImportRejection: Sendable, Hashable {
    /// Its line.
    public let line: Int
    /// Why.
    public let reason: String
    /// The record's other cast values, to be cast alone once its transaction ended
    /// (``CastRefusals``) when the database refused one of its values: each refused one
    /// is then named too.
    var unnamedCasts: [FieldValue] = []

    /// A field and its value as stored.
    struct FieldValue: Sendable, Hashable {
        let field: String
        let value: JSONValue
    }

    /// Creates a rejection.
    public init(line: Int, reason: String) {
        self.line = line
        self.reason = reason
    }

    /// The rejection of the record at `line` for `error`: its field problems, or its message.
    public init(line: Int, error: DataMediatorError) {
        self.line = line
        self.reason =
            error.fieldProblems.isEmpty
            ? error.message
            : error.fieldProblems.summary
    }

    /// A value's text as a report shows it, between `mark`s: its first 60 characters, then
    /// how long it is (a 400 KB cell was printed whole for each bad row).
    public static func shown(_ text: String, between mark: String = "") -> String {
        text.count <= 60 ? mark + text + mark : "\(mark)\(text.prefix(60))…\(mark) (\(text.count) characters)"
    }

    /// The rejection of `record` for `error`: its field problems, each with the value the
    /// record gave (as JSON, cut at 60 characters) so a file's writer sees what to mend as a
    /// CSV cell's does, or its message.
    public init(record: ImportRecord, error: DataMediatorError) {
        self.line = record.line
        guard !error.fieldProblems.isEmpty else {
            self.reason = error.message
            return
        }
        self.reason =
            error.fieldProblems.map { problem in
                guard let value = record.fields[problem.field], value != .null else { return problem }
                var writer = JSONWriter()
                writer.write(value)
                let text = writer.string
                let shown = Self.shown(text)
                return FieldProblem(field: problem.field, detail: "\(problem.detail); got \(shown)")
            }.summary
    }
}

/// What an import did.
public struct ImportSummary: Sendable {
    /// Records stored.
    public var imported = 0
    /// Records left out (with `skipBad`), at most the first 1,000 of them with reasons.
    public var rejected = 0
    /// The first rejections.
    public var rejections: [ImportRejection] = []
    /// The store's version after the import.
    public var version: Int64 = 0
    /// When the import's first transaction held the store's writes: the time before it
    /// was spent opening the store and waiting for its other writes (another import's, a
    /// server's), not importing.
    public var began: ContinuousClock.Instant?

    /// Creates an empty summary.
    public init() {}

    /// Counts one record: imported when `rejection` is nil, else left out (the first 1,000
    /// kept with their reasons); reports progress after every `batch` records.
    ///
    /// - Throws: ``ImportStopped`` for a rejection when bad records are not skipped.
    public mutating func count(
        _ rejection: ImportRejection?,
        skipBad: Bool,
        batch: Int,
        progress: (Int) -> Void
    ) throws(ImportStopped) {
        if let rejection {
            guard skipBad else { throw ImportStopped(rejection: rejection) }
            rejected += 1
            if rejections.count < 1000 { rejections.append(rejection) }
        } else {
            imported += 1
        }
        if (imported + rejected) % max(1, batch) == 0 { progress(imported + rejected) }
    }
}

/// The first bad record of an import without `skipBad`: nothing was stored.
public struct ImportStopped: Error, CustomStringConvertible {
    /// The bad record.
    public let rejection: ImportRejection

    /// Creates the error.
    public init(rejection: ImportRejection) {
        self.rejection = rejection
    }

    /// A sentence for the operator.
    public var description: String {
        "\(rejection.line): \(rejection.reason); nothing was imported (--skip-bad leaves bad records out)"
    }
}
