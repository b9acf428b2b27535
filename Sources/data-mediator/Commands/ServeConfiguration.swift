import ArgumentParser
import DataMediatorHTTP
import DataMediatorPostgres
import DataMediatorSQL
import Foundation
import Logging
import NIOCore

/// The configuration of `serve`, each setting from its flag, else the environment, else the default.
struct ServeConfiguration: Sendable {
    /// The config file, nil for the demo.
    let config: String?
    /// The variables of the environment named like the service's (`DATA_MEDIATOR_...`) that
    /// are none of its settings (``knownVariables``): misspelt ones, most likely.
    let unknownVariables: [String]
    /// The listening address.
    let host: String
    /// The listening port.
    let port: Int
    /// The data folder.
    let dataDir: String
    /// Transactions in a new demo store.
    let demoTransactions: Int
    /// The bearer tokens that may write (`DATA_MEDIATOR_WRITE_TOKENS`, comma-separated).
    let writeTokens: [String]
    /// The bearer tokens that may read (`DATA_MEDIATOR_READ_TOKENS`); none leaves reads open.
    let readTokens: [String]
    /// The bearer tokens `GET /metrics` asks for (`DATA_MEDIATOR_METRICS_TOKENS`); none
    /// leaves it open.
    let metricsTokens: [String]
    /// Seconds between heartbeats of a quiet event stream (`DATA_MEDIATOR_HEARTBEAT_SECONDS`, 1–15).
    let heartbeatSeconds: Int
    /// Seconds between two looks for changes to the lists' tables that other programs made
    /// (`DATA_MEDIATOR_OUTSIDE_WRITES_SECONDS`, 0–3600, default 1; 0: never looked for).
    let outsideWritesSeconds: Int
    /// Connection, timeout and size limits (`DATA_MEDIATOR_MAX_CONNECTIONS`,
    /// `DATA_MEDIATOR_IDLE_TIMEOUT_SECONDS`, `DATA_MEDIATOR_REQUEST_HEAD_TIMEOUT_SECONDS`,
    /// `DATA_MEDIATOR_MAX_HEADER_BYTES`), and each client's share of the costly routes
    /// (`DATA_MEDIATOR_CLIENT_REQUESTS`) and its rate of them (`DATA_MEDIATOR_CLIENT_RATE`,
    /// default 100 a second; 0: none), and its writes in flight (`DATA_MEDIATOR_CLIENT_WRITES`,
    /// default 4; the rest wait in its line) and its reads of lists (`DATA_MEDIATOR_CLIENT_READS`,
    /// default ``defaultReadsPerClient(databaseConnections:cores:)``; the rest wait in its line).
    let limits: ServerLimits
    /// Threads that read and write the HTTP and database connections (`DATA_MEDIATOR_EVENT_LOOP_THREADS`,
    /// default ``defaultEventLoopThreads``).
    let eventLoopThreads: Int
    /// Event streams open at once (`DATA_MEDIATOR_MAX_STREAMS`, default 256).
    let maximumStreams: Int
    /// Event streams one client may hold (`DATA_MEDIATOR_CLIENT_STREAMS`, default 32; below
    /// `DATA_MEDIATOR_MAX_STREAMS`).
    let maximumStreamsPerClient: Int
    /// The largest request body (`DATA_MEDIATOR_MAX_BODY_BYTES`, default 1 MiB).
    let maximumBodyBytes: Int
    /// `text` or `json` (`DATA_MEDIATOR_LOG_FORMAT`); nil chooses by whether standard error is a terminal.
    let logFormat: String?
    /// Origins whose browsers may read answers (`DATA_MEDIATOR_CORS_ORIGINS`, comma-separated, or `*`).
    let corsOrigins: [String]
    /// The reverse proxies whose `X-Forwarded-For` names a request's client
    /// (`DATA_MEDIATOR_TRUSTED_PROXIES`, addresses and CIDR ranges, comma-separated).
    let trustedProxies: TrustedProxies
    /// Seconds in-flight requests get to finish after SIGTERM
    /// (`DATA_MEDIATOR_SHUTDOWN_GRACE_SECONDS`, 1–600, default 10).
    let shutdownGraceSeconds: Int
    /// The PostgreSQL database of a config with `store: postgres`, and of the demo when set
    /// (`DATA_MEDIATOR_DATABASE_URL`, `postgres://user:password@host:port/database`).
    let databaseURL: String?
    /// A read replica of that database that serves reads (`DATA_MEDIATOR_DATABASE_READ_URL`).
    let databaseReadURL: String?
    /// Seconds a request waits for PostgreSQL before it is answered 503
    /// (`DATA_MEDIATOR_DATABASE_TIMEOUT_SECONDS`, 1–60, default 5).
    let databaseTimeoutSeconds: Int
    /// Seconds the read replica may stand behind its primary before `GET /ready` answers
    /// `503` (`DATA_MEDIATOR_READY_MAX_LAG_SECONDS`, 1–86400, with a read URL only); nil
    /// leaves the lag out of readiness.
    let readyMaximumLagSeconds: Int?
    /// Connections to each PostgreSQL server at most (`DATA_MEDIATOR_DATABASE_CONNECTIONS`,
    /// 1–1000, default 8).
    let databaseConnections: Int
    /// Whether PostgreSQL connections prepare the statements of reads and writes once
    /// (`DATA_MEDIATOR_DATABASE_PREPARE`, `true` or `false`, default `true`).
    let databasePrepare: Bool
    /// Seconds between reads of the JWKS file for new keys (`DATA_MEDIATOR_JWKS_RELOAD_SECONDS`,
    /// 0–86400, default 10); 0 reads it again on SIGHUP only.
    let keySetReloadSeconds: Int

