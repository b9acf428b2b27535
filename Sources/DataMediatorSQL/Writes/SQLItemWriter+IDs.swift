import DataMediator

extension SQLItemWriter {
    /// The id as the column stores it.
    ///
    /// - Throws: `invalidItem` (or `unknownItem` when `missing`, since no such item can
    ///   exist) for an id that an integer id column cannot hold.
    func storedID(_ id: String, missing: Bool = false) throws(DataMediatorError) -> JSONValue {
        if idIsUUID {
            guard UUIDText.isCanonical(id) else {
                if missing { throw unknown(id) }
                throw UUIDText.refusal(ofID: id, field: "id")
            }
            return .string(id)
        }
        if idDropsBlanks, id.hasSuffix(" ") {
            if missing { throw unknown(id) }
            throw DataMediatorError(
                .invalidItem,
                "The id '\(id)' ends in a blank, which the list's char(n) id column drops.",
                fieldProblems: [
                    FieldProblem(field: "id", detail: "must not end in a blank (a char(n) column drops it)")
                ]
            )
        }
        if let problem = columnRules[idField]?.problem(of: .string(id)) {
            if missing { throw unknown(id) }
            throw DataMediatorError(
                .invalidItem,
                "The id '\(id)' \(problem).",
                fieldProblems: [FieldProblem(field: "id", detail: problem)]
            )
        }
        guard idIsInteger else { return .string(id) }
        guard let whole = Int64(id), String(whole) == id else {
            if missing { throw unknown(id) }
            // Digits (no leading zero) that are no Int64 are a whole number past 64 bits:
            // out of range, not one that is no number.
            let digits = id.hasPrefix("-") ? id.dropFirst() : Substring(id)
            guard !digits.isEmpty, digits.first != "0", digits.allSatisfy({ $0.isASCII && $0.isNumber }) else {
                throw DataMediatorError(
                    .invalidItem,
                    "Ids of this list are whole numbers; '\(id)' is not one.",
                    fieldProblems: [FieldProblem(field: "id", detail: "must be a whole number")]
                )
            }
            throw idOutOfRange(id)
        }
        guard whole <= idMaximum, whole >= -idMaximum - 1 else {
            if missing { throw unknown(id) }
            throw idOutOfRange(id)
        }
        return .integer(whole)
    }

    /// The refusal of a whole number id past what the list's id column holds.
    private func idOutOfRange(_ id: String) -> DataMediatorError {
        let range = "from \(-idMaximum - 1) to \(idMaximum)"
        return DataMediatorError(
            .invalidItem,
            "Ids of this list are whole numbers \(range) (what its id column holds); '\(id)' is not one.",
            fieldProblems: [FieldProblem(field: "id", detail: "must be a whole number \(range)")]
        )
    }
}
