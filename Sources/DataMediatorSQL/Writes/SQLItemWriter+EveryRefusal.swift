import DataMediator

extension SQLItemWriter {
    /// `error`, a write's refusal naming the field whose value the database refused, with
    /// the other values of `values` that their columns' casts refuse named too
    /// (``CastRefusals``). Any other error is returned as it is.
    func everyCastRefused(_ error: any Error, _ values: [String: JSONValue]) async -> any Error {
        guard let refusal = error as? DataMediatorError, refusal.code == .invalidItem else { return error }
        let named = Set(refusal.fieldProblems.map(\.field))
        guard !named.contains("data") else { return error }
        let others = values.keys.sorted().filter { !named.contains($0) && statements.castRefusals.casts($0) }
        guard !others.isEmpty else { return error }
        let given = others.map { (field: $0, value: stored(values[$0] ?? .null, as: fieldTypes[$0])) }
        guard let problems = await statements.castRefusals.problems(of: given, in: transactions) else {
            return refusal
        }
        if problems.isEmpty { return error }
        return DataMediatorError(.invalidItem, refusal.message, fieldProblems: refusal.fieldProblems + problems)
    }
}
