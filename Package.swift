// swift-tools-version: 6.0
import PackageDescription

/// Executables are thin `main`s over one command each; all logic lives in libraries.
let stageExecutables = [
    "shelfline", "shelfline-parse", "shelfline-dedupe", "shelfline-lookup", "shelfline-merge", "shelfline-render",
]

let argumentParser: Target.Dependency = .product(name: "ArgumentParser", package: "swift-argument-parser")

let package = Package(
    name: "Shelfline",
    platforms: [.macOS(.v13)],
    products: stageExecutables.map { .executable(name: $0, targets: [$0]) }
        + [.executable(name: "shelfline-push", targets: ["shelfline-push"])],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        // Property-based tests of the beer-queue parser (issue 10 fuzzing invariants), tests only.
        .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.1"),
        .package(url: "https://github.com/pointfreeco/swift-clocks", from: "1.1.1"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio-http2", from: "1.46.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-certificates", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-asn1", from: "1.7.4"),
        // `serve`'s SIGTERM handling (ServiceGroup); already resolved through swift-configuration.
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
    ],
    targets: [
        .systemLibrary(
            name: "CZlib",
            pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"])]
        ),
        .systemLibrary(name: "CSystemShims"),
        // libcurl for the beer-queue poll: its write callback stops a transfer at the page limit.
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        // Writes gzip members about twice as fast as zlib at level 1 (bench in GzipWriter.swift).
        .systemLibrary(name: "CLibdeflate", providers: [.apt(["libdeflate-dev"])]),
        .systemLibrary(
            name: "CSQLite",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        .target(
            name: "ShelflineCore",
            dependencies: [
                "CZlib", "CLibdeflate",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        .target(name: "ShelflineParse", dependencies: ["ShelflineCore"]),
        .target(name: "ShelflineLibrary", dependencies: ["ShelflineCore"]),
        .target(name: "ShelflineLookup", dependencies: ["ShelflineCore", "CSQLite", "CZlib", "CLibdeflate", "CCurl"]),
        // The library page reads the library (ShelflineLibrary's `LibraryBook`).
        .target(name: "ShelflineRender", dependencies: ["ShelflineCore", "ShelflineLibrary"]),
        // The beer-queue activity and its cookie-carrying poll (libcurl): only render links it.
        .target(name: "ShelflineBeerQueue", dependencies: ["ShelflineCore", "ShelflineRender", "CCurl"]),
        .target(name: "ShelflineOrchestrator", dependencies: ["ShelflineCore", "CSystemShims"]),
        // Stage command plumbing and the parse command alone, so that `shelfline-parse` does not
        // load FoundationNetworking (libcurl and its TLS stack: ~6 MiB of RSS it never uses).
        .target(
            name: "ShelflineStageCLI",
            dependencies: [
                "ShelflineCore", "ShelflineParse", "CSystemShims",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .target(
            name: "ShelflineCommands",
            dependencies: [
                "ShelflineStageCLI", "ShelflineCore", "ShelflineParse", "ShelflineLibrary", "ShelflineLookup",
                "ShelflineRender", "ShelflineOrchestrator",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
    ]
        // Each executable links only the libraries its command uses (measured: see docs/ARCHITECTURE.md).
        + [
            .executableTarget(name: "shelfline", dependencies: ["ShelflineCommands"]),
            .executableTarget(name: "shelfline-parse", dependencies: ["ShelflineStageCLI"]),
            .executableTarget(name: "shelfline-dedupe", dependencies: ["ShelflineStageCLI", "ShelflineLibrary", argumentParser]),
            .executableTarget(name: "shelfline-lookup", dependencies: ["ShelflineStageCLI", "ShelflineLookup", argumentParser]),
            .executableTarget(name: "shelfline-merge", dependencies: ["ShelflineStageCLI", "ShelflineLibrary", argumentParser]),
            .executableTarget(
                name: "shelfline-render", dependencies: ["ShelflineStageCLI", "ShelflineRender", "ShelflineBeerQueue", argumentParser]),
        ]
        + [
            // APNs delivery (issue 11): logic in ShelflinePush, commands in ShelflinePushCommands. Only
            // shelfline-push links AsyncHTTPClient; the stage executables do not.
            .target(
                name: "ShelflinePush",
                dependencies: [
                    "ShelflineCore", "ShelflineRender",
                    // `serve`'s refresh spawns render and send with its `ChildProcess`.
                    "ShelflineOrchestrator",
                    .product(name: "AsyncHTTPClient", package: "async-http-client"),
                    .product(name: "Crypto", package: "swift-crypto"),
                    .product(name: "NIOCore", package: "swift-nio"),
                    .product(name: "NIOSSL", package: "swift-nio-ssl"),
                    // `serve` (issue 27): HTTP/1.1 on NIO directly, no web framework (ServeHTTPServer.swift).
                    .product(name: "NIOPosix", package: "swift-nio"),
                    .product(name: "NIOHTTP1", package: "swift-nio"),
                ],
                path: "Sources/ShelflinePush/Delivery"
            ),
            .target(
                name: "ShelflinePushCommands",
                dependencies: [
                    "ShelflinePush", "ShelflineStageCLI", "ShelflineCore",
                    .product(name: "ArgumentParser", package: "swift-argument-parser"),
                    .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                    .product(name: "Logging", package: "swift-log"),
                ],
                path: "Sources/ShelflinePush/Commands"
            ),
            .executableTarget(name: "shelfline-push", dependencies: ["ShelflinePushCommands"]),
            // A loopback APNs (HTTP/2 over TLS): for the push tests and bench/push only.
            .target(
                name: "APNsTestServer",
                dependencies: [
                    "ShelflineRender", "TestSupport",
                    .product(name: "Crypto", package: "swift-crypto"),
                    .product(name: "NIOCore", package: "swift-nio"),
                    .product(name: "NIOPosix", package: "swift-nio"),
                    .product(name: "NIOHTTP1", package: "swift-nio"),
                    .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                    .product(name: "NIOSSL", package: "swift-nio-ssl"),
                    .product(name: "X509", package: "swift-certificates"),
                    .product(name: "SwiftASN1", package: "swift-asn1"),
                ],
                path: "Tests/APNsTestServer"
            ),
            .executableTarget(
                name: "shelfline-push-bench", dependencies: ["ShelflinePush", "APNsTestServer", "TestSupport"],
                path: "bench/push/Sources"),
            .testTarget(
                name: "ShelflinePushTests",
                dependencies: [
                    "ShelflinePush", "APNsTestServer", "TestSupport",
                    .product(name: "AsyncHTTPClient", package: "async-http-client"),
                ]),
            .target(
                name: "TestSupport",
                dependencies: [
                    "ShelflineCore",
                    .product(name: "NIOCore", package: "swift-nio"),
                    .product(name: "NIOPosix", package: "swift-nio"),
                    .product(name: "NIOHTTP1", package: "swift-nio"),
                    .product(name: "Clocks", package: "swift-clocks"),
                ],
                path: "Tests/TestSupport"
            ),
            // The Open Library stand-in as a process, for bench/lookup.
            .executableTarget(name: "fake-openlibrary", dependencies: ["TestSupport"], path: "Tests/FakeOpenLibrary"),
            .testTarget(name: "ShelflineCoreTests", dependencies: ["ShelflineCore", "TestSupport"]),
            .testTarget(name: "ShelflineParseTests", dependencies: ["ShelflineParse", "TestSupport"]),
            .testTarget(name: "ShelflineLibraryTests", dependencies: ["ShelflineLibrary", "TestSupport"]),
            .testTarget(name: "ShelflineLookupTests", dependencies: ["ShelflineLookup", "TestSupport"]),
            .testTarget(
                name: "ShelflineRenderTests",
                dependencies: [
                    "ShelflineRender", "ShelflineBeerQueue", "TestSupport",
                    .product(name: "PropertyBased", package: "swift-property-based"),
                ]),
            .testTarget(
                name: "ShelflineOrchestratorTests", dependencies: ["ShelflineOrchestrator", "TestSupport"],
                exclude: ["Fixtures"]),
            .testTarget(name: "EndToEndTests", dependencies: ["ShelflineCore", "TestSupport"]),
            .testTarget(
                name: "ExportRoundTripTests",
                dependencies: ["ShelflineParse", "ShelflineLibrary", "TestSupport",
                               .product(name: "PropertyBased", package: "swift-property-based")]),
        ],
    swiftLanguageModes: [.v6]
)
