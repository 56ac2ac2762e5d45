import BadgeCore
import Foundation
import Gateway
import Handlers
import JSON
import RequestAuth
import Schema
import Testing
import Storage
import TestSupport
import Wallet

/// `schema/badges-rpc.openapi.json` is what the generator writes, outside tools accept it, and
/// it declares every status the service can answer.
@Suite struct OpenAPIDocumentTests {
    static let committedPath = "schema/badges-rpc.openapi.json"

    @Test func committedFileIsTheGeneratedOne() throws {
        let committed = try String(contentsOf: Repository.root.appendingPathComponent(Self.committedPath), encoding: .utf8)
        #expect(committed == OpenAPIDocument.text,
                "\(Self.committedPath) differs from the generated document: run `swift run badge-service schema --openapi > \(Self.committedPath)`")
    }

    /// Every route the gateway serves is in the document with exactly its methods, and nothing
    /// else is: a route added without documenting it fails here.
    @Test func documentsExactlyTheRoutes() throws {
        let dir = TemporaryDirectory("openapi-routes")
        let store = try SQLiteBadgeStore(path: dir.file("badges.sqlite"))
        let service = BadgeService(store: store, issuer: NoIssuer(), clock: { Timestamp(seconds: 0) })
        let gateway = Gateway(service: service, authenticator: RequestAuthenticator(), pool: Self.pool,
                              metrics: Metrics(openConnections: { 0 }), accessLog: nil, clock: { Timestamp(seconds: 0) },
                              readiness: { .ready })
        let paths = try #require(OpenAPIDocument.value["paths"]?.objectValue)
        var documented: [String: [String]] = [:]
        for m in paths { documented[m.key] = (m.value.objectValue?.keys ?? []).map { $0.uppercased() }.sorted() }
        #expect(gateway.routes.count >= 8)
        #expect(documented == gateway.routes)
    }

    /// A worker pool lives as long as the process (its threads hold it unowned), so the test keeps one.
    static let pool = WorkerPool(threads: 1, capacity: 1)

    /// Never called: the routes are only listed.
    struct NoIssuer: CredentialIssuing {
        struct Unused: Error {}
        func issue(masterKey: [UInt8], badgeType: BadgeType, expiry: Timestamp) throws -> BadgeCredential { throw Unused() }
        var readiness: Readiness { .notReady(reason: "no issuer keys in this test") }
    }

    /// openapi-spec-validator (Tests/Peers/openapi_peer.py) accepts the document as OpenAPI 3.1.
    @Test func openAPISpecValidatorAccepts() throws {
        let out = try PeerPython.run(script: "openapi_peer.py", input: Data(OpenAPIDocument.text.utf8))
        #expect(String(decoding: out, as: UTF8.self) == "valid OpenAPI 3.1.0\n")
    }

    /// The validator is not a rubber stamp: a broken copy is refused.
    @Test func openAPISpecValidatorRefusesABrokenDocument() throws {
        guard case .object(var broken) = OpenAPIDocument.value else { Issue.record("not an object"); return }
        broken["paths"] = ["/rpc": ["post": ["responses": ["200": ["content": [:]]]]]] // a response without description
        #expect(throws: PeerPython.Failure.self) {
            try PeerPython.run(script: "openapi_peer.py", input: Data(JSONValue.object(broken).serialized()))
        }
    }

    /// The schemas are the translations of the embedded JTD schemas (the RPC's and the wallet's),
    /// plus the four the HTTP surface adds.
    @Test func schemasAreTheJTDTranslation() throws {
        let definitions = try [BadgeRPCSchema.text, WalletSchema.text].flatMap {
            try JSONSchemaTranslation(try JSONValue.parse($0), options: .openAPI).definitions
        }
        let components = try #require(OpenAPIDocument.value["components"]?["schemas"]?.objectValue)
        for d in definitions { #expect(components[d.name] == d.schema, "\(d.name)") }
        #expect(Set(components.keys).subtracting(definitions.map(\.name)) == ["successResponse", "httpError", "probeStatus", "webhookStatus"])
    }

    /// Every error code's status is declared on POST /rpc with the `error` body.
    @Test func everyErrorCodeStatusIsDeclared() throws {
        let responses = try #require(OpenAPIDocument.value["paths"]?["/rpc"]?["post"]?["responses"]?.objectValue)
        for code in ErrorCode.all {
            let response = try #require(responses[String(code.httpStatus)], "\(code)")
            #expect(response.text().contains("`\(code.rawValue)`"), "\(code)")
            #expect(response.text().contains("#/components/schemas/response.error"), "\(code)")
        }
    }

    /// `Retry-After` is declared exactly on the statuses of the codes that carry `retryAfter`.
    @Test func retryAfterWhereTransientCodesAre() throws {
        let responses = try #require(OpenAPIDocument.value["paths"]?["/rpc"]?["post"]?["responses"]?.objectValue)
        for m in responses {
            let transient = ErrorCode.all.contains { String($0.httpStatus) == m.key && $0.isTransient }
            #expect((m.value["headers"]?["Retry-After"] != nil) == transient, "\(m.key)")
        }
        #expect(responses["429"]?["headers"]?["Retry-After"] != nil)
    }

    /// Every status of the README's table "HTTP status of each answer" is declared on POST /rpc.
    @Test func everyStatusOfTheReadmeIsDeclared() throws {
        let readme = try String(contentsOf: Repository.root.appendingPathComponent("README.md"), encoding: .utf8)
        let lines = readme.components(separatedBy: "\n")
        let start = try #require(lines.firstIndex(of: "### HTTP status of each answer"))
        var statuses: Set<String> = []
        for line in lines[start...].dropFirst() {
            if line.hasPrefix("#") { break }
            guard line.hasPrefix("| "), let cell = line.split(separator: "|").first else { continue }
            for s in cell.split(separator: ",") {
                let t = s.trimmingCharacters(in: .whitespaces)
                if t.count == 3, Int(t) != nil { statuses.insert(t) }
            }
        }
        #expect(statuses.count >= 15)
        let responses = try #require(OpenAPIDocument.value["paths"]?["/rpc"]?["post"]?["responses"]?.objectValue)
        // 405 answers a method the document does not declare on a path, so it belongs to no operation.
        #expect(statuses.subtracting(responses.keys).subtracting(["405"]).isEmpty, "\(statuses.subtracting(responses.keys))")
    }
}