    /// The shortest bearer token that is not called guessable at start.
    static let minimumTokenLength = 16

    /// What works but is weak, for a warning at start: a bearer token short enough to be
    /// guessed (refusing it would break set-ups that work; a warning names it).
    /// A variable named like a setting that is none is ignored, and named too (a misspelt
    /// `DATA_MEDIATOR_WRITE_TOKEN` would leave a list without the writes meant for it).
    var warnings: [String] {
        [
            ("DATA_MEDIATOR_WRITE_TOKENS", writeTokens), ("DATA_MEDIATOR_READ_TOKENS", readTokens),
            ("DATA_MEDIATOR_METRICS_TOKENS", metricsTokens),
        ]
        .filter { $0.1.contains { $0.count < Self.minimumTokenLength } }
        .map {
            "\($0.0) holds a token shorter than \(Self.minimumTokenLength) characters, which can be guessed; "
                + "use random ones, e.g. `openssl rand -base64 24`"
        }
            + unknownVariables.map(Self.unknownVariableWarning)
    }

    /// The `DATA_MEDIATOR_` variables of `environment` that are none of the service's
    /// settings (``knownVariables``): misspelt ones, most likely. `check --store` and
    /// `import`, which read the database settings, warn of them too.
    static func unknownVariables(in environment: [String: String]) -> [String] {
        environment.keys.filter { $0.hasPrefix("DATA_MEDIATOR_") && !knownVariables.contains($0) }.sorted()
    }

    /// The warning of a variable ``unknownVariables(in:)`` names.
    static func unknownVariableWarning(_ name: String) -> String {
        "\(name) is not a setting of the service (misspelt? docs/operations.md lists them); it is ignored"
    }

    /// The database URL in the variable `name`, or nil when it is unset or empty; checked
    /// here (``PostgresStore/checkURL(_:)``), so that a mistake names
    /// the variable (and never repeats its password).
    ///
    /// - Throws: a `ValidationError` naming `name`.
    static func databaseURL(_ name: String, in environment: [String: String]) throws -> String? {
        guard let url = environment[name], !url.isEmpty else { return nil }
        do {
            try PostgresStore.checkURL(url)
        } catch let error as StoreError {
            throw ValidationError("\(name): \(error.message).")
        }
        return url
    }

