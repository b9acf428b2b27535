import DataMediatorTesting
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import Testing

@testable import DataMediatorHTTP

/// Behind a reverse proxy every request comes from the proxy's address: without knowing
/// the proxy, one anonymous user took every other's share of the streams and rates
/// (probe 61). A trusted proxy's `X-Forwarded-For` names the client; anyone else's is not
/// believed.
@Suite struct TrustedProxyTests {
    @Test func addressesAndRangesAreReadAndAnythingElseIsRefused() throws {
        let proxies = try TrustedProxies(["10.0.0.0/8", "127.0.0.1", "fd00::/8", "::1"])
        let forwarded = { (value: String) -> HTTPFields in [TrustedProxies.forwardedFor: value] }
        // Not a proxy: its own address, whatever it says.
        #expect(proxies.client(peer: "203.0.113.9", headers: forwarded("198.51.100.7")) == "203.0.113.9")
        // A proxy: the last address of the list that is no proxy; what the client wrote
        // further left is not taken.
        #expect(proxies.client(peer: "127.0.0.1", headers: forwarded("198.51.100.7")) == "198.51.100.7")
        #expect(proxies.client(peer: "127.0.0.1", headers: forwarded("1.1.1.1, 198.51.100.7")) == "198.51.100.7")
        #expect(
            proxies.client(peer: "10.2.3.4", headers: forwarded("198.51.100.7,10.9.9.9 ,10.0.0.1")) == "198.51.100.7"
        )
        // An IPv4 peer on an IPv6 socket, ports, brackets and another spelling of one address.
        #expect(proxies.client(peer: "::ffff:127.0.0.1", headers: forwarded("198.51.100.7:4711")) == "198.51.100.7")
        #expect(proxies.client(peer: "::1", headers: forwarded("[2001:DB8::0:1]:443")) == "2001:db8::1")
        #expect(proxies.client(peer: "fd12::5", headers: forwarded("::ffff:198.51.100.7")) == "198.51.100.7")
        // Fields given twice are one list, in order.
        let twice: HTTPFields = [
            TrustedProxies.forwardedFor: "198.51.100.1", TrustedProxies.forwardedFor: "198.51.100.2",
        ]
        #expect(proxies.client(peer: "127.0.0.1", headers: twice) == "198.51.100.2")
        // No field, or one whose last entry is no address: the last proxy's own address.
        #expect(proxies.client(peer: "127.0.0.1", headers: [:]) == "127.0.0.1")
        #expect(proxies.client(peer: "127.0.0.1", headers: forwarded("198.51.100.7, unknown")) == "127.0.0.1")
        #expect(proxies.client(peer: "127.0.0.1", headers: forwarded("198.51.100.7, unknown, 10.0.0.3")) == "10.0.0.3")
        // Every entry a proxy: the first of them.
        #expect(proxies.client(peer: "127.0.0.1", headers: forwarded("10.0.0.5, 10.0.0.6")) == "10.0.0.5")
        #expect(TrustedProxies.none.client(peer: "127.0.0.1", headers: forwarded("198.51.100.7")) == "127.0.0.1")
        // A length in plain digits only (probe 64: `/-0` was read as 0 and trusted every
        // IPv4 client); an IPv4 range written in IPv6 counts IPv6's bits.
        let mapped = try TrustedProxies(["::ffff:10.0.0.0/104"])
        #expect(mapped.client(peer: "10.1.2.3", headers: forwarded("198.51.100.7")) == "198.51.100.7")
        #expect(mapped.client(peer: "11.1.2.3", headers: forwarded("198.51.100.7")) == "11.1.2.3")
        for bad in [
            "10.0.0.0/33", "10.0.0.0/", "10.0.0.0/+8", "fd00::/129", "localhost", "10.0.0", "", "*", "10.9.9.9/-0",
            "10.0.0.0/08", "10.0.0.0/ 8", "::ffff:10.0.0.0/24", "10.0.0.0/\u{0668}",
        ] {
            #expect(throws: TrustedProxies.Problem.self, "\(bad)") { try TrustedProxies([bad]) }
        }
        #expect(try TrustedProxies(["0.0.0.0/0"]).client(peer: "9.9.9.9", headers: forwarded("1.2.3.4")) == "1.2.3.4")
    }

    /// The statuses of `/lists/sample/sections` sent as each of `requests` (a token, or
    /// none, and the `X-Forwarded-For` it comes with), one after another within one second,
    /// to a service whose clients may send `rate` of them a second, behind a trusted proxy
    /// (this test's client, on 127.0.0.1) unless `trusted` is false.
    static func sectionStatuses(
        _ requests: [(token: String?, from: String)],
        rate: Int,
        trusted: Bool = true,
        readTokens: [String] = [],
        writeTokens: [String] = []
    ) async throws -> [HTTPResponse.Status] {
        var configuration = HTTPServerConfiguration(
            port: 0,
            writeTokens: writeTokens,
            limits: ServerLimits(requestRatePerClient: rate),
            trustedProxies: trusted ? try TrustedProxies(["127.0.0.1", "::1"]) : .none
        )
        configuration.readTokens = readTokens
        let start = ContinuousClock.now
        configuration.rateClock = { start }
        let app = buildApplication(
            registry: HTTPTestSupport.registry(),
            configuration: configuration,
            logger: Logger(label: "trusted-proxy-tests")
        )
        return try await app.test(.live) { client in
            var statuses: [HTTPResponse.Status] = []
            for (token, user) in requests {
                var headers: HTTPFields = [TrustedProxies.forwardedFor: user]
                if let token { headers[.authorization] = "Bearer \(token)" }
                statuses.append(
                    try await client.execute(uri: "/lists/sample/sections", method: .get, headers: headers).status
                )
            }
            return statuses
        }
    }

    /// Through a trusted proxy two users are two clients, each with its own rate; a user
    /// cannot pass as another by writing the other's address first. Without the proxy
    /// trusted, both are the proxy: one's requests use up the other's.
    @Test(arguments: [true, false])
    func usersBehindATrustedProxyHaveTheirOwnRate(trusted: Bool) async throws {
        // Ana's second, with Bo's address written before hers: still hers; a third within
        // the second; then Bo's.
        let users = ["198.51.100.7", "198.51.100.8, 198.51.100.7", "198.51.100.7", "198.51.100.8"]
        let statuses = try await Self.sectionStatuses(users.map { (nil, $0) }, rate: 2, trusted: trusted)
        #expect(statuses == [.ok, .ok, .tooManyRequests, trusted ? .ok : .tooManyRequests])
    }

    /// An IPv6 host is given a whole /64 and may send from any address of it: counted
    /// by address, one host was as many clients as it liked (review 80). Two addresses
    /// of one /64 share one rate; another /64 has its own; IPv4 addresses stay their own.
    @Test func anIPv6NetworkIsOneClient() async throws {
        #expect(ClientIdentity.network(of: "2001:db8:1:2::7") == "2001:db8:1:2::/64")
        #expect(ClientIdentity.network(of: "2001:db8:1:2:ffff:1:2:3") == "2001:db8:1:2::/64")
        #expect(ClientIdentity.network(of: "::ffff:198.51.100.7") == "198.51.100.7")
        #expect(ClientIdentity.network(of: "198.51.100.7") == "198.51.100.7")
        // IPv4 clients a translator (SIIT, NAT64) wrote into IPv6: each its own.
        #expect(ClientIdentity.network(of: "64:ff9b::198.51.100.7") == "198.51.100.7")
        #expect(ClientIdentity.network(of: "64:ff9b::c633:6408") == "198.51.100.8")
        #expect(ClientIdentity.network(of: "64:ff9b:0:0:1::7") == "64:ff9b::/64")
        let users = [
            "2001:db8:1:2::7", "[2001:db8:1:2::8]:4711", "2001:db8:1:2:ffff::9", "2001:db8:1:3::7",
            "198.51.100.7", "198.51.100.7", "198.51.100.7", "198.51.100.8",
        ]
        let statuses = try await Self.sectionStatuses(users.map { (nil, $0) }, rate: 2)
        #expect(statuses == [.ok, .ok, .tooManyRequests, .ok, .ok, .ok, .tooManyRequests, .ok])
    }

    /// A read token may be handed to many users (built into an app): counted as one
    /// client, one user took every stream and share of the others (review 80). It is
    /// counted with the address it comes from; a write token stays one client wherever
    /// it comes from.
    @Test func aReadTokenIsOneClientPerAddressAndAWriteTokenOneInAll() async throws {
        let statuses = try await Self.sectionStatuses(
            [
                ("app", "198.51.100.7"), ("app", "198.51.100.8"), ("app", "198.51.100.7"),
                ("writer", "198.51.100.7"), ("writer", "198.51.100.8"),
            ],
            rate: 1,
            readTokens: ["app", "writer"],
            writeTokens: ["writer"]
        )
        #expect(statuses == [.ok, .ok, .tooManyRequests, .ok, .tooManyRequests])
    }
}
