// swift-tools-version:6.2
import PackageDescription

// Allocation and time benchmarks of the hot path (issue 3), kept in their own package so
// that the service does not depend on `benchmark` and its malloc interposer.
//
// Run from this folder: `swift package --disable-sandbox benchmark` (or `scripts/bench-allocations`
// from the repository root). The plugin finds benchmark targets under `Benchmarks/<Name>/`
// of this package; `../Benchmarks/Ceiling` belongs to the root package and is not one.
let package = Package(
    name: "data-mediator-benchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "data-mediator", path: ".."),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        .executableTarget(
            name: "HotPath",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "DataMediator", package: "data-mediator"),
            ],
            path: "Benchmarks/HotPath",
            swiftSettings: [.swiftLanguageMode(.v6)],
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        )
    ]
)