    /// Resolves the settings.
    ///
    /// - Throws: a `ValidationError` naming the variable when an environment value is not usable.
    init(
        config: String?,
        host: String?,
        port: Int?,
        dataDir: String?,
        demoTransactions: Int?,
        environment: [String: String]
    ) throws {
        func number(_ name: String) throws -> Int? {
            try Self.number(name, in: environment)
        }
        func text(_ name: String) -> String? {
            environment[name].flatMap { $0.isEmpty ? nil : $0 }
        }
        self.config = config ?? text("DATA_MEDIATOR_CONFIG")
        self.unknownVariables = Self.unknownVariables(in: environment)
        self.host = host ?? text("DATA_MEDIATOR_HOST") ?? "127.0.0.1"
        self.port = try port ?? number("DATA_MEDIATOR_PORT") ?? 8080
        self.dataDir = dataDir ?? text("DATA_MEDIATOR_DATA_DIR") ?? "data"
        self.demoTransactions = try demoTransactions ?? number("DATA_MEDIATOR_DEMO_TRANSACTIONS") ?? 100_000
        // A list set but holding no token (`,,`, spaces) is a mistake, not "none": for read
        // tokens it would leave reads open without a word.
        func tokens(_ name: String) throws -> [String] {
            guard let value = environment[name], !value.isEmpty else { return [] }
            let tokens = value.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
                .filter { !$0.isEmpty }
            guard !tokens.isEmpty else {
                throw ValidationError(
                    "\(name) is set but holds no value; leave it unset, or give them comma-separated."
                )
            }
            return tokens
        }
        self.writeTokens = try tokens("DATA_MEDIATOR_WRITE_TOKENS")
        self.readTokens = try tokens("DATA_MEDIATOR_READ_TOKENS")
        self.metricsTokens = try tokens("DATA_MEDIATOR_METRICS_TOKENS")
        self.corsOrigins = try tokens("DATA_MEDIATOR_CORS_ORIGINS").map(Self.origin)
        do {
            self.trustedProxies = try TrustedProxies(tokens("DATA_MEDIATOR_TRUSTED_PROXIES"))
        } catch let problem as TrustedProxies.Problem {
            throw ValidationError("DATA_MEDIATOR_TRUSTED_PROXIES: \(problem).")
        }
        self.logFormat = text("DATA_MEDIATOR_LOG_FORMAT")
        self.databaseURL = try Self.databaseURL("DATA_MEDIATOR_DATABASE_URL", in: environment)
        self.databaseReadURL = try Self.databaseURL("DATA_MEDIATOR_DATABASE_READ_URL", in: environment)
        self.databaseTimeoutSeconds = try number("DATA_MEDIATOR_DATABASE_TIMEOUT_SECONDS") ?? 5
        guard (1...60).contains(self.databaseTimeoutSeconds) else {
            throw ValidationError(
                "DATA_MEDIATOR_DATABASE_TIMEOUT_SECONDS must be from 1 to 60; it is \(self.databaseTimeoutSeconds)."
            )
        }
        self.databaseConnections = try number("DATA_MEDIATOR_DATABASE_CONNECTIONS") ?? 8
        guard (1...1000).contains(self.databaseConnections) else {
            throw ValidationError(
                "DATA_MEDIATOR_DATABASE_CONNECTIONS must be from 1 to 1000; it is \(self.databaseConnections)."
            )
        }
        switch text("DATA_MEDIATOR_DATABASE_PREPARE")?.lowercased() {
        case nil, "true": self.databasePrepare = true
        case "false": self.databasePrepare = false
        case let other?:
            throw ValidationError("DATA_MEDIATOR_DATABASE_PREPARE must be 'true' or 'false'; it is '\(other)'.")
        }
        if let level = text("DATA_MEDIATOR_LOG_LEVEL"), Logger.Level(rawValue: level.lowercased()) == nil {
            throw ValidationError(
                "DATA_MEDIATOR_LOG_LEVEL must be one of "
                    + Logger.Level.allCases.map { "'\($0.rawValue)'" }.joined(separator: ", ") + "; it is '\(level)'."
            )
        }
        if let logFormat, !["text", "json"].contains(logFormat.lowercased()) {
            throw ValidationError("DATA_MEDIATOR_LOG_FORMAT must be 'text' or 'json'; it is '\(logFormat)'.")
        }
        self.heartbeatSeconds = try number("DATA_MEDIATOR_HEARTBEAT_SECONDS") ?? 10
        func positive(_ name: String, _ fallback: Int, in range: ClosedRange<Int> = 1...Int.max) throws -> Int {
            let value = try number(name) ?? fallback
            guard range.contains(value) else {
                throw ValidationError(
                    range.upperBound == Int.max
                        ? "\(name) must be at least \(range.lowerBound); it is \(value)."
                        : "\(name) must be from \(range.lowerBound) to \(range.upperBound); it is \(value)."
                )
            }
            return value
        }
        self.shutdownGraceSeconds = try number("DATA_MEDIATOR_SHUTDOWN_GRACE_SECONDS") ?? 10
        guard (1...600).contains(self.shutdownGraceSeconds) else {
            throw ValidationError(
                "DATA_MEDIATOR_SHUTDOWN_GRACE_SECONDS must be from 1 to 600; it is \(self.shutdownGraceSeconds)."
            )
        }
        let rate = try positive("DATA_MEDIATOR_CLIENT_RATE", 100, in: 0...1_000_000)
        let writeRate = try positive("DATA_MEDIATOR_CLIENT_WRITE_RATE", 0, in: 0...1_000_000)
        self.limits = ServerLimits(
            maximumConnections: try positive("DATA_MEDIATOR_MAX_CONNECTIONS", 1024),
            connectionsPerAddress: try number("DATA_MEDIATOR_CLIENT_CONNECTIONS") == nil
                ? nil : try positive("DATA_MEDIATOR_CLIENT_CONNECTIONS", 0),
            idleTimeout: .seconds(try positive("DATA_MEDIATOR_IDLE_TIMEOUT_SECONDS", 60, in: 1...86_400)),
            requestHeadTimeout: .seconds(try positive("DATA_MEDIATOR_REQUEST_HEAD_TIMEOUT_SECONDS", 10, in: 1...3_600)),
            requestBodyTimeout: .seconds(try positive("DATA_MEDIATOR_REQUEST_BODY_TIMEOUT_SECONDS", 30, in: 1...3_600)),
            maximumHeaderBytes: try positive("DATA_MEDIATOR_MAX_HEADER_BYTES", 16 * 1024, in: 1_024...1_048_576),
            requestsPerClient: try positive(
                "DATA_MEDIATOR_CLIENT_REQUESTS",
                Self.defaultRequestsPerClient(databaseConnections: databaseURL == nil ? nil : databaseConnections),
                in: 1...1_000
            ),
            // 0: no bound on the rate.
            requestRatePerClient: rate == 0 ? nil : rate,
            writesPerClient: try positive("DATA_MEDIATOR_CLIENT_WRITES", 4, in: 1...1_000),
            // 0: no bound on the rate.
            writeRatePerClient: writeRate == 0 ? nil : writeRate,
            readsPerClient: try positive(
                "DATA_MEDIATOR_CLIENT_READS",
                Self.defaultReadsPerClient(databaseConnections: databaseURL == nil ? nil : databaseConnections),
                in: 1...1_000
            ),
            shutdownGrace: .seconds(shutdownGraceSeconds)
        )
        self.eventLoopThreads = try positive("DATA_MEDIATOR_EVENT_LOOP_THREADS", Self.defaultEventLoopThreads)
        guard self.eventLoopThreads <= 256 else {
            throw ValidationError(
                "DATA_MEDIATOR_EVENT_LOOP_THREADS must be at most 256; it is \(self.eventLoopThreads)."
            )
        }
        self.maximumStreams = try positive("DATA_MEDIATOR_MAX_STREAMS", 256)
        self.maximumStreamsPerClient = try positive("DATA_MEDIATOR_CLIENT_STREAMS", min(32, max(1, maximumStreams - 1)))
        guard maximumStreamsPerClient < maximumStreams || maximumStreams == 1 else {
            throw ValidationError(
                "DATA_MEDIATOR_CLIENT_STREAMS (\(maximumStreamsPerClient)) must be below DATA_MEDIATOR_MAX_STREAMS "
                    + "(\(maximumStreams)), so that one client cannot hold every stream."
            )
        }
        self.maximumBodyBytes = try Self.maximumBodyBytes(in: environment)
        self.readyMaximumLagSeconds =
            try number("DATA_MEDIATOR_READY_MAX_LAG_SECONDS") == nil
            ? nil : try positive("DATA_MEDIATOR_READY_MAX_LAG_SECONDS", 0, in: 1...86_400)
        if readyMaximumLagSeconds != nil, databaseReadURL == nil {
            throw ValidationError(
                "DATA_MEDIATOR_READY_MAX_LAG_SECONDS bounds a read replica's lag, and no "
                    + "DATA_MEDIATOR_DATABASE_READ_URL is set: set both, or neither."
            )
        }
        self.keySetReloadSeconds = try positive("DATA_MEDIATOR_JWKS_RELOAD_SECONDS", 10, in: 0...86_400)
        self.outsideWritesSeconds = try positive("DATA_MEDIATOR_OUTSIDE_WRITES_SECONDS", 1, in: 0...3_600)
        guard (1...15).contains(self.heartbeatSeconds) else {
            throw ValidationError(
                "DATA_MEDIATOR_HEARTBEAT_SECONDS must be from 1 to 15; it is \(self.heartbeatSeconds)."
            )
        }
        guard (0...65_535).contains(self.port) else {
            throw ValidationError(
                "The port (--port or DATA_MEDIATOR_PORT) must be from 0 to 65535; it is \(self.port)."
            )
        }
        guard (0...Self.maximumDemoTransactions).contains(self.demoTransactions) else {
            throw ValidationError(
                "The demo's transaction count (--demo-transactions or DATA_MEDIATOR_DEMO_TRANSACTIONS) must be from "
                    + "0 to \(Self.maximumDemoTransactions); it is \(self.demoTransactions)."
            )
        }
    }

