@testable import Gateway
@testable import Handlers
import BadgeCore
import HTTPServer
import JSON
import Ledger
import Providers
import RequestAuth
import Schema
import Storage
import TestSupport
import Testing
@testable import Wallet

/// Every refusal the service sends is a value rendered by ``HTTPResponse/init(_:)``: its status,
/// its `Retry-After` exactly when the client should wait, and a body in its route family's one
/// JSON shape. Each family is walked case by case, through the same paths the gateway takes.
@Suite struct GatewayAnswerTests {
    static let pool = WorkerPool(threads: 1, capacity: 1)
    let dir = TemporaryDirectory("gateway-answers")

    func gateway() throws -> (Gateway, BadgeService) {
        let store = try SQLiteBadgeStore(path: dir.file("badges.sqlite"))
        let service = BadgeService(store: store, issuer: CountingIssuer(), clock: { Timestamp(seconds: 1_780_000_000) })
        let gateway = Gateway(service: service, authenticator: RequestAuthenticator(), pool: Self.pool,
                              metrics: Metrics(openConnections: { 0 }), accessLog: nil, clock: { Timestamp(seconds: 1_780_000_000) },
                              readiness: { .ready })
        return (gateway, service)
    }

    /// The fields of a response, in order, without the request id every answer carries.
    func fields(_ response: HTTPResponse) -> [String] {
        response.headers.lines.filter { $0.name != "X-Request-Id" }.map { "\($0.name): \($0.value)" }
    }

    /// The code each way a command fails is answered with; the switch is exhaustive, so a new
    /// failure fails to compile here until its code is stated.
    static func code(of error: BadgeServiceError) -> String {
        switch error {
        case .badRequest: "bad_request"
        case .unsupportedVersion: "unsupported_version"
        case .unknownPurchaseKey: "unknown_purchase_key"
        case .codeInvalid: "code_invalid"
        case .codeUsed: "code_used"
        case .codeExpired: "code_expired"
        case .paymentPending: "payment_pending"
        case .receiptInvalid: "receipt_invalid"
        case .receiptUsed: "receipt_used"
        case .testPurchase: "test_purchase"
        case .transferLimited: "transfer_limited"
        case .pricing(.productUnavailable): "product_unavailable"
        case .pricing(.unknownOfferId): "unknown_offer_id"
        case .pricing(.offerDisabled): "offer_disabled"
        case .pricing(.offerMismatch): "offer_mismatch"
        case .providerUnavailable: "provider_unavailable"
        case .providerNotConfigured: "provider_not_configured"
        case .overloaded, .playChecksUsed, .databaseBusy: "rate_limited"
        case .internal: "internal"
        }
    }

    static let failures: [BadgeServiceError] = [
        .badRequest("m"), .unsupportedVersion(2), .unknownPurchaseKey, .codeInvalid, .codeUsed, .codeExpired,
        .paymentPending(retryAfter: 60), .paymentPending(retryAfter: nil), .receiptInvalid, .receiptUsed, .testPurchase,
        .transferLimited, .pricing(.productUnavailable), .pricing(.unknownOfferId), .pricing(.offerDisabled),
        .pricing(.offerMismatch), .providerUnavailable(retryAfter: 60, detail: "d"), .providerNotConfigured("stripe"),
        .overloaded(retryAfter: 1), .playChecksUsed(retryAfter: 30), .databaseBusy(retryAfter: 1), .internal(detail: "d"),
    ]

