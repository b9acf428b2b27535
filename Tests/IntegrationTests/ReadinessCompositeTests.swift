import DataMediatorSQL
import Testing

@testable import data_mediator

/// `GET /ready` names the composites that show a list that cannot be served (its table
/// gone, say), themselves or through a composite they show: their pages answer `503` too,
/// and an operator reading only the lists' names would not know.
@Suite struct ReadinessCompositeTests {
    static let yaml = """
        store:
          sqlite: data.sqlite
        lists:
          tasks:
            table: tasks
            fields: {title: string}
            views:
              all:
                sort: [title]
          notes:
            table: notes
            fields: {title: string}
            views:
              all:
                sort: [title]
          inner:
            compose:
              - {name: some, list: tasks}
          outer:
            compose:
              - {name: welcome, section: hello, items: [{id: hi, type: text, data: {text: hi}}]}
              - {name: nested, list: inner}
              - {name: more, list: notes}
          aside:
            compose:
              - {name: few, list: notes}
        """

    @Test func aCompositeShowingAListThatCannotBeServedIsNamed() throws {
        var loader = ConfigFileLoader(file: "lists.yaml", baseDirectory: "/data")
        let composites = try loader.parse(Self.yaml).composites
        let problem = SourceCheck.cannotServe("tasks") + ": its table 'tasks' is gone."
        let said = try #require(Wiring.compositesProblem(problem, composites: composites))
        #expect(said.contains("Composite 'inner' cannot be served: it shows 'tasks'"), "\(said)")
        #expect(said.contains("Composite 'outer' cannot be served: it shows 'inner'"), "\(said)")
        #expect(!said.contains("'aside'"), "\(said)")
        // A list whose name another's begins with is not taken for it.
        let other = SourceCheck.cannotServe("notes_old") + ": its table 'notes_old' is gone."
        #expect(Wiring.compositesProblem(other, composites: composites) == nil)
        #expect(Wiring.compositesProblem("The store's file cannot be read right now.", composites: composites) == nil)
    }
}
