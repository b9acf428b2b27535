import DataMediator
import DataMediatorSQL
import DataMediatorTesting
import GRDB
import Testing

@testable import DataMediatorSQLite

/// A window of a view whose order is several index ranges (its keys nullable) is one
/// statement on a page reader (`WindowQueries.union`): it answers what reading the ranges
/// one after another in a transaction answers, from every position and for every limit.
@Suite struct SeveralRangesTests {
    @Test(arguments: SampleList.views.filter { $0.parameters.isEmpty })
    func theOneStatementWindowIsTheRangesReadOneAfterAnother(view: View) async throws {
        // No column NOT NULL: every view's keys are nullable.
        let fixture = try SQLiteFixture()
        let provider = try fixture.store.provider(for: SampleList.definition, source: SQLiteFixture.source)
        let reader = provider.reader
        let ordered = SampleList.expectedOrder(SampleList.items(), view: view)
        var severalRanges = 0
        for start in [nil] + ordered.map(view.position(of:)) {
            for inclusive in [false, true] where start != nil || !inclusive {
                if reader.windows.queries(of: view, from: start, inclusive: inclusive).count > 1 { severalRanges += 1 }
                for limit in [1, 2, 5, ordered.count + 1] {
                    let window = try await provider.window(of: view, from: start, inclusive: inclusive, limit: limit)
                    let ranges = try await reader.window(of: view, from: start, inclusive: inclusive, limit: limit)
                    #expect(window.items == ranges.items, "\(view.name) \(String(describing: start)) \(limit)")
                    #expect(window.version == ranges.version)
                }
            }
        }
        #expect(severalRanges > 0, "\(view.name) has no position whose window is several ranges")
    }

    /// Each window, of one range or several, is one statement run on a page reader: none
    /// in a transaction on the pool's connections.
    @Test(arguments: SampleList.views.filter { $0.parameters.isEmpty })
    func aWindowIsOneStatementOnAPageReader(view: View) async throws {
        let fixture = try SQLiteFixture()
        let provider = try fixture.store.provider(for: SampleList.definition, source: SQLiteFixture.source)
        let trace = try PageReaderTrace(provider)
        let ordered = SampleList.expectedOrder(SampleList.items(), view: view)
        var severalRanges = 0
        for start in [nil] + ordered.map(view.position(of:)) {
            let ranges = provider.reader.windows.queries(of: view, from: start, inclusive: false).count
            trace.clear()
            let window = try await provider.window(of: view, from: start, inclusive: false, limit: 5)
            let traced = trace.statements
            guard !window.items.isEmpty else { continue }
            #expect(traced.count == 1, "\(view.name) from \(String(describing: start)): \(traced)")
            if ranges > 1 {
                severalRanges += 1
                #expect(traced.first?.contains("UNION ALL") == true, "\(traced)")
            }
        }
        #expect(severalRanges > 0, "\(view.name) has no position whose window is several ranges")
    }
}
