import DataMediatorPostgres
import DataMediatorSQL
import Foundation
import PostgresNIO
import Testing

/// The store's connections use TLS as a libpq URL asks: when the server offers it by
/// default, always with `require`, checking the server's certificate with `verify-ca` and
/// its host name too with `verify-full`, and presenting a client certificate. The tests'
/// server offers TLS with certificates of its own (scripts/test-postgres): its certificate
/// is issued for `localhost` only.
@Suite struct PostgresTLSTests {
    /// A database of its own, its URL's host replaced by `host` and its query by
    /// `parameters`, each path in which is under the folder of the server's certificates.
    func url(host: String = "127.0.0.1", _ parameters: String) async throws -> String {
        let fixture = try await PostgresFixture()
        var folder = ""
        let rows = try await fixture.store.primary.query("SHOW ssl_ca_file")
        for try await file in rows.decode(String.self) { folder = (file as NSString).deletingLastPathComponent }
        guard var parts = URLComponents(string: fixture.url) else { throw FixtureError("bad URL \(fixture.url)") }
        parts.host = host
        parts.percentEncodedQuery =
            parameters.isEmpty ? nil : parameters.replacingOccurrences(of: "TLS/", with: folder + "/")
        return try #require(parts.string)
    }

    /// Whether a session of a store over `url` is encrypted, and the client certificate the
    /// server saw.
    func session(_ url: String) async throws -> (encrypted: Bool, client: String?) {
        let store = try PostgresStore(
            url: url,
            maximumConnections: 1,
            timeout: .seconds(60),
            keepConnectionsOpen: false,
            logger: PostgresFixture.logger
        )
        return try await store.withClientsRunning {
            try await store.prepare()
            let rows = try await store.primary.query(
                "SELECT ssl, client_dn FROM pg_stat_ssl WHERE pid = pg_backend_pid()"
            )
            for try await row in rows.decode((Bool, String?).self) { return row }
            throw FixtureError("pg_stat_ssl has no row for the session")
        }
    }

    /// Why a store over `url` (reading from `readURL`, when given) cannot start: said at
    /// once, not after the pool's retries for its timeout (a minute here), as a TLS failure
    /// does not pass by retrying.
    func refusal(_ url: String, readURL: String? = nil) async throws -> String {
        let store = try PostgresStore(
            url: url,
            readURL: readURL,
            maximumConnections: 1,
            timeout: .seconds(60),
            keepConnectionsOpen: false,
            logger: PostgresFixture.logger
        )
        let started = ContinuousClock.now
        let error = await #expect(throws: StoreError.self) {
            try await store.withClientsRunning { try await store.prepare() }
        }
        #expect(ContinuousClock.now - started < .seconds(30), "the refusal waited out the timeout")
        return error?.description ?? ""
    }

    @Test func aURLWithoutSSLModeUsesTLSWhenTheServerOffersIt() async throws {
        #expect(try await session(url("")).encrypted)
        #expect(try await session(url("sslmode=require")).encrypted)
        #expect(try await !session(url("sslmode=disable")).encrypted)
    }

    @Test func verifyFullChecksTheAuthorityAndTheHostName() async throws {
        #expect(try await session(url(host: "localhost", "sslmode=verify-full&sslrootcert=TLS/ca.crt")).encrypted)
        // The certificate is not for 127.0.0.1: verify-ca passes it, verify-full does not.
        #expect(try await session(url("sslmode=verify-ca&sslrootcert=TLS/ca.crt")).encrypted)
        let wrongHost = try await refusal(url("sslmode=verify-full&sslrootcert=TLS/ca.crt"))
        #expect(wrongHost.contains("not issued for this host name"), "\(wrongHost)")
        // The system's authorities did not sign it.
        let unknown = try await refusal(url(host: "localhost", "sslmode=verify-full"))
        #expect(unknown.contains("does not check out against the authorities"), "\(unknown)")
        // With a root certificate, require checks the authority, as libpq's does.
        let otherRoot = try await refusal(url("sslmode=require&sslrootcert=TLS/client.crt"))
        #expect(otherRoot.contains("does not check out against the authorities"), "\(otherRoot)")
    }

    /// A key that is not the certificate's is refused when the store is made, naming both.
    @Test func aKeyThatIsNotTheCertificatesIsRefusedAtOnce() async throws {
        let url = try await url("sslmode=require&sslcert=TLS/client.crt&sslkey=TLS/ca.key")
        let error = #expect(throws: StoreError.self) {
            _ = try PostgresStore(url: url, maximumConnections: 1, logger: PostgresFixture.logger)
        }
        #expect(
            error?.description.contains("sslkey is not the key of sslcert's certificate") == true,
            "\(error as Any)"
        )
    }

    /// A client key others may read is refused when the store is made, as libpq refuses it;
    /// the same key kept private is taken.
    @Test func aClientKeyOthersMayReadIsRefused() async throws {
        let key = try #require(URLComponents(string: try await url("sslkey=TLS/client.key"))?.queryItems?.first?.value)
        let copy = FileManager.default.temporaryDirectory.appendingPathComponent("dm-key-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: copy) }
        try FileManager.default.copyItem(atPath: key, toPath: copy)
        let folder = (key as NSString).deletingLastPathComponent
        for (mode, refused) in [(0o644, true), (0o600, false)] {
            try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: copy)
            let url = try await url("sslmode=require&sslcert=\(folder)/client.crt&sslkey=\(copy)")
            do {
                _ = try PostgresStore(url: url, maximumConnections: 1, logger: PostgresFixture.logger)
                #expect(!refused, "a key of mode \(String(mode, radix: 8)) was taken")
            } catch let error as StoreError {
                #expect(refused && error.description.contains("may be read by others"), "\(error)")
            }
        }
    }

    /// A pipe as a certificate file is refused when the store is made: reading it would
    /// wait for a writer.
    @Test(.timeLimit(.minutes(1))) func aPipeAsACertificateFileIsRefused() async throws {
        let pipe = FileManager.default.temporaryDirectory.appendingPathComponent("dm-pipe-\(UUID())").path
        #expect(mkfifo(pipe, 0o600) == 0)
        defer { try? FileManager.default.removeItem(atPath: pipe) }
        let url = try await url("sslmode=verify-ca&sslrootcert=\(pipe)")
        let error = #expect(throws: StoreError.self) {
            _ = try PostgresStore(url: url, maximumConnections: 1, logger: PostgresFixture.logger)
        }
        #expect(error?.description.contains("sslrootcert '\(pipe)' is not a file") == true, "\(error as Any)")
    }

    /// A read replica that cannot be reached is named as such, with why.
    @Test func aReadReplicaThatFailsItsCheckIsNamed() async throws {
        let message = try await refusal(
            url("sslmode=disable"),
            readURL: url("sslmode=verify-full&sslrootcert=TLS/ca.crt")
        )
        #expect(
            message.contains("cannot connect to the read replica at") && message.contains("not issued for this host"),
            "\(message)"
        )
    }

    @Test func aClientCertificateIsPresented() async throws {
        let session = try await session(url("sslmode=require&sslcert=TLS/client.crt&sslkey=TLS/client.key"))
        #expect(session.encrypted && session.client == "/CN=data-mediator-test-client", "\(session)")
    }
}