    /// `/rpc`: every failure of a command, rendered as the gateway renders an outcome: the
    /// documented status of its code, the protocol's `error` document, `Retry-After` with the
    /// document's `retryAfter` and only then.
    @Test func everyCommandFailureIsTheProtocolsErrorWithItsStatus() throws {
        let (_, service) = try gateway()
        // payment_not_entitled is the protocol's, for a store this service does not read: never sent
        #expect(Set(Self.failures.map(Self.code(of:))) == Set(ErrorCode.all.map(\.rawValue)).subtracting(["payment_not_entitled"]))
        let notEntitled = HTTPResponse(RPCAnswer(service.encode(.failure(.paymentNotEntitled), command: nil)))
        #expect(notEntitled.status == 422 && fields(notEntitled) == ["Content-Type: application/json"])
        for failure in Self.failures {
            let response = HTTPResponse(RPCAnswer(service.encode(RPCResponse(failure), command: nil)))
            let json = try JSONParser().parse(response.body)
            #expect(BadgeRPCSchema.shared.validateResponse(json).isEmpty, "\(failure)")
            #expect(json["type"]?.stringValue == "error" && json["code"]?.stringValue == Self.code(of: failure), "\(failure)")
            #expect(response.status == HTTPStatusMappingTests.documented[Self.code(of: failure)], "\(failure)")
            let wait = json["retryAfter"]?.numberValue?.exactInt
            #expect(fields(response) == ["Content-Type: application/json"] + (wait.map { ["Retry-After: \($0)"] } ?? []), "\(failure)")
            #expect((wait != nil) == ErrorCode(Self.code(of: failure)).isTransient, "\(failure)")
        }
    }

