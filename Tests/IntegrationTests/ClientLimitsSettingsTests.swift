import DataMediatorHTTP
import Testing

@testable import data_mediator

/// `DATA_MEDIATOR_CLIENT_STREAMS` and `DATA_MEDIATOR_CLIENT_REQUESTS`: each client's share.
@Suite struct ClientLimitsSettingsTests {
    private func settings(_ environment: [String: String]) throws -> ServeConfiguration {
        try ServeConfiguration(
            config: nil,
            host: nil,
            port: nil,
            dataDir: nil,
            demoTransactions: nil,
            environment: environment
        )
    }

    @Test func theSharesDefaultBelowTheServersLimits() throws {
        let defaults = try settings([:])
        #expect(defaults.maximumStreamsPerClient == 32 && defaults.maximumStreams == 256)
        #expect(defaults.limits.requestsPerClient == 8)
        // A small stream limit brings the default share below it.
        #expect(try settings(["DATA_MEDIATOR_MAX_STREAMS": "10"]).maximumStreamsPerClient == 9)
        #expect(try settings(["DATA_MEDIATOR_CLIENT_REQUESTS": "3"]).limits.requestsPerClient == 3)
    }

    @Test func aStreamShareOfTheWholeLimitIsRefused() {
        for share in ["256", "300"] {
            #expect(throws: (any Error).self) { try settings(["DATA_MEDIATOR_CLIENT_STREAMS": share]) }
        }
        #expect(throws: (any Error).self) { try settings(["DATA_MEDIATOR_CLIENT_REQUESTS": "0"]) }
    }
}
