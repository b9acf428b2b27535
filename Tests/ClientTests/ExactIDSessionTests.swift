import DataMediatorClient
import Testing

/// The client kit tells ids apart by their bytes, as the service does: "é" as U+00E9 and
/// as "e" + U+0301 (one string to Swift's `==`) are two items and two sections. A page
/// holding both was refused as naming one item twice, a snapshot found one path for both,
/// and a diff took one section for the other.
@Suite struct ExactIDSessionTests {
    static let composed = "\u{E9}"
    static let decomposed = "e\u{301}"

    @Test func aPageWithIdsThatDifferOnlyInTheirUnicodeFormIsTwoItemsInTwoSections() async throws {
        func section(_ id: String, _ escaped: String) -> String {
            #"{"id":"\#(escaped)","kind":"items","title":"\#(escaped)","continues":false,"#
                + #""items":[{"id":"\#(escaped)q","type":"row","rev":"1","data":{}}]}"#
        }
        let page =
            #"{"list":"l","view":"v","version":"3","sections":["#
            + section(Self.decomposed, "e\\u0301") + "," + section(Self.composed, "\\u00e9")
            + #"],"next":null,"prev":null}"#
        let session = ListSession(
            configuration: ListSessionConfiguration(list: "l"),
            transport: FixedAnswerTransport(answer: TransportAnswer(status: 200, body: Array(page.utf8)))
        )
        try await session.loadFirstPage()
        let snapshot = await session.snapshot
        #expect(snapshot.itemCount == 2 && snapshot.sections.count == 2)
        #expect(snapshot.path(of: Self.decomposed + "q") == ItemPath(section: 0, item: 0))
        #expect(snapshot.path(of: Self.composed + "q") == ItemPath(section: 1, item: 0))
        #expect(snapshot.item(id: Self.composed + "q")?.id.utf8.elementsEqual((Self.composed + "q").utf8) == true)
    }

    @Test func aDiffTellsSectionsAndItemsThatDifferOnlyInTheirUnicodeFormApart() throws {
        let old = BatchUpdateTests.snapshot([(Self.composed, ["1", Self.composed])])
        let new = BatchUpdateTests.snapshot([
            (Self.decomposed, [Self.decomposed]), (Self.composed, ["1", Self.composed]),
        ])
        let batch = try BatchUpdateTests.expectRoundTrip(old, new)
        #expect(batch.insertedSections == [0] && batch.deletedSections.isEmpty)
        #expect(batch.insertedItemIDs.map { Array($0.utf8) } == [Array(Self.decomposed.utf8)])
        #expect(batch.movedItems.isEmpty && batch.deletedItemIDs.isEmpty)
    }
}
