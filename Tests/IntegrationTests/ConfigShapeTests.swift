import DataMediator
import Foundation
import Testing

@testable import data_mediator

/// Keys that must be one non-empty value are refused, with their line, when they are a list,
/// a mapping, empty or `~`: a scope dropped for a malformed one served the list to everyone.
/// A list's table is never one of the service's own (nor SQLite's in a SQLite store), nor a
/// name its catalog reads fail on.
@Suite struct ConfigShapeTests {
    /// The errors of a file with one list whose list-level keys are `keys` and whose view
    /// `all` has `view` besides its sort, as `line: message`.
    static func errors(
        keys: String = "",
        view: String = "",
        table: String = "tasks",
        fields: String = "title: string, owner: string"
    ) -> [String] {
        let yaml = """
            store:
              sqlite: data.sqlite
            lists:
              tasks:
                table: '\(table)'
                fields: {\(fields)}
            \(keys.isEmpty ? "" : "    " + keys)
                views:
                  all:
                    sort: [title]
            \(view.isEmpty ? "" : "        " + view)
            """
        var loader = ConfigFileLoader(file: "test.yaml", baseDirectory: "/srv")
        do {
            _ = try loader.parse(yaml)
            return []
        } catch {
            return error.errors.map { "\($0.line): \($0.message)" }
        }
    }

    @Test(arguments: [
        "scope: {field: [owner], claim: sub}", "scope: {field: owner, claim: {a: 1}}",
        "scope: {field: owner, claim: ''}", "scope: {field: owner, claim: ~}",
    ])
    func aScopeOfAnotherShapeIsRefused(scope: String) {
        let messages = Self.errors(keys: scope)
        #expect(messages.contains { $0.hasPrefix("7:") && $0.contains("scope's") }, "\(scope): \(messages)")
    }

    @Test(arguments: ["params: {who: {field: [title, owner]}}", "params: {who: ~}", "cell: ''", "cell: ~"])
    func aParameterOrCellOfAnotherShapeIsRefused(view: String) {
        let messages = Self.errors(view: view)
        #expect(messages.contains { $0.hasPrefix("11:") }, "\(view): \(messages)")
    }

