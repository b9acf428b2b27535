import DataMediator
import Testing

@testable import data_mediator

/// What a view is known by is part of what a release promises: cursors clients hold carry
/// it, and the change log keys a view's history by it. A change of these bytes ends every
/// cursor out there, or hides every history (review 102: an upgrade did both, with every
/// test passing). The values were computed apart from this code (Python's `hashlib` over
/// the shape's JSON, sorted keys, no spaces), from the demo's config.
@Suite struct ViewBindingTests {
    @Test func theDemosBindingsAreTheDocumentedBytes() throws {
        var loader = ConfigFileLoader(file: "demo", baseDirectory: "/data")
        let configuration = try loader.parse(DemoConfig.yaml)
        let transactions = try #require(configuration.lists.first { $0.definition.name == "transactions" })
        let chronological = try transactions.definition.view(named: "chronological")
        // As every release before 2026-12-07 bound it.
        #expect(chronological.cursorBinding == "chronological@36863477d9043b7a1b3f84bf")
        // Its integer id bound too, in what new cursors carry.
        #expect(chronological.typedCursorBinding == "chronological@36863477d9043b7a1b3f84bf~af3b7e597f4870826fe6cb1f")
    }

    /// The demo's composite `home`, over its children's views: its binding as releases before
    /// 2026-12-07 had it, and its children's types in what new cursors carry.
    @Test func theDemosCompositeBindingIsTheDocumentedBytes() throws {
        var loader = ConfigFileLoader(file: "demo", baseDirectory: "/data")
        let configuration = try loader.parse(DemoConfig.yaml)
        let signer = CursorSigner(secret: Array("view-binding-tests-secret".utf8))
        let lists = configuration.lists.map { list in
            ListAdapter(
                definition: list.definition,
                provider: ArrayDataProvider(items: [], idField: list.definition.idField, views: list.definition.views),
                signer: signer
            )
        }
        let home = try #require(
            Wiring.composites(configuration.composites, over: lists, signer: signer, notifier: ChangeNotifier()).first
        )
        let view = try home.definition.view(named: nil)
        #expect(view.cursorBinding == "all@f46ce937f860d7958862a823")
        #expect(view.typedCursorBinding == "all@f46ce937f860d7958862a823~109f016d3f03f6232902dce2")
    }
}
