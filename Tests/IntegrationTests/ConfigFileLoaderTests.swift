import DataMediator
import Foundation
import Testing

@testable import data_mediator

/// Config files: what they declare, and every error named with its line and fix.
@Suite struct ConfigFileLoaderTests {
    func errors(_ yaml: String) -> [ConfigFileError] {
        var loader = ConfigFileLoader(file: "test.yaml", baseDirectory: "/srv")
        do {
            _ = try loader.parse(yaml)
            return []
        } catch {
            return error.errors
        }
    }

    static let valid = """
        store:
          sqlite: data.sqlite
        lists:
          tasks:
            title: Tasks
            table: tasks
            fields: {title: string, due: string, done: boolean, size: integer}
            limit: {default: 5, max: 50}
            views:
              by_due:
                default: true
                sort: [due, -size]
                section: {field: due, by: month, title: "Due {key}"}
                filter:
                  - {field: done, op: eq, value: false}
                cell: {field: size, types: [small, large], default: task}
                fields: [title, due]
              all:
                sort: [-size]
        """

    @Test func aValidFileDeclaresItsListsAndViews() throws {
        var loader = ConfigFileLoader(file: "test.yaml", baseDirectory: "/srv")
        let configuration = try loader.parse(Self.valid)
        #expect(configuration.store == .sqlite("/srv/data.sqlite"))
        let list = try #require(configuration.lists.first)
        #expect(list.definition.name == "tasks" && list.line == 5)
        #expect(list.definition.limits == PageLimits(defaultLimit: 5, maximumLimit: 50))
        let view = try list.definition.view(named: nil)
        #expect(view.name == "by_due")
        #expect(view.sort == [SortKey("due"), SortKey("size", .descending), SortKey("id", .descending)])
        #expect(view.section == SectionRule(field: "due", grouping: .month, titleTemplate: "Due {key}"))
        #expect(view.filter == [FilterCondition(field: "done", op: .eq, value: .bool(false))])
        #expect(view.cellTypes == ["small", "large", "task", "loading"])
        #expect(try list.definition.view(named: "all").fields == ["title", "due", "done", "size"])
    }

