// swift-tools-version:6.2
import PackageDescription

let swiftSettings: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .treatAllWarnings(as: .error),
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "data-mediator",
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    products: [
        .executable(name: "data-mediator", targets: ["data-mediator"]),
        .library(name: "DataMediator", targets: ["DataMediator"]),
        .library(name: "DataMediatorSQL", targets: ["DataMediatorSQL"]),
        .library(name: "DataMediatorSQLite", targets: ["DataMediatorSQLite"]),
        .library(name: "DataMediatorPostgres", targets: ["DataMediatorPostgres"]),
        .library(name: "DataMediatorHTTP", targets: ["DataMediatorHTTP"]),
        .library(name: "DataMediatorClient", targets: ["DataMediatorClient"]),
        .executable(name: "data-mediator-follow", targets: ["data-mediator-follow"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-crypto", from: "4.5.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
        .package(url: "https://github.com/yaslab/CSV.swift", from: "2.5.2"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
        .package(url: "https://github.com/adam-fowler/compress-nio", from: "1.5.0"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/vapor/jwt-kit", from: "5.8.0"),
    ],
    targets: [
        .target(
            name: "DataMediator",
            dependencies: [.product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "DataMediatorSQL",
            dependencies: ["DataMediator", .product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "DataMediatorSQLite",
            dependencies: [
                "DataMediator", "DataMediatorSQL", .product(name: "GRDB", package: "GRDB.swift"),
                // SQLite's own API, for what GRDB does not tell: a column's collation.
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "DataMediatorPostgres",
            dependencies: [
                "DataMediator",
                "DataMediatorSQL",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "DataMediatorHTTP",
            dependencies: [
                "DataMediator",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "NIOHTTPTypesHTTP1", package: "swift-nio-extras"),
                .product(name: "CompressNIO", package: "compress-nio"),
                .product(name: "JWTKit", package: "jwt-kit"),
            ],
            resources: [
                .embedInCode("Resources/openapi.yaml"),
                .embedInCode("Resources/explorer/index.html"),
                .embedInCode("Resources/explorer/explorer.js"),
                .embedInCode("Resources/explorer/live.js"),
                .embedInCode("Resources/explorer/dom.js"),
                .embedInCode("Resources/explorer/pages.js"),
                .embedInCode("Resources/explorer/stream.js"),
                .embedInCode("Resources/explorer/opening.js"),
                .embedInCode("Resources/explorer/explorer.css"),
            ],
            swiftSettings: swiftSettings
        ),
        // The client kit for apps: Foundation only (FoundationNetworking on Linux), no server
        // target, NIO or database.
        .target(
            name: "DataMediatorClient",
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "data-mediator-follow",
            dependencies: ["DataMediatorClient"],
            path: "Examples/ListFollower",
            swiftSettings: swiftSettings
        ),
        .target(
            name: "DataMediatorTesting",
            dependencies: ["DataMediator", .product(name: "Logging", package: "swift-log")],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "data-mediator",
            dependencies: [
                "DataMediator",
                "DataMediatorSQL",
                "DataMediatorSQLite",
                "DataMediatorPostgres",
                "DataMediatorHTTP",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Yams", package: "Yams"),
                .product(name: "CSV", package: "CSV.swift"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "data-mediator-ceiling",
            dependencies: [.product(name: "Hummingbird", package: "hummingbird")],
            path: "Benchmarks/Ceiling",
            swiftSettings: swiftSettings
        ),
        .target(
            name: "FloorPage",
            dependencies: [.product(name: "NIOCore", package: "swift-nio")],
            path: "Benchmarks/FloorPage",
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "data-mediator-floor",
            dependencies: [
                "FloorPage",
                .product(name: "Hummingbird", package: "hummingbird"), .product(name: "GRDB", package: "GRDB.swift"),
            ],
            path: "Benchmarks/Floor",
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "data-mediator-postgres-floor",
            dependencies: [
                "FloorPage",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Benchmarks/PostgresFloor",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "DataMediatorTests",
            dependencies: ["DataMediator", "DataMediatorTesting", .product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "StoreTests",
            dependencies: [
                "DataMediator",
                "DataMediatorSQL",
                "DataMediatorSQLite",
                "DataMediatorPostgres",
                "DataMediatorTesting",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "DataMediatorHTTPTests",
            dependencies: [
                "DataMediator",
                "DataMediatorHTTP",
                "DataMediatorSQL",
                "DataMediatorSQLite",
                "DataMediatorTesting",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "IntegrationTests",
            dependencies: [
                "data-mediator",
                "DataMediator",
                "DataMediatorClient",
                "DataMediatorHTTP",
                "DataMediatorSQL",
                "DataMediatorSQLite",
                "DataMediatorTesting",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Yams", package: "Yams"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "ClientTests",
            dependencies: [
                "data-mediator", "DataMediatorClient", "DataMediatorTesting",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
            ],
            swiftSettings: swiftSettings
        ),
    ]
)
