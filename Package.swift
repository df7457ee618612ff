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
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        // Property-based tests of the beer-queue parser (its fuzzing invariants), tests only.
        .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.1"),
        .package(url: "https://github.com/pointfreeco/swift-clocks", from: "1.1.1"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio-http2", from: "1.46.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
    ],
    targets: [
        // The per-field code of the record and the library book, written at build time from codegen/fields.json.
        .plugin(name: "Fields", capability: .buildTool()),
        .systemLibrary(
            name: "CZlib",
            pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"])]
        ),
        .systemLibrary(name: "CSystemShims"),
        // Writes gzip members about twice as fast as zlib at level 1 (bench in GzipWriter.swift).
        // SHA-256, ES256 and random bytes from the system's libcrypto rather than swift-crypto, whose
        // own BoringSSL is about a fifth of a fresh build beside swift-nio-ssl's (docs/performance.md, "Build").
        .systemLibrary(name: "COpenSSL", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CLibdeflate", providers: [.apt(["libdeflate-dev"])]),
        .systemLibrary(
            name: "CSQLite",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        .target(
            name: "ShelflineCore",
            dependencies: [
                "CZlib", "CLibdeflate", "CSystemShims",
                "COpenSSL",
                .product(name: "Logging", package: "swift-log"),
            ],
            plugins: ["Fields"]
        ),
        // The report files one stage writes and others read (parse's, merge's): not in Core, which
        // holds nothing stage-specific, nor in their stages' libraries, which their readers must not link.
        .target(name: "ShelflineReports", dependencies: ["ShelflineCore"]),
        .target(name: "ShelflineParse", dependencies: ["ShelflineCore", "ShelflineReports"], plugins: ["Fields"]),
        .target(name: "ShelflineLibrary", dependencies: ["ShelflineCore", "ShelflineReports"], plugins: ["Fields"]),
        .target(
            name: "ShelflineLookup",
            dependencies: ["ShelflineCore", "ShelflineReports", "CSQLite", "CZlib", "CLibdeflate", "ShelflineHTTP"]),
        // The app's Live Activity models, push bodies and snapshot files: what render and the beer
        // queue publish and push sends, so that neither push nor the beer queue depends on render.
        .target(name: "ShelflineActivity", dependencies: ["ShelflineCore"]),
        // The library page reads the library (ShelflineLibrary's `LibraryBook`); the report page
        // reads merge's export-layout CSVs with the parse stage's reader (ShelflineParse).
        .target(
            name: "ShelflineRender",
            dependencies: ["ShelflineCore", "ShelflineReports", "ShelflineActivity", "ShelflineLibrary", "ShelflineParse"]),
        // The beer-queue activity and its cookie-carrying poll (ShelflineHTTP): only render links it.
        .target(name: "ShelflineBeerQueue", dependencies: ["ShelflineCore", "ShelflineActivity", "ShelflineHTTP"]),
        // The one HTTP GET (AsyncHTTPClient: streaming size limit, deadline, redirect rule) of lookup and
        // the beer queue; not in Core, so that parse, dedupe and merge do not link AsyncHTTPClient.
        .target(
            name: "ShelflineHTTP",
            dependencies: [
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]),
        .target(name: "ShelflineOrchestrator", dependencies: ["ShelflineCore", "ShelflineReports", "CSystemShims"]),
        // Stage command plumbing alone (each stage's command sits in its executable), so that
        // `shelfline-parse` does not load FoundationNetworking (libcurl and its TLS stack: ~6 MiB of
        // RSS it never uses) and no other executable links the CSV parser.
        .target(
            name: "ShelflineStageCLI",
            dependencies: [
                "ShelflineCore", "CSystemShims",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .target(
            name: "ShelflineCommands",
            dependencies: [
                "ShelflineStageCLI", "ShelflineCore", "ShelflineParse", "ShelflineLibrary", "ShelflineLookup",
                "ShelflineRender", "ShelflineActivity", "ShelflineOrchestrator",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
    ]
        // Each executable links only the libraries its command uses (measured: see docs/ARCHITECTURE.md).
        + [
            .executableTarget(name: "shelfline", dependencies: ["ShelflineCommands"]),
            .executableTarget(name: "shelfline-parse", dependencies: ["ShelflineStageCLI", "ShelflineParse", argumentParser]),
            .executableTarget(name: "shelfline-dedupe", dependencies: ["ShelflineStageCLI", "ShelflineLibrary", argumentParser]),
            .executableTarget(name: "shelfline-lookup", dependencies: ["ShelflineStageCLI", "ShelflineLookup", argumentParser]),
            .executableTarget(name: "shelfline-merge", dependencies: ["ShelflineStageCLI", "ShelflineLibrary", argumentParser]),
            .executableTarget(
                name: "shelfline-render",
                // Every stage's description comes from ShelflineReports' stage list: no stage library is linked for it.
                dependencies: ["ShelflineStageCLI", "ShelflineRender", "ShelflineReports", "ShelflineBeerQueue", argumentParser]),
        ]
        + [
            // APNs delivery: logic in ShelflinePush, commands in ShelflinePushCommands. Only
            // shelfline-push links AsyncHTTPClient; the stage executables do not.
            .target(
                name: "ShelflinePush",
                dependencies: [
                    "ShelflineCore", "ShelflineActivity",
                    "COpenSSL",
                    .product(name: "AsyncHTTPClient", package: "async-http-client"),
                    .product(name: "NIOCore", package: "swift-nio"),
                    .product(name: "NIOSSL", package: "swift-nio-ssl"),
                    // `serve`'s TLS handshake deadline watches the handshake-completed event.
                    .product(name: "NIOTLS", package: "swift-nio"),
                    // `serve`: HTTP/1.1 on NIO directly, no web framework (ServeHTTPServer.swift).
                    .product(name: "NIOPosix", package: "swift-nio"),
                    .product(name: "NIOHTTP1", package: "swift-nio"),
                ],
                path: "Sources/ShelflinePush/Delivery"
            ),
            .target(
                name: "ShelflinePushCommands",
                dependencies: [
                    "ShelflinePush", "ShelflineActivity", "ShelflineStageCLI", "ShelflineCore",
                    .product(name: "ArgumentParser", package: "swift-argument-parser"),
                ],
                path: "Sources/ShelflinePush/Commands"
            ),
            .executableTarget(name: "shelfline-push", dependencies: ["ShelflinePushCommands"]),
            // A loopback APNs (HTTP/2 over TLS): for the push tests and bench/push only.
            .target(
                name: "APNsTestServer",
                dependencies: [
                    "TestSupport", "COpenSSL",
                    .product(name: "NIOCore", package: "swift-nio"),
                    .product(name: "NIOPosix", package: "swift-nio"),
                    .product(name: "NIOHTTP1", package: "swift-nio"),
                    .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                    .product(name: "NIOSSL", package: "swift-nio-ssl"),
                ],
                path: "Tests/APNsTestServer"
            ),
            .executableTarget(
                name: "shelfline-push-bench",
                dependencies: ["ShelflinePush", "ShelflineActivity", "APNsTestServer", "TestSupport"],
                path: "bench/push/Sources"),
            .testTarget(
                name: "ShelflinePushTests",
                dependencies: [
                    "ShelflinePush", "ShelflineActivity", "APNsTestServer", "TestSupport", "TestTraits", "COpenSSL",
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
            // Swift Testing traits the suites share (imports Testing).
            .target(name: "TestTraits", dependencies: ["ShelflineCore"], path: "Tests/TestTraits"),
            // The Open Library stand-in as a process, for bench/lookup.
            .executableTarget(name: "fake-openlibrary", dependencies: ["TestSupport"], path: "Tests/FakeOpenLibrary"),
            .testTarget(
                name: "ShelflineCoreTests",
                dependencies: ["ShelflineCore", "TestSupport", "TestTraits", .product(name: "Logging", package: "swift-log")]),
            .testTarget(
                name: "ShelflineParseTests", dependencies: ["ShelflineParse", "ShelflineReports", "TestSupport", "TestTraits"],
                plugins: ["Fields"]),
            .testTarget(
                name: "ShelflineLibraryTests",
                dependencies: ["ShelflineLibrary", "ShelflineReports", "TestSupport", "TestTraits"]),
            .testTarget(name: "ShelflineLookupTests", dependencies: ["ShelflineLookup", "TestSupport", "TestTraits"]),
            .testTarget(name: "ShelflineHTTPTests", dependencies: ["ShelflineHTTP", "TestSupport", "TestTraits"]),
            .testTarget(
                name: "ShelflineRenderTests",
                dependencies: [
                    "ShelflineRender", "ShelflineReports", "ShelflineActivity", "ActivityTestSupport", "TestSupport",
                    "TestTraits",
                    "ShelflineCommands",
                ]),
            // Snapshot checks against the phone's structs, shared by the render and beer-queue tests (imports Testing).
            .target(name: "ActivityTestSupport", dependencies: ["TestSupport"], path: "Tests/ActivityTestSupport"),
            .testTarget(
                name: "ShelflineBeerQueueTests",
                dependencies: [
                    "ShelflineBeerQueue", "ShelflineActivity", "ActivityTestSupport", "TestSupport", "TestTraits",
                    .product(name: "PropertyBased", package: "swift-property-based"),
                ]),
            .testTarget(
                name: "ShelflineOrchestratorTests",
                dependencies: ["ShelflineOrchestrator", "ShelflineReports", "TestSupport", "TestTraits", "ShelflineCommands"],
                exclude: ["Fixtures"]),
            .testTarget(
                name: "EndToEndTests",
                dependencies: ["ShelflineCore", "ShelflineReports", "TestSupport", "TestTraits", "ShelflineCommands"]),
            // The stage descriptions as the commands layer lists them (`PipelineStages`).
            .testTarget(
                name: "ShelflineCommandsTests",
                dependencies: [
                    "ShelflineCommands", "ShelflineCore", "ShelflineLibrary", "ShelflineParse", "TestSupport", "TestTraits",
                ]),
            // docs/ARCHITECTURE.md's recipes followed from outside the product: a toy import format
            // and a toy metadata source, run through every stage.
            .testTarget(
                name: "RecipeTests",
                dependencies: [
                    "ShelflineParse", "ShelflineLookup", "ShelflineLibrary", "ShelflineRender", "ShelflineReports",
                    "ShelflineCore", "TestSupport", "TestTraits",
                ]),
            .testTarget(
                name: "ExportRoundTripTests",
                dependencies: [
                    "ShelflineParse", "ShelflineLibrary", "TestSupport", "TestTraits",
                    .product(name: "PropertyBased", package: "swift-property-based"),
                ]),
        ],
    swiftLanguageModes: [.v6]
)

// Test code is compiled without optimisation: the products it tests are the release build's, and
// optimising the test targets cost most of `make test`'s build (docs/performance.md, "Build").
for target in package.targets where target.type == .test || target.path?.hasPrefix("Tests/") == true {
    target.swiftSettings = (target.swiftSettings ?? []) + [.unsafeFlags(["-Onone"])]
}