    /// The most transactions the demo generates: a billion fill some 200 GB; more would
    /// move the demo's first timestamp past what its dates can say.
    static let maximumDemoTransactions = 1_000_000_000

    /// Half the processor cores (as NIO counts them: a container's CPU limit counts), at
    /// least one: the request handlers run on Swift's cooperative pool, one thread per
    /// core, so as many event-loop threads again would make the threads of a busy server
    /// take turns on the cores.
    static var defaultEventLoopThreads: Int {
        max(1, System.coreCount / 2)
    }

    /// The costly requests one client may have in flight when `DATA_MEDIATOR_CLIENT_REQUESTS`
    /// is not set: as many as the cores (as NIO counts them), at least two, so that one
    /// client's lookups, section counts and change reads cannot keep every core busy many
    /// times over while another client's page waits its turn behind them; and on
    /// PostgreSQL at most half the pool (`databaseConnections`), so that they cannot hold
    /// every connection either.
    static func defaultRequestsPerClient(databaseConnections: Int?, cores: Int = System.coreCount) -> Int {
        let share = max(2, cores)
        guard let databaseConnections else { return share }
        return max(1, min(share, databaseConnections / 2))
    }

    /// The reads of lists one client may have in flight when `DATA_MEDIATOR_CLIENT_READS` is
    /// not set: twice the cores, at least four, so that one client keeps every core busy
    /// (a page reads SQLite on the thread that answers it) and another client's page waits
    /// behind a few of its pages, not behind every page it pipelined; on PostgreSQL at most
    /// half the pool, as ``defaultRequestsPerClient(databaseConnections:cores:)``.
    static func defaultReadsPerClient(databaseConnections: Int?, cores: Int = System.coreCount) -> Int {
        let share = max(4, 2 * cores)
        guard let databaseConnections else { return share }
        return max(1, min(share, databaseConnections / 2))
    }