    @Test func parametersAndScopesAreCheckedWithTheirLineAndFix() throws {
        let yaml = """
            store:
              sqlite: data.sqlite
            lists:
              tasks:
                table: tasks
                fields: {title: string, owner: string, size: integer, meta: json}
                scope: {field: boss, claim: sub}
                views:
                  all:
                    sort: [title]
                    params:
                      size: {field: size, required: true}
                      nope: missing
                      meta: meta
                      limit: title
            """
        let messages = errors(yaml).map { "\($0.line): \($0.message)" }
        #expect(messages.contains { $0.hasPrefix("7:") && $0.contains("scoped by 'boss'") }, "\(messages)")
        #expect(
            messages.contains { $0.hasPrefix("12:") && $0.contains("declares 4 parameters; at most 3") },
            "\(messages)"
        )
        #expect(messages.contains { $0.contains("parameter 'nope' filters on 'missing'") }, "\(messages)")
        #expect(messages.contains { $0.contains("parameter 'meta' filters on 'meta', a json field") }, "\(messages)")
        #expect(messages.contains { $0.contains("parameter name 'limit'") }, "\(messages)")
        var loader = ConfigFileLoader(file: "test.yaml", baseDirectory: "/srv")
        let good = try loader.parse(
            """
            store:
              sqlite: data.sqlite
            lists:
              tasks:
                table: tasks
                fields: {title: string, owner: string, size: integer}
                scope: {field: owner, claim: sub}
                views:
                  all:
                    sort: [title]
                    params: {size: {field: size, required: true}, who: title}
            """
        )
        let list = try #require(good.lists.first).definition
        #expect(list.scope == ListScope(field: "owner", claim: "sub"))
        #expect(
            try list.view(named: "all").parameters == [
                ViewParameter(name: "size", field: "size", type: .integer, isRequired: true),
                ViewParameter(name: "who", field: "title", type: .string, isRequired: false),
            ]
        )
    }

    @Test func aCompositeChildFixesItsViewsParameters() throws {
        func yaml(_ params: String) -> String {
            """
            store:
              sqlite: data.sqlite
            lists:
              tasks:
                table: tasks
                fields: {title: string, size: integer}
                views:
                  sized:
                    sort: [title]
                    params: {size: {field: size, required: true}}
              screen:
                compose:
                  - {name: small, list: tasks, view: sized\(params)}
            """
        }
        var loader = ConfigFileLoader(file: "test.yaml", baseDirectory: "/srv")
        let good = try loader.parse(yaml(", params: {size: 1}"))
        guard case .list(_, _, let parameters) = try #require(good.composites.first?.children.first).content else {
            Issue.record("not a list child")
            return
        }
        #expect(parameters == ["size": "1"])
        let missing = errors(yaml("")).map(\.message)
        #expect(missing.contains { $0.contains("needs parameter 'size'; give it under 'params:'") }, "\(missing)")
        // A missing parameter does not hide an unknown one.
        let both = errors(yaml(", params: {colour: red}")).map(\.message)
        #expect(both.contains { $0.contains("needs parameter 'size'") }, "\(both)")
        #expect(both.contains { $0.contains("gives parameter 'colour'") }, "\(both)")
        let wrong = errors(yaml(", params: {size: x}")).map(\.message)
        #expect(wrong.contains { $0.contains("must be an integer") }, "\(wrong)")
        let listed = errors(yaml(", params: {size: [1]}")).map(\.message)
        #expect(listed.contains { $0.contains("gives parameter 'size' no single value") }, "\(listed)")
        let unknown = errors(yaml(", params: {size: 1, colour: red}")).map(\.message)
        #expect(unknown.contains { $0.contains("parameter 'colour'") }, "\(unknown)")
    }

    /// A composite takes no parameters: a child that gives one to a composite would show
    /// the whole of it, not the slice it names.
    @Test func aChildOfAnotherCompositeGivesNoParameters() throws {
        let yaml = """
            store:
              sqlite: data.sqlite
            lists:
              tasks:
                table: tasks
                fields: {title: string, size: integer}
                views:
                  sized:
                    sort: [title]
                    params: {size: size}
              inner:
                compose:
                  - {name: some, list: tasks, view: sized, params: {size: 1}}
              outer:
                compose:
                  - {name: nested, list: inner, params: {size: 2}}
            """
        let messages = errors(yaml).map(\.message)
        #expect(
            messages.contains {
                $0.contains(
                    "child 'nested' of 'outer' gives parameter 'size', but it shows composite 'inner', which takes none"
                )
            },
            "\(messages)"
        )
    }

    @Test func theDemoConfigIsValid() throws {
        var loader = ConfigFileLoader(file: "demo", baseDirectory: "/data")
        let configuration = try loader.parse(DemoConfig.yaml)
        #expect(configuration.lists.map(\.definition.name) == ["transactions", "mine", "highscore", "expansions"])
        #expect(configuration.composites.map(\.name) == ["home"])
        #expect(configuration.order == ["transactions", "mine", "highscore", "expansions", "home"])
        let mine = try #require(configuration.lists.first { $0.definition.name == "mine" }).definition
        #expect(mine.scope == ListScope(field: "player", claim: "sub") && mine.isWritable)
        let transactions = try #require(configuration.lists.first).definition
        let game = try transactions.view(named: "game")
        #expect(game.parameters == [ViewParameter(name: "game", field: "game", type: .integer, isRequired: true)])
    }

    @Test(
        "each mistake is named with its line and a fix",
        arguments: [
            (
                "store:\n  sqlite: a\nlists:\n  x:\n    table: t\n    fields: {a: string}\n    colour: red\n    views:\n      v: {sort: [a]}\n",
                7, "unknown key 'colour'"
            ),
            (
                "store:\n  sqlite: a\nlists:\n  x:\n    table: t\n    fields: {a: string}\n    views:\n      v: {sort: [a], sectoin: a}\n",
                8, "unknown key 'sectoin'"
            ),
            (
                "store:\n  sqlite: a\nlists:\n  x:\n    table: t\n    fields: {a: string, b: string}\n    views:\n      v:\n        sort: [a]\n        section: b\n",
                10, "must be the leading sort key"
            ),
            (
                "store:\n  sqlite: a\nlists:\n  x:\n    table: t\n    fields: {a: string}\n    views:\n      v: {sort: [nope]}\n",
                8, "'nope', which is not a field"
            ),
            (
                "store:\n  sqlite: a\nlists:\n  x:\n    table: t\n    fields: {a: strin}\n    views:\n      v: {sort: [a]}\n",
                6, "unknown type 'strin'"
            ),
            (
                "store:\n  sqlite: a\nlists:\n  x:\n    fields: {a: string}\n    views:\n      v: {sort: [a]}\n", 5,
                "needs a source"
            ),
            (
                "store:\n  sqlite: a\nlists:\n  x:\n    table: t\n    fields: {a: string}\n    limit: {default: 50, max: 10}\n    views:\n      v: {sort: [a]}\n",
                7, "above 'limit.max'"
            ),
            (
                "store:\n  sqlite: a\nlists:\n  x:\n    table: t\n    fields: {a: string}\n    limit: {max: 1000000000}\n    views:\n      v: {sort: [a]}\n",
                7, "the most items a page may hold"
            ),
            (
                "store:\n  sqlite: a\nlists:\n  x:\n    table: t\n    fields: {a: string}\n    limit: {max: 99999999999999999999999}\n    views:\n      v: {sort: [a]}\n",
                7, "'limit.max' must be a whole number of at least 1 and at most \(PageLimits.upperBound)"
            ),
            (
                "store:\n  sqlite: a\nlists:\n  x:\n    table: t\n    fields: {a: string}\n    views:\n      v: {sort: [a], default: true}\n      w: {sort: [a], default: true}\n",
                8, "marks 2 views as default"
            ),
            (
                "store:\n  sqlite: a\nlists:\n  x:\n    table: t\n    fields: {a: string}\n    views:\n      v: {sort: [a], cell: loading}\n",
                8, "kept for the loading section"
            ),
            (
                "store:\n  sqlite: a\nlists:\n  x:\n    table: t\n    fields: {a: string}\n    views:\n      v: {sort: [a, -a]}\n",
                8, "sorts by 'a' twice"
            ),
            (
                "store:\n  sqlite: a\nlists:\n  x y:\n    table: t\n    fields: {a: string}\n    views:\n      v: {sort: [a]}\n",
                4, "may only hold letters"
            ),
            (
                "store:\n  sqlite: a\nlists:\n  '..':\n    table: t\n    fields: {a: string}\n    views:\n      v: {sort: [a]}\n",
                4, "list name '..' is a dot segment"
            ),
            (
                "store:\n  sqlite: a\nlists:\n  t:\n    table: t\n    fields: {a: string}\n    views:\n      v: {sort: [a]}\n"
                    + "  .:\n    compose:\n      - {name: a, list: t}\n",
                9, "list name '.' is a dot segment"
            ),
            (
                "store:\n  sqlite: a\nlists:\n  x:\n    table: t\n    fields: {a: string}\n    views:\n      v: {sort: [a], filter: [{field: a, op: like, value: 1}]}\n",
                8, "use one of 'eq'"
            ),
            ("store:\n  sqlite: a\nlists: [\n", 3, "YAML syntax"),
            (
                "lists:\n  x:\n    table: t\n    fields: {a: string}\n    views:\n      v: {sort: [a]}\n", 1,
                "missing 'store'"
            ),
            (
                "store:\n  sqlite: a\nlists:\n  x:\n    table: t\n    fields: {id: number, a: string}\n"
                    + "    views:\n      v: {sort: [a]}\n", 6, "the id field 'id' has type 'number'"
            ),
            (
                "store:\n  sqlite: a\nlists:\n  x:\n    table: t\n    fields: {id: string}\n    required: [x]\n"
                    + "    views:\n      v: {sort: [id]}\n", 7, "not a writable field of list 'x'; it has none"
            ),
            // JSON holds no NaN: a filter on it matched nothing, a static item showed it as null.
            (
                "store:\n  sqlite: a\nlists:\n  x:\n    table: t\n    fields: {a: number}\n    views:\n"
                    + "      v: {sort: [a], filter: [{field: a, op: lt, value: .nan}]}\n", 8,
                "'.nan' is not a finite number"
            ),
            // JSON has no order: lt on a json field compared its JSON text.
            (
                "store:\n  sqlite: a\nlists:\n  x:\n    table: t\n    fields: {a: string, j: json}\n    views:\n"
                    + "      v: {sort: [a], filter: [{field: j, op: lt, value: 5}]}\n", 8,
                "which is json and has no order"
            ),
            // A whole number past 64 bits is no integer: it was read as null, which matched nulls.
            (
                "store:\n  sqlite: a\nlists:\n  x:\n    table: t\n    fields: {n: integer}\n    views:\n"
                    + "      v: {sort: [n], filter: [{field: n, op: eq, value: 99999999999999999999}]}\n", 8, "'n'"
            ),
        ]
    )
    func mistakesAreNamed(yaml: String, line: Int, message: String) {
        let found = errors(yaml)
        #expect(found.contains { $0.line == line && $0.message.contains(message) }, "\(found)")
        #expect(found.allSatisfy { $0.description.hasPrefix("test.yaml:") })
    }

    static let base =
        "store:\n  sqlite: a\nlists:\n  t:\n    table: t\n    fields: {a: string}\n    views:\n      v: {sort: [a]}\n"

    @Test(
        "composite mistakes are named with their line and a fix",
        arguments: [
            (
                "  c:\n    compose:\n      - {name: x, list: nope}\n", 11,
                "list 'nope', which is not declared; use one of 't'\n"
            ),
            ("  c:\n    compose:\n      - {name: x, list: t, view: w}\n", 11, "view 'w', which list 't' does not have"),
            (
                "  c:\n    compose:\n      - {name: x, list: d}\n  d:\n    compose:\n      - {name: y, list: c}\n", 9,
                "contains itself: c -> d -> c"
            ),
            ("  c:\n    compose:\n      - {name: x, list: c}\n", 9, "contains itself: c -> c"),
            ("  c:\n    compose:\n      - {name: x, list: t, more: true}\n", 11, "'more: true' without 'limit'"),
            ("  c:\n    compose:\n      - {name: x, list: t, limit: 1001}\n", 11, "'limit' 1001, above 1000"),
            (
                "  c:\n    compose:\n      - {name: x, list: t}\n      - {name: x, list: t}\n", 12,
                "two children named 'x'"
            ),
            ("  c:\n    compose:\n      - {name: a/b, list: t}\n", 11, "may only hold letters"),
            ("  c:\n    compose:\n      - {name: s, items: [{id: 1}]}\n", 11, "missing 'type'"),
            ("  c:\n    compose: []\n", 10, "has no children"),
            (
                "  c:\n    compose:\n      - name: s\n        items: [{id: a, type: loading}]\n", 12,
                "kept for the loading section"
            ),
            ("  c:\n    compose:\n      - {name: x, list: t, colour: red}\n", 11, "unknown key 'colour'"),
        ]
    )
    func compositeMistakesAreNamed(lists: String, line: Int, message: String) {
        let found = errors(Self.base + lists)
        #expect(found.contains { $0.line == line && ($0.message + "\n").contains(message) }, "\(found)")
        // Each points at what it is about (the child's or the composite's node), not at column 1.
        #expect(found.allSatisfy { $0.column > 1 }, "\(found)")
    }

    /// A child naming a declared list or composite that has errors of its own is not told
    /// that the list is not declared: only the broken one's errors are reported.
    @Test func aChildOfABrokenListGetsNoErrorOfItsOwn() {
        let found = errors(
            Self.base
                + "  b:\n    table: b\n    fields: {a: string}\n    colour: red\n    views:\n      v: {sort: [a]}\n"
                + "  d:\n    compose: []\n"
                + "  c:\n    compose:\n      - {name: x, list: b}\n      - {name: y, list: d}\n"
        )
        #expect(found.contains { $0.message.contains("unknown key 'colour'") }, "\(found)")
        #expect(found.contains { $0.message.contains("has no children") }, "\(found)")
        #expect(!found.contains { $0.message.contains("not declared") }, "\(found)")
        #expect(found.count == 2, "\(found)")
    }

    @Test func aCompositeIsReadWithItsChildrenInOrder() throws {
        var loader = ConfigFileLoader(file: "test.yaml", baseDirectory: "/data")
        let configuration = try loader.parse(
            Self.base
                + "  c:\n    title: Screen\n    view: screen\n    compose:\n"
                + "      - {name: hi, title: Hello, items: [{id: 1, type: banner, data: {text: hi, n: [1, 2.5, true, null]}}]}\n"
                + "      - {name: top, list: t, limit: 2, more: true}\n"
        )
        let composite = try #require(configuration.composites.first)
        #expect(composite.name == "c" && composite.title == "Screen" && composite.viewName == "screen")
        #expect(composite.children.map(\.name) == ["hi", "top"])
        guard case .section(let id, let title, let cells) = composite.children[0].content,
            case .list(let list, let view, let parameters) = composite.children[1].content
        else {
            Issue.record("children of the wrong kinds")
            return
        }
        #expect(id == "hi" && title == "Hello" && cells.map(\.id) == ["1"] && cells.first?.type == "banner")
        #expect(
            cells.first?.data
                == .object([
                    "text": .string("hi"), "n": .array([.integer(1), .number(2.5), .bool(true), .null]),
                ])
        )
        #expect(list == "t" && view == nil && parameters.isEmpty && composite.children[1].cap == 2)
        #expect(composite.children[1].more)
        #expect(configuration.order == ["t", "c"])
    }

    @Test func aWritableListGetsARevisionColumnAndFieldRules() throws {
        var loader = ConfigFileLoader(file: "test.yaml", baseDirectory: "/srv")
        let yaml = Self.valid.replacingOccurrences(
            of: "    table: tasks\n",
            with: "    table: tasks\n    writable: true\n    required: [title]\n"
        )
        let list = try #require(try loader.parse(yaml).lists.first?.definition)
        #expect(list.isWritable && list.revisionField == "rev")
        #expect(list.rules.types == ["title": .string, "due": .string, "done": .boolean, "size": .integer])
        #expect(list.rules.required == ["title"])
        // The fields the views sort and section by (and the id) are keys, whose text is bounded.
        #expect(list.rules.keyFields.isSuperset(of: Set(list.views.flatMap { $0.sort.map(\.field) })))
        let refused = errors(yaml.replacingOccurrences(of: "table: tasks", with: "query: SELECT 1"))
        #expect(refused.contains { $0.message.contains("over a query, which is read-only") })
        let unknownRequired = errors(yaml.replacingOccurrences(of: "required: [title]", with: "required: [nope]"))
        #expect(unknownRequired.contains { $0.message.contains("'required' names 'nope'") })
    }
}
