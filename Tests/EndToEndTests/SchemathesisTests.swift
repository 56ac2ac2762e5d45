import Foundation
import JSON
import Testing
import TestSupport

/// Schemathesis (PyPI, pinned in Tests/Peers/requirements.txt) against the release binary, with
/// the document the binary serves at `GET /openapi.json`: requests generated from it, signed
/// ones included (Tests/Peers/schemathesis_hooks.py signs every envelope that names a
/// `purchaseKey`, with a fresh Ed25519 key); no 5xx, every response conforms to the document,
/// every status is one it declares. A bounded number of examples per operation keeps it short.
@Suite(.serialized, .timeLimit(.minutes(10))) struct SchemathesisTests {
    /// Examples per operation in the fuzzing phase; the examples and coverage phases add their own.
    static let maxExamples = 60

    static let checks = [
        "not_a_server_error", "status_code_conformance", "content_type_conformance", "response_headers_conformance",
        "response_schema_conformance", "negative_data_rejection",
        // schemathesis_hooks.py: the built-in unsupported_method, except that methods the HTTP
        // layer implements nowhere are 501 (Tests/Peers/schemathesis.toml says why).
        "undeclared_method_refused",
    ]

    /// `st` beside the peers' interpreter.
    static var schemathesis: String {
        URL(fileURLWithPath: PeerPython.interpreter).deletingLastPathComponent().appendingPathComponent("st").path
    }

    static func releaseService() throws -> ServiceProcess {
        let binary = FakeTimeDeployment.binary
        guard FileManager.default.isExecutableFile(atPath: binary) else {
            throw ServiceProcess.Failure("no release binary at \(binary): run `swift build -c release --product badge-service` (scripts/test does)")
        }
        return try ServiceProcess(data: TemporaryDirectory("schemathesis"), executable: binary)
    }

    /// Runs `st run location` against `service`; returns the exit status and everything it printed.
    static func run(_ location: String, against service: ServiceProcess, maxExamples: Int, extra: [String] = []) throws -> (status: Int32, output: String) {
        guard FileManager.default.isExecutableFile(atPath: schemathesis) else {
            throw ServiceProcess.Failure("no Schemathesis at \(schemathesis); run scripts/peers-venv")
        }
        var env = ProcessInfo.processInfo.environment
        env["SCHEMATHESIS_HOOKS"] = "schemathesis_hooks"
        env["PYTHONPATH"] = Repository.root.appendingPathComponent("Tests/Peers").path
        let config = Repository.root.appendingPathComponent("Tests/Peers/schemathesis.toml").path
        let arguments = ["--config-file", config, "run", location, "--url", service.url, "--checks", checks.joined(separator: ","),
                         "--max-examples", String(maxExamples), "--seed", "20261130", "--workers", "1",
                         "--request-timeout", "10", "--generation-database", "none", "--no-color",
                         // Hypothesis's health checks judge generation speed, which a loaded CI
                         // machine can trip; the contract checks above are what this test is for.
                         "--suppress-health-check", "all"] + extra
        let result = try runChildProcess(schemathesis, arguments: arguments, environment: env, directory: service.data.url)
        let output = String(decoding: result.stdout, as: UTF8.self) + String(decoding: result.stderr, as: UTF8.self)
        return (result.status, output)
    }

    /// Operations (path and method pairs) of the committed document.
    static func operationCount() throws -> Int {
        let committed = Repository.root.appendingPathComponent("schema/badges-rpc.openapi.json")
        let paths = try JSONValue.parse([UInt8](Data(contentsOf: committed)))["paths"]?.objectValue ?? [:]
        return paths.members.reduce(0) { $0 + ($1.value.objectValue?.count ?? 0) }
    }

    /// Every operation of the served document, fuzzed: Schemathesis finds nothing, and signed
    /// commands did reach their handlers (the access log shows answers only a signed request
    /// gets: unknown_purchase_key, code_invalid, provider_not_configured, …).
    @Test func servedContractHolds() async throws {
        let service = try Self.releaseService()
        defer { service.stop() }
        // Loaded from a file: given the URL, Schemathesis leaves out the operation that served it.
        let served = service.data.file("served.openapi.json")
        let fetched = try runChildProcess("/usr/bin/curl", arguments: ["-sf", "-o", served, service.url + "/openapi.json"],
                                          environment: ProcessInfo.processInfo.environment)
        #expect(fetched.status == 0)
        let (status, output) = try await onOwnThread { try Self.run(served, against: service, maxExamples: Self.maxExamples) }
        #expect(status == 0, "\(output)")
        let operations = try Self.operationCount()
        #expect(operations >= 7)
        #expect(output.contains("Selected: \(operations)/\(operations)"), "\(operations) operations: \(output)")
        #expect(output.contains("Tested: \(operations)"), "\(operations) operations: \(output)")
        #expect(service.stop() == 0)
        // Access-log lines of signed-only commands answered past authentication and schema checks.
        var reached: [String: Int] = [:]
        for line in service.accessLog.split(separator: "\n") {
            guard let entry = try? JSONValue.parse(String(line)), let command = entry["command"]?.stringValue,
                  ["redeemBadgeCode", "issueBadge", "purchaseBadge", "getBadgeInvoice", "upgradeBadgeSubscription",
                   "transferBadge", "pauseBadge"].contains(command),
                  let status = entry["status"]?.numberValue?.exactInt, status != 400, status != 401 else { continue }
            reached[command, default: 0] += 1
        }
        #expect(reached.count >= 3, "signed commands past authentication: \(reached)")
        #expect(reached.values.reduce(0, +) >= 20, "signed commands past authentication: \(reached)")
    }

    /// The run is not a rubber stamp: the same document with the `error` response made to
    /// require a member the service never sends fails on the first error Schemathesis meets.
    @Test func wrongResponseSchemaFails() async throws {
        let service = try Self.releaseService()
        defer { service.stop() }
        let committed = Repository.root.appendingPathComponent("schema/badges-rpc.openapi.json")
        var document = try JSONValue.parse([UInt8](Data(contentsOf: committed)))
        guard case .object(var root) = document, case .object(var components)? = root["components"],
              case .object(var schemas)? = components["schemas"], case .object(var error)? = schemas["response.error"] else {
            Issue.record("no components.schemas.response.error in \(committed.path)")
            return
        }
        error["required"] = ["type", "code", "notSentByTheService"]
        schemas["response.error"] = .object(error)
        components["schemas"] = .object(schemas)
        root["components"] = .object(components)
        document = .object(root)
        let wrong = service.data.file("wrong.openapi.json")
        try Data(document.serialized()).write(to: URL(fileURLWithPath: wrong))
        let (status, output) = try await onOwnThread {
            try Self.run(wrong, against: service, maxExamples: 5, extra: ["--include-path", "/rpc", "--phases", "examples,fuzzing"])
        }
        #expect(status != 0, "\(output)")
        #expect(output.contains("Response violates schema"), "\(output)")
    }
}
