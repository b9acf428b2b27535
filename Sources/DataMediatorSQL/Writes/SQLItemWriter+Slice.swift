import DataMediator

extension SQLItemWriter {
    /// Refuses a write whose row, as read back in its transaction, holds another value of
    /// the list's scope field than the write gave: a column that drops trailing blanks
    /// (`char(n)`, `varchar(n)`) or rounds (`numeric(p,s)`, `real`), or a trigger, would
    /// store the item in another caller's slice (`"ana "` in ana's), where its writer could
    /// neither read nor delete it.
    func keptInSlice(_ item: Item, values: [String: JSONValue]) throws(DataMediatorError) {
        guard let scopeField, let given = values[scopeField], given != .null else { return }
        let stored = item[scopeField]
        guard JSONValue.compare(stored, given) != 0 else { return }
        var written = JSONWriter()
        written.write(given)
        var kept = JSONWriter()
        kept.write(stored)
        let detail =
            "its column keeps \(written.string) as \(kept.string), which would put the item in the slice "
            + "of another value of the list's scope field"
        throw DataMediatorError(
            .invalidItem,
            "The item's '\(scopeField)' would not be kept as written; nothing was stored.",
            fieldProblems: [FieldProblem(field: scopeField, detail: detail)]
        )
    }
}
