import DataMediator
import DataMediatorTesting
import Testing

/// The replica the change tests compare with fresh walks keeps the view's order when changes
/// put more items after a gone last item than the next page shows.
@Suite struct ListReplicaTests {
    static func page(_ sections: [(String, [String])], next: String?) -> Page {
        Page(
            list: "l",
            view: "v",
            limit: 5,
            version: 1,
            sections: sections.map { section in
                PageSection(
                    id: section.0,
                    kind: .items,
                    title: nil,
                    continues: false,
                    items: section.1.map { Cell(id: $0, type: "row", rev: "1", data: .object([:])) }
                )
            },
            next: next
        )
    }

    static func insert(
        _ id: String,
        in section: String,
        after: String?,
        sectionAfter: String? = nil
    )
        -> ChangeSet.Entry
    {
        ChangeSet.Entry(
            operation: .insert,
            version: 2,
            id: id,
            cell: Cell(id: id, type: "row", rev: "1", data: .object([:])),
            placement: Placement(section: section, sectionAfter: sectionAfter, after: after)
        )
    }

    @Test func itemsPutPastTheNextPageDoNotStayBeforeIt() {
        var replica = ListReplica()
        replica.add(Self.page([("a", ["1", "2", "3"])], next: "after-3"))
        replica.apply(ChangeSet.Entry(operation: .delete, version: 2, id: "3", cell: nil, placement: nil))
        var previous = "2"
        for id in ["n1", "n2", "n3", "n4"] {
            replica.apply(Self.insert(id, in: "a", after: previous))
            previous = id
        }
        replica.apply(Self.insert("b1", in: "b", after: nil, sectionAfter: "a"))
        replica.add(Self.page([("a", ["n1", "n2"])], next: "after-n2"))
        #expect(replica.outline == ["[a]", "1@1", "2@1", "n1@1", "n2@1"])
        replica.add(Self.page([("a", ["n3", "n4"]), ("b", ["b1"])], next: nil))
        #expect(replica.outline == ["[a]", "1@1", "2@1", "n1@1", "n2@1", "n3@1", "n4@1", "[b]", "b1@1"])
    }

    @Test func anItemAfterAnotherOfASectionNotHeldIsNotPutBesideTheHeldOnes() {
        var replica = ListReplica()
        replica.add(Self.page([("a", ["1", "2"])], next: "after-2"))
        replica.apply(ChangeSet.Entry(operation: .delete, version: 2, id: "2", cell: nil, placement: nil))
        replica.apply(Self.insert("far", in: "b", after: "b-unloaded", sectionAfter: "a"))
        #expect(replica.outline == ["[a]", "1@1"])
        #expect(replica.unknownNeighbours == 0, "past the boundary while walking, not unknown")
    }
}
