import DataMediator

/// The values of a write or an import that their columns' casts refuse (a time outside the
/// years the service shows, text that is no time, label or uuid), each cast alone with no
/// table. The database stops at the first value it refuses, and a client fixing its item
/// (or an operator their file) would learn of each in an attempt of its own (API.md: a
/// `422` names each field); so, once a statement was refused so, the other values are cast
/// here. Run only on that refusal path, after its transaction ended.
struct CastRefusals: Sendable {
    /// The type each column's written value is cast to (``SQL/placeholder(of:casts:)``).
    let casts: [String: String]

    /// The statement that casts one value for `field` as a write casts it (argument: the
    /// value as stored); nil when the field's value is bound as it is.
    func statement(of field: String) -> String? {
        casts[field] == nil ? nil : "SELECT \(SQL.placeholder(of: field, casts: casts)) IS NULL"
    }

    /// Whether `field`'s value is cast, so that ``problems(of:in:)`` would look at it.
    func casts(_ field: String) -> Bool { casts[field] != nil }

    /// The problems of the values (fields with their values as stored) that their
    /// columns' casts refuse, in the order given; values bound as they are, and `null`s,
    /// are passed over. Nil when a look itself failed (the database went away): the
    /// caller's first refusal stands then.
    func problems(
        of values: [(field: String, value: JSONValue)],
        in transactions: any SQLTransactions
    ) async
        -> [FieldProblem]?
    {
        var problems: [FieldProblem] = []
        for (field, value) in values where value != .null {
            guard let check = statement(of: field) else { continue }
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
                return nil
            }
            guard let refused else { continue }
            let details = refused.fieldProblems.isEmpty ? [refused.message] : refused.fieldProblems.map(\.detail)
            problems += details.map { FieldProblem(field: field, detail: $0) }
        }
        return problems
    }
}
