import DataMediatorTesting
import Testing

@testable import DataMediator
@testable import DataMediatorSQL

/// Another replica's writes carry a replica's kept outlines over from the change log (the
/// logged steps of the table's stamp): the sections and an item's place are answered
/// without a pass over the view, and equal what counting the rows answers. A write the log
/// does not hold (another program's) is not carried over.
@Suite struct LoggedCarryTests {
    /// Whether `outline` is one read from the rows: a mark every ``ViewOutline/spacing``
    /// items from the first, where one carried over writes has marks moved off that grid.
    static func isRead(_ outline: ViewOutline) -> Bool {
        outline.marks.enumerated().allSatisfy { $0.element.index == $0.offset * ViewOutline.spacing }
    }

    /// Whether `outline` has marks enough that writes all over the view surely moved one
    /// off the grid of an outline read from the rows.
    static func tellsCarriedFromRead(_ outline: ViewOutline) -> Bool {
        outline.marks.count >= 3
    }

    /// Asks `provider` for every view's sections, and checks that each view's outline is
    /// then kept at the stamp now and was carried, not read.
    static func expectCarried(_ provider: any SQLDataProvider, _ label: String) async throws {
        var told = 0
        for view in try OutlineCarryTests.views() {
            _ = try await provider.sectionCounts(of: view)
            let stamp = try await provider.reader.currentStamp()
            let outline = try #require(provider.reader.outlines.latest(view.binding), "\(label) \(view.binding)")
            #expect(outline.stamp == stamp, "\(label) \(view.binding): not carried to the stamp now")
            if tellsCarriedFromRead(outline) {
                told += 1
                #expect(!isRead(outline), "\(label) \(view.binding): read again, not carried")
            }
        }
        #expect(told >= 3, "\(label): too few views with marks to tell")
    }

    @Test(
        "another replica's writes carry the outlines over from the change log",
        arguments: [WritableKind.sqlite, .postgres]
    )
    func anotherReplicasWritesAreCarried(kind: WritableKind) async throws {
        let subject = try await WritableSubject(kind)
        let provider = try #require(subject.adapter.provider as? any SQLDataProvider)
        let other = try #require(try await subject.replica())
        var mix = WriteMix(seed: 21)
        // Over two marks' worth of items in every view, written by the other replica.
        try await mix.create(700, through: other.adapter)
        try await OutlineCarryTests.expectKeptAnswersAreCounted(provider, "read")
        for round in 1...4 {
            for _ in 0..<30 { try await mix.step(other.adapter) }
            try await Self.expectCarried(provider, "round \(round)")
            try await OutlineCarryTests.expectKeptAnswersAreCounted(provider, "round \(round)")
        }
        // A write of this replica after the other's: carried over both, from the log.
        for _ in 0..<10 {
            try await mix.step(other.adapter)
            try await mix.step(subject.adapter)
        }
        try await Self.expectCarried(provider, "both replicas")
        try await OutlineCarryTests.expectKeptAnswersAreCounted(provider, "both replicas")
    }

    @Test(
        "a write by another program breaks the chain of logged steps: the outline is not carried over it",
        arguments: [WritableKind.sqlite, .postgres]
    )
    func anOutsideWriteIsNotCarried(kind: WritableKind) async throws {
        let subject = try await WritableSubject(kind)
        let provider = try #require(subject.adapter.provider as? any SQLDataProvider)
        let other = try #require(try await subject.replica())
        var mix = WriteMix(seed: 22)
        try await mix.create(400, through: other.adapter)
        for view in try OutlineCarryTests.views() { _ = try await provider.reader.outline(of: view) }
        try await subject.writeBehindTheServicesBack("UPDATE notes SET title = 'outside' WHERE id = 'n-7'")
        for _ in 0..<5 { try await mix.step(other.adapter) }
        var told = 0
        for view in try OutlineCarryTests.views() {
            _ = try await provider.sectionCounts(of: view)
            let stamp = try await provider.reader.currentStamp()
            // None while it is read again in the background: not carried.
            guard let outline = provider.reader.outlines.latest(view.binding) else {
                told += 1
                continue
            }
            guard Self.tellsCarriedFromRead(outline) else { continue }
            told += 1
            // Either the one read anew or the old one, which a lookup counts beside.
            #expect(outline.stamp != stamp || Self.isRead(outline), "\(view.binding) carried over an outside write")
        }
        #expect(told >= 3)
        try await OutlineCarryTests.expectKeptAnswersAreCounted(provider, "after the outside write")
    }

    @Test("the logged steps are pruned with the change log's history", arguments: [WritableKind.sqlite, .postgres])
    func stepsArePrunedWithTheHistory(kind: WritableKind) async throws {
        let subject = try await WritableSubject(kind, history: 20)
        let provider = try #require(subject.adapter.provider as? any SQLDataProvider)
        var mix = WriteMix(seed: 23)
        for _ in 0..<60 { try await mix.step(subject.adapter) }
        let version = try await provider.reader.transactions.read { session in
            try await StoreVersion.current(session)
        }
        let oldest = try await provider.reader.transactions.read { session in
            try await session.rows("SELECT MIN(version), COUNT(*) FROM \(StampSteps.table) WHERE list = 'notes'", [])
        }
        let first = try #require(oldest.first)
        #expect(first[1].integerValue ?? 0 > 0)
        #expect(first[1].integerValue ?? 0 <= 20)
        #expect(first[0].integerValue ?? 0 > version - 20)
    }
}
