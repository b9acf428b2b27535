import DataMediatorTesting
import Testing

@testable import DataMediator
@testable import DataMediatorSQL

/// The service's own writes carry the kept outlines of a view over to the new stamp of its
/// table (sections counted and items placed without reading the view again), and what the
/// carried outlines answer is what counting the rows answers.
@Suite struct OutlineCarryTests {
    /// Every view of the sample list, and one slice.
    static func views() throws -> [View] {
        try SampleList.views.map { try SampleList.definition.view(named: $0.name) }
            + [try SampleList.definition.view(named: "by_day", slice: SliceRequest(parameters: ["kind": ["odd"]]))]
    }

    /// The sections of `view` as a client sees them: id, title and count.
    static func shown(_ counts: SectionCounts, in view: View) -> [String] {
        counts.entries.map { entry in
            let id = view.section.map { $0.id(for: entry.key) } ?? view.name
            let title = view.section.map { $0.title(for: entry.key) ?? "" } ?? ""
            return "\(id) \(title) \(entry.count)"
        }
    }

    /// The kept answers of every view (sections, and the place of every 7th item) equal
    /// those counted from the rows.
    static func expectKeptAnswersAreCounted(_ provider: any SQLDataProvider, _ label: String) async throws {
        for view in try views() {
            // The outline at the stamp now, read and waited for (a request only starts it).
            _ = try await provider.reader.outline(of: view)
            let stamp = try await provider.reader.currentStamp()
            #expect(provider.reader.outlines.latest(view.binding)?.stamp == stamp, "\(label) \(view.binding)")
            let counted = try await provider.reader.sectionCounts(of: view)
            let kept = try await provider.sectionCounts(of: view)
            #expect(shown(kept, in: view) == shown(counted, in: view), "\(label) \(view.binding)")
            var start: Position?
            var ids: [String] = []
            repeat {
                let window = try await provider.window(of: view, from: start, inclusive: false, limit: 7)
                ids += window.items.compactMap(\.["id"].idString).prefix(1)
                start = window.items.count == 7 ? window.items.last.map(view.position(of:)) : nil
            } while start != nil
            for id in ids {
                let fresh = try #require(try await provider.reader.locate(id: id, in: view))
                let place = try #require(try await provider.locate(id: id, in: view))
                #expect(
                    [place.position, place.sectionIndex, place.itemIndex]
                        == [fresh.position, fresh.sectionIndex, fresh.itemIndex],
                    "\(label) \(view.binding) \(id)"
                )
            }
        }
    }

    @Test(
        "outlines follow the service's writes without reading the view again, and answer as the rows do",
        arguments: [WritableKind.sqlite, .postgres]
    )
    func outlinesFollowTheServicesWrites(kind: WritableKind) async throws {
        let subject = try await WritableSubject(kind)
        let adapter = subject.adapter
        let provider = try #require(adapter.provider as? any SQLDataProvider)
        var mix = WriteMix(seed: 11)
        // Over two marks' worth of items in every view.
        try await mix.create(700, through: adapter)
        try await Self.expectKeptAnswersAreCounted(provider, "read")
        for step in 1...120 {
            try await mix.step(adapter)
            // Carried over by the write itself: kept at the table's stamp before any read.
            let stamp = try #require(try await provider.reader.currentStamp())
            for view in try Self.views() {
                #expect(provider.reader.outlines.latest(view.binding)?.stamp == stamp, "\(step) \(view.binding)")
            }
            if step.isMultiple(of: 30) { try await Self.expectKeptAnswersAreCounted(provider, "step \(step)") }
        }
    }

    @Test("a gap between marks grown too long by writes makes the outline read again", arguments: [WritableKind.sqlite])
    func aLongGapIsReadAgain(kind: WritableKind) async throws {
        let subject = try await WritableSubject(kind)
        let adapter = subject.adapter
        let provider = try #require(adapter.provider as? any SQLDataProvider)
        var mix = WriteMix(seed: 12)
        for index in 0..<300 {
            _ = try await adapter.create(body: .object(["id": .string("a-\(index)"), "data": mix.data()]))
        }
        let flat = try SampleList.definition.view(named: "flat")
        _ = try await provider.reader.outline(of: flat)
        // Every new item lands in the last gap of `flat` (score 99, the highest).
        var dropped = false
        for index in 0..<(ViewOutline.longestGap + 1) {
            let data: JSONValue = .object(["group": .string("beta"), "score": .integer(99), "title": .string("z")])
            _ = try await adapter.create(body: .object(["id": .string("z-\(index)"), "data": data]))
            let stamp = try await provider.reader.currentStamp()
            if provider.reader.outlines.latest(flat.binding)?.stamp != stamp { dropped = true }
        }
        #expect(dropped)
        try await Self.expectKeptAnswersAreCounted(provider, "after the long gap")
    }

    @Test("a view written at its head keeps its outline however many rows come first", arguments: [WritableKind.sqlite])
    func aViewWrittenAtItsHeadKeepsItsOutline(kind: WritableKind) async throws {
        let subject = try await WritableSubject(kind)
        let adapter = subject.adapter
        let provider = try #require(adapter.provider as? any SQLDataProvider)
        var mix = WriteMix(seed: 13)
        for index in 0..<300 {
            _ = try await adapter.create(body: .object(["id": .string("a-\(index)"), "data": mix.data()]))
        }
        let byDay = try SampleList.definition.view(named: "by_day")
        _ = try await provider.reader.outline(of: byDay)
        // Newest first: each row, later than every other, becomes the view's first item.
        for index in 0..<(3 * ViewOutline.longestGap) {
            let data: JSONValue = .object(["created": .string("2026-12-01T10:00:00Z"), "title": .string("h")])
            _ = try await adapter.create(body: .object(["id": .string("h-\(1000 + index)"), "data": data]))
            let stamp = try await provider.reader.currentStamp()
            #expect(provider.reader.outlines.latest(byDay.binding)?.stamp == stamp, "\(index)")
        }
        try await Self.expectKeptAnswersAreCounted(provider, "after writes at the head")
    }

    /// An outline asked for at the stamp before a write but read in a snapshot taken after
    /// the write committed (its pass ran while the write did) holds the write already: the
    /// write's carry keeps it as read. Applied again, a delete left its section one short,
    /// every mark after it one off, and each later write carried that on (review 82).
    @Test(arguments: [WritableKind.sqlite, .postgres])
    func anOutlineReadAfterAWriteIsNotCarriedOverItAgain(kind: WritableKind) async throws {
        let subject = try await WritableSubject(kind)
        let adapter = subject.adapter
        let provider = try #require(adapter.provider as? any SQLDataProvider)
        var mix = WriteMix(seed: 14)
        try await mix.create(200, through: adapter)
        let view = try SampleList.definition.view(named: "by_day")
        let before = try #require(try await provider.reader.currentStamp())
        let row = try #require(try await provider.window(of: view, from: nil, inclusive: false, limit: 5).items.last)
        let id = row["id"].idString
        let version = try await adapter.delete(id: id)
        let after = try #require(try await provider.reader.currentStamp())
        #expect(after == before + 1)
        // The pass asked for at the stamp before reads the table as it is now.
        let read = try await provider.reader.outlines.value(view.binding, stamp: before) {
            try await provider.reader.readOutline(of: view)
        }
        #expect(read.stamp == after)
        let write = OutlineWrite(old: row, new: nil, version: version, placements: [:])
        OutlineCarry(before: before, after: after, writes: [(provider.reader, write)]).apply()
        let kept = try #require(provider.reader.outlines.latest(view.binding))
        #expect(kept.stamp == after)
        let counted = try await provider.reader.sectionCounts(of: view)
        #expect(Self.shown(kept.counts, in: view) == Self.shown(counted, in: view))
        try await Self.expectKeptAnswersAreCounted(provider, "after the carry")
    }
}
