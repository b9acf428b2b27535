import Testing

@testable import data_mediator

/// Config files: all errors at once, in file order, each naming what was written.
extension ConfigFileLoaderTests {
    @Test func everyErrorIsReportedInFileOrder() {
        let found = errors(
            "store:\n  sqlite: a\n  extra: 1\nlists:\n  x:\n    table: t\n    fields: {a: strin}\n    views:\n      v: {sort: [b]}\n"
        )
        #expect(found.count == 3)
        #expect(found.map(\.line) == found.map(\.line).sorted())
    }

    /// A page limit's error names the value written: a refused one is not also compared
    /// with the other (as the 20 put in its place), and a default with no maximum is named.
    @Test func aLimitsErrorNamesWhatWasWritten() {
        func limitErrors(_ limit: String) -> [String] {
            errors(
                "store:\n  sqlite: a\nlists:\n  x:\n    table: t\n    fields: {a: string}\n    limit: \(limit)\n"
                    + "    views:\n      v: {sort: [a]}\n"
            ).map(\.message)
        }
        let negative = limitErrors("{default: -1, max: 5}")
        #expect(negative.count == 1 && negative.first?.contains("'limit.default'") == true, "\(negative)")
        #expect(
            limitErrors("{default: 5000}") == [
                "list 'x': 'limit.default' (5000) is above 1000, the most items a page may hold"
            ]
        )
    }
}
