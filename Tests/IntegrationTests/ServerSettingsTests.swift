import DataMediatorHTTP
import Foundation
import Logging
import Testing

@testable import data_mediator

/// The server's limits, log level and port from the environment: every value out of range
/// is refused at startup by name, never taken (a huge idle timeout overflowed at the first
/// connection) or dropped in silence (a misspelt log level).
@Suite struct ServerSettingsTests {
    @Test func limitsWithinTheirRangesAreTaken() throws {
        let set = try ServeConfiguration.of([
            "DATA_MEDIATOR_IDLE_TIMEOUT_SECONDS": "86400", "DATA_MEDIATOR_REQUEST_HEAD_TIMEOUT_SECONDS": "3600",
            "DATA_MEDIATOR_MAX_HEADER_BYTES": "1024", "DATA_MEDIATOR_LOG_LEVEL": "Warning",
            "DATA_MEDIATOR_REQUEST_BODY_TIMEOUT_SECONDS": "120", "DATA_MEDIATOR_CLIENT_CONNECTIONS": "16",
        ])
        #expect(set.limits.requestBodyTimeout == .seconds(120))
        #expect(set.limits.connectionsPerAddress == 16)
        // Off unless set: clients behind one load balancer share its address.
        #expect(try ServeConfiguration.of([:]).limits.connectionsPerAddress == nil)
        #expect(set.limits.idleTimeout == .seconds(86_400) && set.limits.requestHeadTimeout == .seconds(3_600))
        #expect(set.limits.maximumHeaderBytes == 1_024)
        // API.md's "Live": a heartbeat at least every 15 s, by default and at most.
        #expect(try ServeConfiguration.of([:]).heartbeatSeconds == 10)
        #expect(try ServeConfiguration.of(["DATA_MEDIATOR_HEARTBEAT_SECONDS": "15"]).heartbeatSeconds == 15)
    }

    /// A bearer token short enough to be guessed is warned of at start (refusing it would
    /// break set-ups that work), by its variable and never by its value.
    @Test func aShortTokenIsWarnedOfByItsVariable() throws {
        let warned = try ServeConfiguration.of([
            "DATA_MEDIATOR_WRITE_TOKENS": "x, 0123456789abcdefghij",
            "DATA_MEDIATOR_READ_TOKENS": "0123456789abcdefghij",
        ]).warnings
        #expect(warned.count == 1 && warned[0].hasPrefix("DATA_MEDIATOR_WRITE_TOKENS holds a token shorter than 16"))
        #expect(!warned[0].contains("'x'"))
        #expect(try ServeConfiguration.of(["DATA_MEDIATOR_READ_TOKENS": "0123456789abcdef"]).warnings.isEmpty)
    }

