/// An error of the list contract, with a stable code and a message safe to show a client.
///
/// The HTTP edge turns each code into a problem type and status; the core never speaks
/// HTTP. New codes can be added without breaking a `switch` over existing ones.
public struct DataMediatorError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The kind of error, stable across releases.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        /// The code's stable name, e.g. `unknown-list`.
        public let name: String

        private init(_ name: String) { self.name = name }

        /// The list named in the request does not exist.
        public static let unknownList = Code("unknown-list")
        /// The view named in the request is not a view of the list.
        public static let unknownView = Code("unknown-view")
        /// No item with that id is in the view.
        public static let unknownItem = Code("unknown-item")
        /// `limit` is empty, not a whole number, or below 1.
        public static let badLimit = Code("bad-limit")
        /// The cursor is empty, malformed, truncated, changed or forged.
        public static let badCursor = Code("bad-cursor")
        /// The cursor is genuine but belongs to another list or view.
        public static let cursorMismatch = Code("cursor-mismatch")
        /// Another request parameter is not acceptable.
        public static let badRequest = Code("bad-request")
        /// A view's parameter is missing, given twice, or does not convert to its field's type.
        public static let badParameter = Code("bad-parameter")
        /// A query parameter that neither the route nor the view takes.
        public static let unknownParameter = Code("unknown-parameter")
        /// A scoped list was asked without a valid token carrying its claim.
        public static let unauthorized = Code("unauthorized")
        /// The token's holder may not do this (a write to another slice).
        public static let forbidden = Code("forbidden")
        /// A source could not be read; the request may succeed later.
        public static let unavailable = Code("not-ready")
        /// An item to write does not meet the list's field rules; ``fieldProblems`` says how.
        public static let invalidItem = Code("invalid-item")
        /// An item with that id already exists.
        public static let conflict = Code("conflict")
        /// The list cannot be written (a query, a file, a composite, or not declared writable).
        public static let readOnly = Code("read-only")
        /// The version a client asks changes since is older than the kept history (or newer
        /// than the source's): it must reload.
        public static let historyGone = Code("history-gone")
        /// An `Idempotency-Key` already used for a request with another body.
        public static let idempotencyKeyReused = Code("idempotency-key-reused")
        /// A write whose commit the store did not confirm: it may or may not be stored, so
        /// it is not a failure to retry blindly (read the item back, or retry with the same
        /// `Idempotency-Key`).
        public static let outcomeUnknown = Code("outcome-unknown")
        /// A write's `If-Match` or `If-None-Match` does not hold for the item as it stands.
        public static let preconditionFailed = Code("precondition-failed")

        /// The code's name.
        public var description: String { name }
    }

    /// What kind of error this is.
    public let code: Code
    /// A sentence for the client: what was wrong and how to fix it. Never internal detail.
    public let message: String
    /// For `invalidItem`: each field that is wrong, and why.
    public let fieldProblems: [FieldProblem]

    /// Creates an error with a code and a client-safe message.
    public init(_ code: Code, _ message: String, fieldProblems: [FieldProblem] = []) {
        self.code = code
        self.message = message
        self.fieldProblems = fieldProblems
    }

    /// The code and message.
    public var description: String { "\(code): \(message)" }

    /// Checks that the changes after `since` are all kept: `since` is at least the oldest
    /// version the history starts from (`floor`) and at most the source's `version`.
    ///
    /// - Throws: `historyGone` otherwise; the client reloads.
    public static func checkHistory(since: Int64, floor: Int64, version: Int64) throws(DataMediatorError) {
        guard since >= floor, since <= version else { throw historyGone(since: since, version: version) }
    }

    /// The `conflict` of a create whose id an item holds already; it names the field `id`,
    /// so that a conflict of the id is told from one of another unique value.
    public static func idTaken(_ id: String) -> DataMediatorError {
        DataMediatorError(
            .conflict,
            "An item with id '\(id)' exists; PUT replaces it.",
            fieldProblems: [FieldProblem(field: "id", detail: "is taken")]
        )
    }

    /// Whether this is the conflict of an id an item holds already (``idTaken(_:)``).
    public var isIDTaken: Bool { code == .conflict && fieldProblems.contains { $0.field == "id" } }

    /// `historyGone` for changes asked since `since` when the source is at `version`.
    public static func historyGone(since: Int64, version: Int64) -> DataMediatorError {
        if since > version {
            // `Int64.max` stands for any number past it (``ListAdapter/version(_:name:)``),
            // which the answer does not quote as if the client had sent it.
            let asked = since == .max ? "The version asked for" : "Version \(since)"
            return DataMediatorError(
                .historyGone,
                "\(asked) is newer than the list's version \(version) (the store was reset?); reload from the first page."
            )
        }
        return DataMediatorError(
            .historyGone,
            "The changes since version \(since) are no longer kept; reload from the first page."
        )
    }
}

/// One field of an item to write that breaks the list's rules.
public struct FieldProblem: Sendable, Hashable {
    /// The field's name (`data` for the whole object, `id` for the id).
    public let field: String
    /// What is wrong with it.
    public let detail: String

    /// Creates a field problem.
    public init(field: String, detail: String) {
        self.field = field
        self.detail = detail
    }
}

extension [FieldProblem] {
    /// The problems as one line for a person (an import's report): fields with the same
    /// problem are named together, so a list of known fields is said once.
    public var summary: String {
        var details: [String] = []
        var fields: [String: [String]] = [:]
        for problem in self {
            if fields[problem.detail] == nil { details.append(problem.detail) }
            fields[problem.detail, default: []].append("'\(problem.field)'")
        }
        return details.map { detail in
            let named = fields[detail] ?? []
            return named.count == 1 ? "\(named[0]) \(detail)" : "\(named.joined(separator: ", ")): each \(detail)"
        }.joined(separator: "; ")
    }
}