    /// A configured CORS origin as a browser sends it in `Origin`: `*`, or scheme://host[:port]
    /// with the scheme and host in lowercase and the scheme's default port left out (the
    /// origin is compared as text). Anything that no browser sends (a path, `null`, a
    /// wildcard host, a name that is not ASCII, a port out of range) would never match.
    ///
    /// - Throws: `ValidationError` naming the value.
    static func origin(_ value: String) throws -> String {
        if value == "*" { return value }
        let refused = ValidationError(
            "DATA_MEDIATOR_CORS_ORIGINS names '\(value)', which is not an origin: give it as a browser sends it "
                + "in Origin, scheme://host[:port] with no path (https://app.example), or *."
        )
        // The host as written (`encodedHost`): `host` decodes the ASCII form of an
        // internationalized name (`xn--bcher-kva.example`), which is what a browser sends.
        guard value.unicodeScalars.allSatisfy(\.isASCII), let parts = URLComponents(string: value),
            let scheme = parts.scheme?.lowercased(), !scheme.isEmpty,
            let host = parts.encodedHost?.lowercased(), !host.isEmpty, parts.path.isEmpty, parts.query == nil,
            parts.fragment == nil, parts.user == nil, !value.hasSuffix(":"), !host.contains("*")
        else { throw refused }
        var port = ""
        if let number = parts.port {
            guard (1...65535).contains(number) else { throw refused }
            if !(scheme == "https" && number == 443) && !(scheme == "http" && number == 80) { port = ":\(number)" }
        }
        return scheme + "://" + host + port
    }
}