    @Test(arguments: ["data_mediator_versions", "Data_Mediator_Changes", "we\"ird", "sqlite_master", "SQLite_Sequence"])
    func aTableOfTheServiceOrWithAQuoteIsRefused(table: String) {
        let messages = Self.errors(table: table.replacingOccurrences(of: "'", with: "''"))
        #expect(messages.contains { $0.hasPrefix("5:") && $0.contains(table) }, "\(table): \(messages)")
        let versions = Self.errors(keys: "versions: [tasks, \(table.contains("\"") ? "'\(table)'" : table)]")
        #expect(versions.contains { $0.contains(table) }, "versions \(table): \(versions)")
    }

    /// `sqlite_` names are SQLite's own; in a PostgreSQL store, a table may be named so.
    @Test func aSQLiteNameIsATableOfYoursInPostgreSQL() throws {
        var loader = ConfigFileLoader(file: "test.yaml", baseDirectory: "/srv")
        let configuration = try loader.parse(
            "store: postgres\nlists:\n  a:\n    table: sqlite_import\n    fields: {title: string}\n    views: {all: {sort: [title]}}\n"
        )
        #expect(configuration.lists.map(\.definition.name) == ["a"])
    }

    /// A json field's text would be compared with the claim (`"alice"` is not `alice`; 1,
    /// "1" and true one caller); the id is set by no write's data.
    @Test(arguments: ["id", "rev", "meta"])
    func aScopeByTheIdOrAJSONFieldIsRefused(field: String) {
        // A writable list keeps its revision in `rev`.
        let messages = Self.errors(
            keys: "writable: true\n    scope: {field: \(field), claim: sub}",
            fields: "id: string, title: string, owner: string, meta: json"
        )
        #expect(messages.contains { $0.hasPrefix("8:") && $0.contains("scoped by '\(field)'") }, "\(messages)")
        // The id and revision fields are declared: the message says what they are, not
        // that they are no field.
        let role = ["id": "its id field", "rev": "its revision field"][field] ?? "a json field"
        #expect(messages.contains { $0.contains(role) } && !messages.contains { $0.contains("not a field") })
    }

    /// Lists over one table that a writable scoped list writes are scoped by its field, or
    /// by none: a write through it sets another scope's field freely (review 98 #1: through
    /// `mine`, an item put in another team's slice of `team`; through a writable `team`,
    /// another owner's item taken).
    @Test(arguments: [
        (
            "writable: true\n    scope: {field: owner, claim: sub}",
            "writable: true\n    scope: {field: team, claim: team}", 2
        ),
        ("writable: true\n    scope: {field: owner, claim: sub}", "scope: {field: team, claim: team}", 1),
        ("scope: {field: owner, claim: sub}", "writable: true\n    scope: {field: team, claim: team}", 1),
        (
            "writable: true\n    scope: {field: owner, claim: sub}",
            "writable: true\n    scope: {field: owner, claim: email}", 0
        ),
        ("writable: true\n    scope: {field: owner, claim: sub}", "writable: true", 0),
        ("scope: {field: owner, claim: sub}", "scope: {field: team, claim: team}", 0),
        // A list over a query that reads the table (probe 86: it passed).
        (
            "writable: true\n    scope: {field: owner, claim: sub}",
            "scope: {field: team, claim: team}\n    query: 'SELECT * FROM \"Docs\"'", 1
        ),
        (
            "writable: true\n    scope: {field: owner, claim: sub}",
            "scope: {field: team, claim: team}\n    query: SELECT * FROM public.docs d", 1
        ),
        (
            "writable: true\n    scope: {field: owner, claim: sub}",
            "scope: {field: team, claim: team}\n    query: SELECT * FROM docs_archive", 0
        ),
        // A writer that does not declare the other's field cannot set it (review 102 M2);
        // a table named in another case is the same table to SQLite.
        (
            "writable: true\n    scope: {field: owner, claim: sub}\n    fields: {owner: string, title: string}",
            "scope: {field: team, claim: team}", 0
        ),
        (
            "writable: true\n    scope: {field: owner, claim: sub}",
            "table: Docs\n    scope: {field: team, claim: team}", 1
        ),
    ])
    func aWritableScopedListSharesItsTableOnlyWithListsOfItsScopeField(mine: String, team: String, refusals: Int) {
        let yaml = """
            store:
              sqlite: data.sqlite
            lists:
              mine:
                table: docs
                \(mine.contains("fields:") ? "" : "fields: {owner: string, team: string, title: string}")
                \(mine)
                views: {all: {sort: [title]}}
              team:
                \(team.contains("query:") || team.hasPrefix("table:") ? "" : "table: docs")
                fields: {owner: string, team: string, title: string}
                \(team)
                views: {all: {sort: [title]}}
            """
        var loader = ConfigFileLoader(file: "test.yaml", baseDirectory: "/srv")
        var messages: [String] = []
        do {
            _ = try loader.parse(yaml)
        } catch {
            messages = error.errors.map(\.message)
        }
        #expect(messages.count == refusals, "\(messages)")
        #expect(
            messages.allSatisfy { $0.contains("could set") && $0.contains("another caller's slice") },
            "\(messages)"
        )
    }

    /// A name given twice in a view's `fields`, a cell rule's `types` or a list's
    /// `required` or `versions` is refused (it was taken: most often a slip for another
    /// name), and a cell rule with no types (every item the default) is too.
    @Test(arguments: [
        ("", "fields: [title, owner, title]", "'fields' names 'title' twice"),
        ("", "cell: {field: owner, types: [a, b, a], default: c}", "'cell.types' names 'a' twice"),
        ("", "cell: {field: owner, types: [], default: c}", "has an empty 'cell.types'"),
        ("required: [title, title]", "", "'required' names 'title' twice"),
        ("versions: [x, x]", "", "'versions' names 'x' twice"),
    ])
    func aNameGivenTwiceIsRefused(keys: String, view: String, message: String) {
        let messages = Self.errors(keys: keys, view: view)
        #expect(messages.count == 1 && messages.first?.contains(message) == true, "\(messages)")
        let once = Self.errors(
            keys: keys.replacingOccurrences(of: ", title]", with: "]").replacingOccurrences(of: ", x]", with: "]"),
            view: view.replacingOccurrences(of: ", title]", with: "]").replacingOccurrences(of: ", a]", with: "]")
                .replacingOccurrences(of: "[]", with: "[a]")
        )
        #expect(once == [], "\(once)")
    }

    @Test func aWholeNumberPast64BitsIsCalledTooLarge() {
        let messages = Self.errors(keys: "history: 99999999999999999999999")
        #expect(messages.contains { $0.hasPrefix("7:") && $0.contains("at most \(Int.max)") }, "\(messages)")
        #expect(!Self.errors(keys: "history: 0").contains { $0.contains("at most") })
    }

    /// A line a YAML error quotes is printed with its control characters escaped: raw, an
    /// escape sequence would drive the operator's terminal.
    @Test func anErrorQuotesControlCharactersEscaped() {
        var loader = ConfigFileLoader(file: "test.yaml", baseDirectory: "/srv")
        do {
            _ = try loader.parse("store:\n  sqlite: x.sqlite\nlists:\n  a: \u{1B}[31m red\u{07}\n")
            Issue.record("control characters were taken")
        } catch {
            let text = "\(error)"
            #expect(text.contains("\\u{1B}[31m red\\u{7}") && !text.unicodeScalars.contains("\u{1B}"), "\(text)")
        }
    }

    /// A slice holds one value per field: a parameter on the scope field was ignored (the
    /// token's value won: `?owner=bo` answered ana's own items as bo's slice), and a second
    /// parameter on one field replaced the first's value.
    @Test func aParameterOnTheScopeFieldOrTwoOnOneFieldAreRefused() {
        let scoped = Self.errors(keys: "scope: {field: owner, claim: sub}", view: "params: {who: owner}")
        #expect(
            scoped.count == 1 && scoped.first?.hasPrefix("7: ") == true
                && scoped.first?.contains("parameter 'who' on 'owner', the field the caller's token sets") == true,
            "\(scoped)"
        )
        let twice = Self.errors(view: "params: {a: title, b: {field: title}}")
        #expect(
            twice.count == 1 && twice.first?.contains("parameters 'a' and 'b' both filter on 'title'") == true,
            "\(twice)"
        )
        #expect(Self.errors(view: "params: {owner: owner, who: title}") == [], "a parameter on owner without a scope")
    }

    @Test func theRightShapesStillLoad() {
        #expect(Self.errors(keys: "scope: {field: owner, claim: sub}", view: "params: {who: {field: title}}") == [])
        #expect(Self.errors(view: "cell: task") == [])
    }
}

