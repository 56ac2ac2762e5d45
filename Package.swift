// swift-tools-version:6.0
import PackageDescription

/// Targets follow the data flow (README, Layout): pure rules (BadgeCore, Schema, Ledger, BBS)
/// at the bottom, side effects (HTTPServer, Storage, Crypto over OpenSSL) at the edges,
/// Handlers in between, the HTTP surface (Gateway) and the commands (CLI) above them, and the
/// `badge-service` executable wiring them together.
let strict: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
]

/// BLS12-381 and Ed25519 field arithmetic are unusably slow unoptimised, so BBS and Crypto are
/// always compiled with -O, even in debug builds, keeping `swift test` fast.
let optimised: [SwiftSetting] = strict + [.unsafeFlags(["-O"])]

let package = Package(
    name: "badge-service",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "badge-service", targets: ["badge-service"]),
    ],
    targets: [
        .systemLibrary(name: "COpenSSL", path: "Sources/COpenSSL", pkgConfig: "openssl",
                       providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CSQLite", path: "Sources/CSQLite", pkgConfig: "sqlite3",
                       providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CLibPQ", path: "Sources/CLibPQ", pkgConfig: "libpq",
                       providers: [.apt(["libpq-dev"])]),

        .target(name: "BadgeCore", swiftSettings: strict),
        // ThreadSanitizer's acquire/release annotations, for the locks it cannot see (Mutex).
        .target(name: "CSanitizerHooks"),
        .target(name: "Locking", dependencies: ["CSanitizerHooks"], swiftSettings: strict),
        .target(name: "JSON", swiftSettings: strict),
        .target(name: "Logging", dependencies: ["JSON", "Locking"], swiftSettings: strict),
        .target(name: "TestSupport", dependencies: ["Locking", "JSON", "HTTPServer", "BadgeCore", "Schema", "Handlers", "Storage", "Crypto", "CSpawn",
                                                   "Providers", "Settings", "OutsideHTTP"],
                swiftSettings: strict),
        // posix_spawn's close-from action, which the Swift Glibc module does not import.
        .target(name: "CSpawn"),
        .target(name: "Crypto", dependencies: ["COpenSSL", "BadgeCore"], swiftSettings: optimised),
        .target(name: "HTTPServer", dependencies: ["Locking"], swiftSettings: strict),
        .target(name: "Schema", dependencies: ["JSON", "BadgeCore", "Ledger", "Locking"], swiftSettings: strict),
        .target(name: "RequestAuth", dependencies: ["Crypto", "BadgeCore"], swiftSettings: strict),
        .target(name: "CConstantTime"),
        .target(name: "BBS", dependencies: ["Crypto", "CConstantTime", "Locking"], swiftSettings: optimised),
        .target(name: "Credentials", dependencies: ["JSON", "BBS", "BadgeCore"], swiftSettings: strict),
        .target(name: "Ledger", dependencies: ["BadgeCore"], swiftSettings: strict),
        // One way to call an outside API (URL session, deadline, size cap), for every provider client.
        .target(name: "OutsideHTTP", dependencies: ["Locking"], swiftSettings: strict),
        .target(name: "AppStore", dependencies: ["COpenSSL", "JSON", "BadgeCore", "OutsideHTTP"], path: "Sources/Stores/AppStore",
                swiftSettings: strict),
        .target(name: "Storage", dependencies: ["CSQLite", "CLibPQ", "BadgeCore", "Ledger", "Locking"], swiftSettings: strict),
        .target(name: "GooglePlay", dependencies: ["COpenSSL", "JSON", "BadgeCore", "Ledger", "Locking", "OutsideHTTP"],
                path: "Sources/Stores/GooglePlay", swiftSettings: strict),
        // How a configuration section's keys are read, shown and required: the core keys' and every
        // store's and provider's section.
        .target(name: "Settings", swiftSettings: strict),
        // The payment providers, one folder each behind one protocol (README, Layout), and the
        // registry built from the configuration.
        .target(name: "Providers", dependencies: ["Settings", "JSON", "Crypto", "BadgeCore", "OutsideHTTP"], swiftSettings: strict),
        // The coin wallet (issue 13): its own routes and ledger, on the same store clients and storage.
        .target(name: "Wallet", dependencies: ["Handlers", "AppStore", "GooglePlay", "JSON", "Schema", "Storage", "Crypto", "BadgeCore"],
                swiftSettings: strict),
        .target(name: "Handlers",
                dependencies: ["AppStore", "GooglePlay", "Providers", "JSON", "Schema", "RequestAuth", "Credentials", "Ledger", "Storage", "Crypto", "BadgeCore", "Locking"],
                swiftSettings: strict),
        .target(name: "Gateway", dependencies: ["HTTPServer", "Handlers", "Wallet", "Providers", "JSON", "Schema", "RequestAuth", "BadgeCore", "Locking",
                                                "Logging", "Storage"],
                swiftSettings: strict),
        .target(name: "CLI",
                dependencies: ["AppStore", "GooglePlay", "HTTPServer", "Gateway", "Handlers", "Wallet", "JSON", "Schema", "RequestAuth", "Credentials", "Ledger", "Storage",
                               "Crypto", "BadgeCore", "Locking", "Logging", "OutsideHTTP", "CExtendedAttributes", "Providers", "Settings"],
                swiftSettings: strict),
        .target(name: "CExtendedAttributes"),
        .executableTarget(name: "badge-service",
                          dependencies: ["CLI", "Gateway", "HTTPServer", "Handlers", "Wallet", "Providers", "RequestAuth", "BadgeCore", "Locking",
                                         "Logging", "Storage"],
                          swiftSettings: strict),
        .executableTarget(name: "issue-bench",
                          dependencies: ["Handlers", "Storage", "Credentials", "RequestAuth", "Crypto", "JSON", "Schema", "Ledger", "BadgeCore",
                                         "TestSupport"],
                          path: "bench/issue", exclude: ["run"], swiftSettings: strict),
        .executableTarget(name: "http-signed-pool",
                          dependencies: ["RequestAuth", "Crypto", "JSON", "Schema", "Ledger", "BadgeCore"],
                          path: "bench/http/signed-pool", swiftSettings: strict),
        .executableTarget(name: "scale-bench",
                          dependencies: ["Handlers", "Storage", "Credentials", "Crypto", "JSON", "Schema", "Ledger", "BadgeCore"],
                          path: "bench/scale", exclude: ["run"], swiftSettings: strict),
        .executableTarget(name: "bbs-bench", dependencies: ["BBS", "Credentials", "BadgeCore"], path: "bench/bbs",
                          exclude: ["run", "blst_timing.py"], swiftSettings: optimised),
        .executableTarget(name: "ed25519-bench", dependencies: ["Crypto"], path: "bench/ed25519", exclude: ["run"],
                          swiftSettings: strict),
        .executableTarget(name: "ct-bench", dependencies: ["BBS"], path: "bench/ct", exclude: ["run"], swiftSettings: optimised),

        .testTarget(name: "LockingTests", dependencies: ["Locking"], swiftSettings: strict),
        .testTarget(name: "BadgeCoreTests", dependencies: ["BadgeCore"], swiftSettings: strict),
        .testTarget(name: "CryptoTests", dependencies: ["Crypto"], swiftSettings: strict),
        .testTarget(name: "HTTPServerTests", dependencies: ["TestSupport", "HTTPServer", "Locking"], swiftSettings: strict),
        .testTarget(name: "JSONTests", dependencies: ["JSON"], swiftSettings: strict),
        .testTarget(name: "SchemaTests", dependencies: ["TestSupport", "JSON", "Schema"], swiftSettings: strict),
        .testTarget(name: "RequestAuthTests", dependencies: ["TestSupport", "RequestAuth", "Crypto"], swiftSettings: strict),
        .testTarget(name: "BBSTests", dependencies: ["TestSupport", "BBS"], swiftSettings: optimised),
        .testTarget(name: "CredentialsTests", dependencies: ["TestSupport", "Credentials", "BBS", "BadgeCore", "JSON", "Schema", "Locking"], swiftSettings: strict),
        .testTarget(name: "LedgerTests", dependencies: ["TestSupport", "JSON", "Ledger", "Crypto"], swiftSettings: strict),
        .testTarget(name: "AppStoreTests", dependencies: ["TestSupport", "AppStore", "JSON", "BadgeCore"], swiftSettings: strict),
        .testTarget(name: "StorageTests", dependencies: ["TestSupport", "Storage", "Locking"], swiftSettings: strict),
        .testTarget(name: "HandlersTests", dependencies: ["TestSupport", "Handlers", "GooglePlay", "AppStore", "Schema", "BadgeCore", "JSON", "Locking"], swiftSettings: strict),
        .testTarget(name: "PaymentsTests", dependencies: ["TestSupport", "Providers", "Settings", "OutsideHTTP", "Handlers", "Storage", "Ledger", "JSON",
                                                         "Crypto", "BadgeCore", "Schema", "Locking"], swiftSettings: strict),
        .testTarget(name: "GatewayTests", dependencies: ["TestSupport", "Gateway", "Providers", "Handlers", "Wallet", "Storage", "BadgeCore", "JSON", "Locking", "HTTPServer", "RequestAuth", "Schema", "Logging", "Crypto", "Ledger"],
                    swiftSettings: strict),
        .testTarget(name: "CLITests", dependencies: ["TestSupport", "CLI", "Providers", "Settings", "Handlers", "HTTPServer", "Credentials", "JSON", "BadgeCore"], swiftSettings: strict),
        .testTarget(name: "GooglePlayTests", dependencies: ["TestSupport", "GooglePlay", "HTTPServer", "JSON", "BadgeCore", "Locking", "OutsideHTTP"],
                    swiftSettings: strict),
        .testTarget(name: "WalletTests", dependencies: ["TestSupport", "Wallet", "Storage", "AppStore", "GooglePlay", "JSON", "Schema",
                                                       "Crypto", "BadgeCore", "Locking"], swiftSettings: strict),
        // Our parsers against independent ones on mutated inputs (Tests/Fuzz/README.md, Differential).
        .testTarget(name: "DifferentialTests", dependencies: ["TestSupport", "JSON", "BadgeCore", "RequestAuth", "Schema", "HTTPServer"],
                    swiftSettings: strict),
        .testTarget(name: "EndToEndTests", dependencies: ["TestSupport", "JSON", "Locking", "Schema", "Crypto", "RequestAuth", "Ledger", "Storage", "BadgeCore"], swiftSettings: strict),
    ]
)

