import BadgeCore
import Crypto
import Foundation
import JSON
import Ledger
import Schema
import TestSupport
import Testing

/// The real binary over real HTTP: issue 2's acceptance (catalog, signed requests from an
/// independent signer, statuses) — `.serialized` keeps the 2-core machine from thrashing.
@Suite(.serialized, .timeLimit(.minutes(5))) struct GatewayEndToEndTests {
    @Test func unsignedCatalogWithCurlIsValidAgainstBothSchemas() throws {
        let service = try ServiceProcess()
        let curl = Process()
        curl.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        curl.arguments = ["-s", "-XPOST", "\(service.url)/rpc", "-H", "content-type: application/json",
                          "-d", #"{"version":1,"request":{"type":"getBadgeCatalog"}}"#]
        let out = Pipe()
        curl.standardOutput = out
        try curl.run()
        let body = out.fileHandleForReading.readDataToEndOfFile()
        curl.waitUntilExit()
        let json = try JSONValue.parse(Array(body))
        #expect(json["type"] == "badgeCatalog")
        #expect(BadgeRPCSchema.shared.validateResponse(json).isEmpty)
        let reference = try JTDSchema(text: String(contentsOf: Repository.fixture("reference-schema/badges-rpc.schema.json"), encoding: .utf8))
        #expect(try reference.validate(json, definition: "response") == [])
        // the seeded catalog is upstream's: its prices and its four per-price offers, ids included
        guard case .badgeCatalog(let catalog, nil)? = try? RPCResponse(json: json) else { Issue.record("not a catalog"); return }
        let upstream = try #require(try JSONValue.parse(Array(Repository.fixtureData("examples/badgeCatalog.response.json")))["document"])
        guard case .badgeCatalog(let expected, nil)? = try? RPCResponse(json: upstream) else { Issue.record("fixture not a catalog"); return }
        #expect(catalog.prices.map { "\($0.priceId) \($0.badgeType) \($0.monthPrice) \($0.currency) \($0.status)" }.sorted()
                == expected.prices.map { "\($0.priceId) \($0.badgeType) \($0.monthPrice) \($0.currency) \($0.status)" }.sorted())
        #expect(catalog.offers.map { "\($0.offerId) \($0.priceId ?? "any") \($0.months) \($0.discount) \($0.status)" }.sorted()
                == expected.offers.map { "\($0.offerId) \($0.priceId ?? "any") \($0.months) \($0.discount) \($0.status)" }.sorted())
        #expect(expected.offers.count == 4)
        #expect(service.stop() == 0)
    }

    @Test func pythonSignedRequestIsVerifiedAndATamperedOneRefused() throws {
        let service = try ServiceProcess()
        let code = try service.cli(["codes", "create", "--type", "supporter", "--months", "3"]).stdout
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let seed = Hex.encode(SecureRandom.bytes(32))
        let master = Base64URL.encode(SecureRandom.bytes(32))
        let body = #"{"version":1,"purchaseKey":"$PURCHASE_KEY","request":{"type":"redeemBadgeCode","masterKey":"\#(master)","code":"\#(code)"}}"#
        let tampered = try PythonClient.send([.init(url: service.url + "/rpc", body: body, seed_hex: seed, tamper: true)])[0]
        #expect(tampered.status == 401)
        #expect(tampered.response?.errorCode == .badRequest)
        #expect(tampered.content_type == "application/json")
        // nothing was written: the code is still unredeemed
        #expect(try service.cli(["codes", "list"]).stdout.contains("0/1 used"))
        let fine = try PythonClient.send([.init(url: service.url + "/rpc", body: body, seed_hex: seed)])[0]
        #expect(fine.status == 200)
        #expect(fine.response?.credential != nil)
        #expect(try service.cli(["codes", "list"]).stdout.contains("1/1 used"))
        // an unsigned command other than the catalog is refused the same way
        let unsigned = try PythonClient.send([.init(url: service.url + "/rpc", body: body, sign: false)])[0]
        #expect(unsigned.status == 401)
        #expect(unsigned.response?.errorCode == .badRequest)
        #expect(service.stop() == 0)
    }

    @Test func statusesAndHeaders() throws {
        let service = try ServiceProcess()
        let key = Ed25519PrivateKey()
        // unknown key on a signed catalog
        let unknown = try HTTP.rpc(service, HTTP.envelope(["type": "getBadgeCatalog"], key: key), key: key)
        #expect(unknown.status == 404 && unknown.response?.errorCode == .unknownPurchaseKey)
        // an unpaid code: payment_pending with Retry-After equal to retryAfter
        let unpaid = try service.cli(["codes", "create", "--type", "supporter", "--months", "1", "--payment", "unpaid"]).stdout
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let pending = try HTTP.rpc(service, HTTP.envelope(["type": "redeemBadgeCode", "masterKey": .string(Base64URL.encode(SecureRandom.bytes(32))),
                                                             "code": .string(unpaid)], key: key), key: key)
        #expect(pending.status == 409)
        guard case .error(.paymentPending, _, let retryAfter?)? = pending.response else { Issue.record("\(pending.text)"); return }
        #expect(pending.headers["retry-after"] == String(retryAfter))
        // unknown code
        let invalid = try HTTP.rpc(service, HTTP.envelope(["type": "redeemBadgeCode", "masterKey": .string(Base64URL.encode(SecureRandom.bytes(32))),
                                                             "code": "SB-0C0QS-XAQW1-N1VSA-R00Y3"], key: key), key: key)
        #expect(invalid.status == 422 && invalid.response?.errorCode == .codeInvalid && invalid.headers["retry-after"] == nil)
        // version and schema errors
        let v2 = try HTTP.request("POST", service.url + "/rpc", body: Array(#"{"version":2,"request":{"type":"getBadgeCatalog"}}"#.utf8),
                                  headers: ["Content-Type": "application/json"])
        #expect(v2.status == 400 && v2.response?.errorCode == .unsupportedVersion)
        let bad = try HTTP.request("POST", service.url + "/rpc", body: Array(#"{"version":1}"#.utf8), headers: ["Content-Type": "application/json"])
        #expect(bad.status == 400 && bad.response?.errorCode == .badRequest)
        let wrongType = try HTTP.request("POST", service.url + "/rpc", body: Array("{}".utf8), headers: ["Content-Type": "text/plain"])
        #expect(wrongType.status == 415 && wrongType.response?.errorCode == .badRequest)
        // a store that is not configured
        let apple = try HTTP.rpc(service, HTTP.envelope(["type": "purchaseBadge", "masterKey": .string(Base64URL.encode(SecureRandom.bytes(32))),
                                                           "payment": ["type": "apple", "jws": "a.b.c"]], key: key), key: key)
        #expect(apple.status == 501 && apple.response?.errorCode == .providerNotConfigured)
        // operations routes
        #expect(try HTTP.request("GET", service.url + "/healthz").status == 200)
        #expect(try HTTP.request("GET", service.url + "/readyz").status == 200)
        let metrics = try HTTP.request("GET", service.url + "/metrics")
        #expect(metrics.status == 200 && metrics.text.contains("badge_requests_total{route=\"rpc\",command=\"redeemBadgeCode\",result=\"payment_pending\"} 1"))
        #expect(metrics.text.contains("badge_open_connections "))
        let schema = try HTTP.request("GET", service.url + "/schema")
        #expect(schema.status == 200 && schema.text == BadgeRPCSchema.text)
        let wrongMethod = try HTTP.request("GET", service.url + "/rpc")
        #expect(wrongMethod.status == 405 && wrongMethod.headers["allow"] == "POST")
        #expect(try HTTP.request("GET", service.url + "/nope").status == 404)
        #expect(service.stop() == 0)
        // one access-log line per request, none with secrets
        let log = service.accessLog
        #expect(log.split(separator: "\n").count >= 12)
        #expect(!log.contains(unpaid) && !log.contains("SB-0C0QS") && !log.contains(key.publicKey.purchaseKeyText))
    }
}
