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
        // As a browser writes it: lowercase, without the scheme's default port.
        let written = try ServeConfiguration.of([
            "DATA_MEDIATOR_CORS_ORIGINS": "HTTPS://App.Example:443,http://a.example:80,http://a.example:8080"
        ])
        #expect(written.corsOrigins == ["https://app.example", "http://a.example", "http://a.example:8080"])
        // An internationalized name in the ASCII form a browser sends (review 105 #6: it was
        // read decoded, and refused as not ASCII); an IPv6 literal in its brackets.
        let named = try ServeConfiguration.of([
            "DATA_MEDIATOR_CORS_ORIGINS": "https://XN--bcher-kva.example,http://[::1]:3000"
        ])
        #expect(named.corsOrigins == ["https://xn--bcher-kva.example", "http://[::1]:3000"])
    }

    @Test(arguments: [
        "notanorigin", "https://app.example/", "https://app.example/path", "null", "app.example:443",
        "https://*.example", "https://a.example:99999", "https://a.example:", "http://münchen.example",
    ])
    func anythingElseIsRefusedByName(value: String) {
        #expect {
            try ServeConfiguration.of(["DATA_MEDIATOR_CORS_ORIGINS": "https://ok.example," + value])
        } throws: { error in
            "\(error)".contains("DATA_MEDIATOR_CORS_ORIGINS") && "\(error)".contains(value)
        }
    }
}
