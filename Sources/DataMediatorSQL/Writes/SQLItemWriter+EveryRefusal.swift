import DataMediator

extension SQLItemWriter {
    /// `error`, a write's refusal naming the field whose value the database refused, with
    /// the other values of `values` that their columns' casts refuse named too (a time
    /// outside the years the service shows, text that is no time, label or uuid): the
    /// database stops at the first, and a client fixing its item would learn of each in a
    /// write of its own (API.md: a `422` names each field). Each is cast alone, with no
    /// table, only when a write was refused so. Any other error is returned as it is.
    func everyCastRefused(_ error: any Error, _ values: [String: JSONValue]) async -> any Error {
        guard let refusal = error as? DataMediatorError, refusal.code == .invalidItem else { return error }
        let named = Set(refusal.fieldProblems.map(\.field))
        guard !named.contains("data") else { return error }
        let others = values.keys.sorted().filter { !named.contains($0) && values[$0] != .null }
        let checks = others.compactMap { field in statements.castCheck(of: field).map { (field, $0) } }
        guard !checks.isEmpty else { return error }
        var problems = refusal.fieldProblems
        for (field, check) in checks {
            let value = stored(values[field] ?? .null, as: fieldTypes[field])
            let refused: DataMediatorError?
            do {
                refused = try await transactions.readStatements { session in
                    do {
                        _ = try await session.rows(check, [value])
                        return nil
                    } catch {
                        guard let refused = session.refusal(of: error) else { throw error }
                        return refused
                    }
                }
            } catch {
                // The look itself failed (the database went away): the first refusal stands.
                return refusal
            }
            guard let refused else { continue }
            let details = refused.fieldProblems.isEmpty ? [refused.message] : refused.fieldProblems.map(\.detail)
            problems += details.map { FieldProblem(field: field, detail: $0) }
        }
        return DataMediatorError(.invalidItem, refusal.message, fieldProblems: problems)
    }
}