    /// `/rpc`: the gateway's own refusals before a command runs (a media type, credentials, the
    /// HTTP layer) are the same document under the status the check decided.
    @Test func theGatewaysRPCRefusalsAreTheSameDocument() throws {
        let (gateway, _) = try gateway()
        let plain = HTTPRequest(method: "POST", target: "/rpc", headers: ["Content-Type": "text/plain"], body: [], remoteAddress: "192.0.2.1")
        let unsigned = HTTPRequest(method: "POST", target: "/rpc", headers: ["Content-Type": "application/json", "Signature": "x"],
                                   body: [], remoteAddress: "192.0.2.1")
        var refused: [(HTTPResponse, Int, String)] = [
            (try #require(gateway.checkHead(plain)), 415, "bad_request"),
            (try #require(gateway.checkHead(unsigned)), 401, "bad_request"),
        ]
        for error in HTTPParserError.allCases {
            refused.append((gateway.refused(HTTPRefusal(status: error.httpStatus, message: error.description, method: "POST", target: "/rpc")),
                            error.httpStatus, "bad_request"))
        }
        refused.append((gateway.refused(HTTPRefusal(status: 503, message: "full", method: "POST", target: "/rpc", retryAfter: 1)),
                        503, "provider_unavailable"))
        for (response, status, code) in refused {
            let json = try JSONParser().parse(response.body)
            #expect(response.status == status && json["code"]?.stringValue == code, "\(status)")
            #expect(BadgeRPCSchema.shared.validateResponse(json).isEmpty)
            #expect(fields(response).first == "Content-Type: application/json")
            #expect(response.headers.contains("Retry-After") == (json["retryAfter"] != nil), "\(status)")
        }
    }

    /// The wallet routes: every `walletError` code, with its status and its wait.
    @Test func everyWalletRefusalIsAWalletErrorWithItsStatus() throws {
        let documented: [WalletRefusal.Code: Int] = [
            .badRequest: 400, .unauthenticated: 401, .devGrantsDisabled: 403, .unknownPack: 404, .receiptUsed: 409,
            .paymentPending: 409, .packMismatch: 422, .receiptInvalid: 422, .testPurchase: 422, .rateLimited: 429,
            .internal: 500, .providerNotConfigured: 501, .providerUnavailable: 503,
        ]
        #expect(Set(documented.keys) == Set(WalletRefusal.Code.allCases))
        for code in WalletRefusal.Code.allCases {
            for wait in [nil, UInt32(7)] {
                let response = HTTPResponse(WalletAnswer(WalletRefusal(code, "m", retryAfter: wait)))
                let json = try JSONParser().parse(response.body)
                #expect(WalletSchema.shared.validate(json, definition: "walletError")?.isEmpty == true, "\(code)")
                #expect(json["error"]?["code"]?.stringValue == code.rawValue && response.status == documented[code], "\(code)")
                #expect(fields(response) == ["Content-Type: application/json"] + (wait.map { ["Retry-After: \($0)"] } ?? []))
            }
        }
    }

    /// Everything else (webhooks, probes, the router, the HTTP layer off `/rpc`, the server's own
    /// answers): `httpError`, its slug saying what its status says, `Allow` and `Retry-After`
    /// where the refusal needs them, first, as the server always sent them.
    @Test func everyOtherRefusalIsAnHTTPError() throws {
        let (gateway, _) = try gateway()
        var refused: [(HTTPResponse, Int, [String])] = []
        for error in HTTPParserError.allCases {
            refused.append((gateway.refused(HTTPRefusal(status: error.httpStatus, message: error.description, method: "GET", target: "/healthz")),
                            error.httpStatus, []))
        }
        refused.append((gateway.refused(HTTPRefusal(status: 408, message: "slow", method: nil, target: nil)), 408, []))
        refused.append((gateway.answer(status: 503, message: "too many connections", headers: ["Retry-After": "1"]), 503, ["Retry-After: 1"]))
        refused.append((gateway.answer(status: 500, message: "invalid response from handler", headers: [:]), 500, []))
        let put = HTTPRequest(method: "PUT", target: "/healthz", headers: [:], body: [], remoteAddress: "192.0.2.1")
        refused.append((try #require(gateway.checkHead(put)), 405, ["Allow: GET, HEAD"]))
        refused.append((try #require(gateway.checkHead(HTTPRequest(method: "GET", target: "/nowhere", headers: [:], body: []))), 404, []))
        let webhookRefusals: [WebhookRefusal] = [.missingSignature, .malformedSignature, .signatureMismatch, .stale,
                                                 .malformedEvent("m"), .unverifiable("u"), .verifierUnavailable("v")]
        for refusal in webhookRefusals {
            refused.append((HTTPResponse(refusal.answer), refusal == .verifierUnavailable("v") ? 503 : 400, []))
            #expect(refusal.result == (refusal == .verifierUnavailable("v") ? "retry_later" : "refused"))
        }
        for (response, status, leading) in refused {
            let json = try JSONParser().parse(response.body)
            #expect(response.status == status)
            #expect(json.objectValue?.keys.sorted() == ["error", "message", "status"], "\(status)")
            #expect(json["status"]?.numberValue?.exactInt == status && json["error"]?.stringValue == HTTPError.slug(for: status))
            #expect(HTTPError.slug(for: status) != "error", "status \(status) has a slug")
            #expect(fields(response) == leading + ["Content-Type: application/json"], "\(status)")
        }
        // byte for byte what 0.2.0 sent
        #expect(refused.first { $0.1 == 405 }?.0.body == Array(#"{"error":"method_not_allowed","status":405,"message":"method not allowed"}"#.utf8))
    }

    /// The stores' verdict classes are declared once; each is a wallet code and a protocol code of
    /// its own name, and a command failure of that code.
    @Test func everyStoreVerdictIsTheCodeOfItsName() {
        for verdict in StoreVerdict.allCases {
            #expect(WalletRefusal(store: verdict, "r").code.rawValue == verdict.rawValue)
            #expect(ErrorCode.all.map(\.rawValue).contains(verdict.rawValue))
            #expect(Self.code(of: BadgeServiceError(verdict, retryAfter: nil, detail: "d")) == verdict.rawValue)
        }
        #expect(WalletRefusal(store: .providerUnavailable, "r").retryAfter == 60)
        #expect(WalletRefusal(store: .paymentPending, "r", retryAfter: StoreVerdict.day).retryAfter == StoreVerdict.day)
    }

    /// The probes' and webhooks' `{"status":…}`: JSON, no wait.
    @Test func statusAnswersAreTheSmallDocument() throws {
        let busy = HTTPResponse(StatusAnswer(503, "busy"))
        #expect(busy.status == 503 && busy.body == Array(#"{"status":"busy"}"#.utf8) && fields(busy) == ["Content-Type: application/json"])
        let notReady = HTTPResponse(StatusAnswer(503, "not ready", reason: "disk"))
        #expect(notReady.body == Array(#"{"reason":"disk","status":"not ready"}"#.utf8) || notReady.body == Array(#"{"status":"not ready","reason":"disk"}"#.utf8))
    }
}