    @Test func valuesOutOfRangeAreRefusedByNameWithTheirRange() {
        for (name, value, says) in [
            ("DATA_MEDIATOR_IDLE_TIMEOUT_SECONDS", "9300000000", "from 1 to 86400"),
            ("DATA_MEDIATOR_IDLE_TIMEOUT_SECONDS", "0", "from 1 to 86400"),
            ("DATA_MEDIATOR_REQUEST_HEAD_TIMEOUT_SECONDS", "3601", "from 1 to 3600"),
            ("DATA_MEDIATOR_REQUEST_BODY_TIMEOUT_SECONDS", "0", "from 1 to 3600"),
            ("DATA_MEDIATOR_MAX_HEADER_BYTES", "600", "from 1024 to 1048576"),
            ("DATA_MEDIATOR_MAX_CONNECTIONS", "99999999999999999999", "larger than any setting it takes"),
            ("DATA_MEDIATOR_MAX_CONNECTIONS", "many", "must be a whole number"),
            ("DATA_MEDIATOR_CLIENT_CONNECTIONS", "0", "at least 1"),
            ("DATA_MEDIATOR_HEARTBEAT_SECONDS", "16", "from 1 to 15"),
            ("DATA_MEDIATOR_HEARTBEAT_SECONDS", "0", "from 1 to 15"),
            ("DATA_MEDIATOR_LOG_LEVEL", "loud", "'trace', 'debug', 'info'"),
            ("DATA_MEDIATOR_DEMO_TRANSACTIONS", "100000000000", "from 0 to 1000000000"),
            // A token list that holds no token would leave reads open without a word.
            ("DATA_MEDIATOR_READ_TOKENS", ",,", "holds no value"),
            ("DATA_MEDIATOR_WRITE_TOKENS", " , ", "holds no value"),
        ] {
            #expect {
                try ServeConfiguration.of([name: value])
            } throws: { error in
                "\(error)".contains(name) && "\(error)".contains(says)
            }
        }
    }

    /// Spaces are no secret: the environment's is held to 16 bytes without them, and taken
    /// without them, as the kept file's is (review 99 #4: a secret mounted from a file with
    /// its line break was another secret than the bare value another replica was given); a
    /// placeholder is refused (#5).
    @Test func aCursorSecretOfSpacesOrAPlaceholderIsRefused() throws {
        let logger = Logger(label: "test")
        for secret in [String(repeating: " ", count: 20), "  short-secret  \n", String(repeating: "ab", count: 20)] {
            #expect(throws: CursorSecretError.self) {
                try CursorSecret.load(
                    environment: ["DATA_MEDIATOR_CURSOR_SECRET": secret],
                    dataDir: "/nonexistent",
                    logger: logger
                )
            }
        }
        let taken = try CursorSecret.load(
            environment: ["DATA_MEDIATOR_CURSOR_SECRET": " a secret of enough length\n"],
            dataDir: "/nonexistent",
            logger: logger
        )
        #expect(taken == Array("a secret of enough length".utf8))
        #expect(try CursorSecret.previous(environment: [:]) == [])
        // The untrimmed forms are what releases before this one signed with (probe 86 #3).
        #expect(
            try CursorSecret.previous(environment: ["DATA_MEDIATOR_CURSOR_SECRET_PREVIOUS": "the former secret\n"])
                == [Array("the former secret".utf8), Array("the former secret\n".utf8)]
        )
        #expect(
            try CursorSecret.previous(environment: ["DATA_MEDIATOR_CURSOR_SECRET": " a secret of enough length\n"])
                == [Array(" a secret of enough length\n".utf8)]
        )
        #expect(throws: CursorSecretError.self) {
            try CursorSecret.previous(environment: ["DATA_MEDIATOR_CURSOR_SECRET_PREVIOUS": "short"])
        }
    }

    /// A kept secret that cannot be read (a link to a volume not mounted yet) is never
    /// replaced: every cursor out there would stop working. Processes starting at once on
    /// one folder all take the one secret made.
    @Test func aKeptSecretIsNeverReplacedAndMadeOnceForAll() async throws {
        let logger = Logger(label: "test")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("dm-secret-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent(CursorSecret.fileName).path
        try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: "/nonexistent/secret")
        #expect {
            try CursorSecret.load(environment: [:], dataDir: folder.path, logger: logger)
        } throws: { error in
            "\(error)".contains("cannot be read")
        }
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: path) == "/nonexistent/secret")
        try FileManager.default.removeItem(atPath: path)
        let secrets = try await withThrowingTaskGroup(of: [UInt8].self) { group in
            for _ in 0..<8 {
                group.addTask { try CursorSecret.load(environment: [:], dataDir: folder.path, logger: logger) }
            }
            return try await group.reduce(into: Set<[UInt8]>()) { $0.insert($1) }
        }
        #expect(secrets.count == 1 && secrets.first?.count == 64, "\(secrets.count) secrets")
        #expect(try Array(Data(contentsOf: URL(fileURLWithPath: path))) == secrets.first)
    }
}
