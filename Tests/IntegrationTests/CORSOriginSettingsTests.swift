import Testing

@testable import data_mediator

/// `DATA_MEDIATOR_CORS_ORIGINS` takes origins as browsers send them, or `*`; anything else
/// would never match an `Origin` (or, as `null`, match files and sandboxes) and is refused.
@Suite struct CORSOriginSettingsTests {
    @Test func originsAsBrowsersSendThemAreTaken() throws {
        let set = try ServeConfiguration.of([
            "DATA_MEDIATOR_CORS_ORIGINS": "https://app.example, http://localhost:3000,capacitor://localhost"
        ])
        #expect(set.corsOrigins == ["https://app.example", "http://localhost:3000", "capacitor://localhost"])
        #expect(try ServeConfiguration.of(["DATA_MEDIATOR_CORS_ORIGINS": "*"]).corsOrigins == ["*"])
    }

    @Test(arguments: ["notanorigin", "https://app.example/", "https://app.example/path", "null", "app.example:443"])
    func anythingElseIsRefusedByName(value: String) {
        #expect {
            try ServeConfiguration.of(["DATA_MEDIATOR_CORS_ORIGINS": "https://ok.example," + value])
        } throws: { error in
            "\(error)".contains("DATA_MEDIATOR_CORS_ORIGINS") && "\(error)".contains(value)
        }
    }
}
