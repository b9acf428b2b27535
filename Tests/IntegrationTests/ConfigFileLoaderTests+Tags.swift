import Foundation
import Testing

@testable import data_mediator

/// Config files: YAML tags.
extension ConfigFileLoaderTests {
    /// A value with a tag no setting takes (`!env ${TITLE}`, `!!binary`) is refused naming
    /// its line, not taken as the text it tags; plain YAML's own tags pass.
    @Test func aValueWithATagNoSettingTakesIsRefused() throws {
        func config(_ title: String, _ table: String = "t") -> String {
            """
            store:
              sqlite: data.sqlite
            lists:
              t:
                title: \(title)
                table: \(table)
                fields: {x: string}
                views: {v: {sort: [x]}}
            """
        }
        let env = errors(config("!env ${TITLE}"))
        #expect(env.map(\.line) == [5], "\(env)")
        #expect(env.first?.message.contains("the value tagged '!env' is taken by no setting") == true, "\(env)")
        let binary = errors(config("Notes", "!!binary YQ=="))
        #expect(binary.map(\.line) == [6] && binary.first?.message.contains("'!!binary'") == true, "\(binary)")
        #expect(errors(config("!!str Notes")).isEmpty, "plain YAML's own tags pass")
    }

    /// A file meant for `envsubst` read as it is: a `${NAME}` (or a leading `$NAME`) left in
    /// the name of a table or a file is refused where it stands, not made a table or a
    /// file of that name (review 92 #8); other values may hold `${` of their own (a
    /// section title's template showing a price, a query's text: probe 85).
    @Test func anUnexpandedVariableIsRefused() throws {
        let yaml = """
            store:
              sqlite: ${DB}
            lists:
              t:
                table: ${TABLE}
                fields: {x: string}
                views: {v: {sort: [x]}}
            """
        let found = errors(yaml)
        #expect(found.map(\.line) == [2, 5], "\(found)")
        #expect(found.map(\.column) == [11, 12], "\(found)")
        #expect(found.last?.message.contains("holds '${TABLE}', a variable nothing expanded") == true, "\(found)")
        #expect(errors(yaml.replacingOccurrences(of: "${DB}", with: "a.sqlite")).count == 1)
        // A `$` of the name's own: before no name, or before one not in capitals (review 97).
        for (database, table) in [("a$.sqlite", "t_$1"), ("$Recycle.Bin/a.sqlite", "t_$x"), ("a.sqlite", "audit$log")] {
            let dollars = yaml.replacingOccurrences(of: "${DB}", with: database).replacingOccurrences(
                of: "${TABLE}",
                with: table
            )
            #expect(errors(dollars).isEmpty, "\(errors(dollars))")
        }
        // Within a name, and a shell's default, as envsubst and a shell expand them (review 96).
        for (database, table) in [("app-$ENV.sqlite", "orders_$ENV"), ("${DIR:-/srv}/a.sqlite", "t")] {
            let within = yaml.replacingOccurrences(of: "${DB}", with: database).replacingOccurrences(
                of: "${TABLE}",
                with: table
            )
            #expect(errors(within).count == (table == "t" ? 1 : 2), "\(errors(within))")
        }
        let bare = yaml.replacingOccurrences(of: "${DB}", with: "$DIR/a.sqlite")
            .replacingOccurrences(of: "${TABLE}", with: "$TABLE")
        #expect(errors(bare).map(\.message).allSatisfy { $0.contains("a variable nothing expanded") })
        #expect(errors(bare).count == 2)
        let own = """
            store:
              sqlite: a.sqlite
            lists:
              t:
                query: "SELECT id, '${USER}' AS x FROM t"
                fields: {x: string}
                views: {v: {sort: [x], section: {field: x, title: "${key}"}}}
            """
        #expect(errors(own).isEmpty, "\(errors(own))")
    }
}