/// The libFuzzer targets (Tests/Fuzz/README.md), declared only when `scripts/fuzz` builds them
/// (`BADGE_FUZZ=1`, with `-sanitize=fuzzer,address`, into `.build/fuzz`): `swift build` and
/// `scripts/test` never see them. Each is an executable whose `main.swift` hands its one-input
/// function to libFuzzer's driver through `FuzzSupport`.
if Context.environment["BADGE_FUZZ"] != nil {
    let harnesses: [(name: String, dependencies: [Target.Dependency])] = [
        ("FuzzHTTPRequest", ["HTTPServer"]),
        ("FuzzJSON", ["JSON"]),
        ("FuzzJTDRequest", ["Schema", "JSON"]),
        ("FuzzStructuredFields", ["RequestAuth"]),
        ("FuzzSignatureVerifier", ["RequestAuth", "BadgeCore"]),
        ("FuzzBase64URL", ["BadgeCore"]),
        ("FuzzAppStoreJWS", ["AppStoreSigning", "AppStore", "BadgeCore", "JSON"]),
        ("FuzzAppStoreNotification", ["AppStoreSigning", "AppStore", "BadgeCore", "JSON"]),
        ("FuzzJWKS", ["GooglePlay", "OutsideHTTP", "BadgeCore", "JSON"]),
        ("FuzzWebhookSignatures", ["Providers", "BadgeCore", "Crypto"]),
        ("FuzzPlayPush", ["GooglePlay", "BadgeCore", "JSON"]),
        ("FuzzINIConfiguration", ["CLI"]),
    ]
    package.targets += [
        .target(name: "FuzzDriver", path: "Tests/Fuzz/Driver"),
        .target(name: "FuzzSupport", dependencies: ["FuzzDriver"], path: "Tests/Fuzz/Support", swiftSettings: strict),
        // The App Store harnesses sign what the fuzzer writes with a throw-away test PKI.
        .target(name: "AppStoreSigning", dependencies: ["COpenSSL", "BadgeCore", "JSON"], path: "Tests/Fuzz/AppStoreSigning",
                swiftSettings: strict),
    ]
    package.targets += harnesses.map { harness in
        .executableTarget(name: harness.name, dependencies: ["FuzzSupport"] + harness.dependencies,
                          path: "Tests/Fuzz/Targets/\(harness.name.dropFirst(4))", swiftSettings: strict)
    }
}