extension ConfigShapeTests {
    static func parseErrors(_ lines: [String]) -> [String] {
        var loader = ConfigFileLoader(file: "test.yaml", baseDirectory: "/srv")
        do {
            _ = try loader.parse(lines.joined(separator: "\n"))
            return []
        } catch {
            return error.errors.map(\.message)
        }
    }

    static let staticItem = [
        "store:", "  sqlite: data.sqlite", "lists:", "  home:", "    compose:", "      - name: s",
        "        items:", "          - id: x", "            type: t", "            data:",
    ]

    /// Aliases of aliases ("billion laughs": ten to the ninth values from ten lines) are
    /// refused at once, anywhere in the file, not expanded until memory runs out.
    @Test func anAliasBombIsRefused() {
        var lines = Self.staticItem + ["              a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
        for level in 1...9 {
            let previous = Array(repeating: "*a\(level - 1)", count: 10).joined(separator: ", ")
            lines.append("              a\(level): &a\(level) [\(previous)]")
        }
        let errors = Self.parseErrors(lines)
        #expect(
            errors == [
                "the file's aliases repeat far more than it holds (YAML aliases repeat what they name); write less"
            ]
        )
    }

    /// An alias of a long text, repeated, is refused as soon as it passes 16 MiB more than
    /// the file holds (a 512 KB text named 2,000 times took `check` two minutes and over
    /// 1 GB); in one static item's data, past 4 MiB.
    @Test func aLongTextRepeatedByAliasesIsRefused() {
        let text = String(repeating: "x", count: 512 << 10)
        var lines = Self.staticItem + ["              k0: &s \(text)"]
        lines += (1...2_000).map { "              k\($0): *s" }
        #expect(Self.parseErrors(lines).first?.contains("the file's aliases repeat far more than it holds") == true)
        // Ten times: 5 MiB in one item's data, well within the file's bound.
        let item = Self.staticItem + ["              k0: &s \(text)"] + (1...10).map { "              k\($0): *s" }
        let errors = Self.parseErrors(item)
        #expect(errors.count == 1 && errors[0].contains("holds more than 100000 values or 4 MiB of text"), "\(errors)")
        // Four times (2.5 MiB) is served, as aliases that repeat views or fields are.
        #expect(
            Self.parseErrors(
                Self.staticItem + ["              k0: &s \(text)"] + (1...4).map { "              k\($0): *s" }
            ) == []
        )
    }
}
