import DataMediator

/// A query list's whole result read once per stamp of the tables it names (its config's
/// `versions`), and each view or slice of it ordered once: its pages, places and sections
/// are then answered from memory, and an aggregate runs once per change of its tables
/// instead of once per request.
struct KeptQueryResult: Sendable {
    /// The stamp of the query's tables in the snapshot the rows were read in.
    let stamp: Int64
    /// The store's version in that snapshot.
    let version: Int64
    /// The query's rows.
    let rows: [Item]
}

/// One view or slice of a kept query result, ordered.
struct KeptQueryView: Sendable {
    let stamp: Int64
    let provider: ArrayDataProvider
}

extension SQLListReader {
    /// The view (or slice) of the list's kept result with the store's version now; nil for
    /// a table list or a query that names no tables (read as it is, each time).
    public func keptQuery(_ view: View) async throws -> (provider: ArrayDataProvider, version: Int64)? {
        guard !viewsAreIndexed, stampSQL != nil else { return nil }
        if let kept = keptViews.latest(view.binding), let version = try await version(ifStamp: kept.stamp) {
            return (kept.provider, version)
        }
        guard let stamp = try await currentStamp() else { return nil }
        let result = try await results.value("rows", stamp: stamp) {
            try await transactions.read { session in
                let (stamp, version) = try await keptStampAndVersion(session)
                return KeptQueryResult(
                    stamp: stamp,
                    version: version,
                    rows: try await fetch("SELECT \(selectList) FROM \(from)", [], session)
                )
            }
        }
        let kept = try await keptViews.value(view.binding, stamp: result.stamp) {
            KeptQueryView(
                stamp: result.stamp,
                provider: ArrayDataProvider(items: result.rows, idField: idField, only: view, version: result.version)
            )
        }
        return (kept.provider, result.version)
    }
}
