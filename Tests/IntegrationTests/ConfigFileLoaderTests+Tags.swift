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
}
