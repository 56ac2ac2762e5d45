import Handlers
import HTTPServer
import JSON
import Providers
import Wallet

/// What the gateway sends, refusal or not, as a value that renders its own status, header fields
/// (`Retry-After`, `Allow`) and body in its route family's one JSON shape: the protocol's
/// `response` on `/rpc` (``RPCAnswer``), the wallet's documents and `walletError` on the wallet
/// routes (``WalletAnswer``), `httpError` for every other refusal (``HTTPError``: webhooks,
/// probes, the router, the HTTP layer) and `{"status":…}` for the probes' and webhooks' own
/// answers (``StatusAnswer``). ``HTTPResponse/init(_:)`` is the one way any of them reaches the
/// wire.
protocol GatewayAnswer: Sendable {
    var status: Int { get }
    /// Every field the answer carries, in the order sent (the server adds its framing, the
    /// gateway `X-Request-Id`).
    var headers: HTTPHeaders { get }
    var body: [UInt8] { get }
}

extension HTTPResponse {
    /// The one rendering of a gateway answer.
    init(_ answer: some GatewayAnswer) {
        self.init(status: answer.status, headers: answer.headers, body: answer.body)
    }
}

/// `Content-Type: application/json`, then `Retry-After` when the client should wait.
private func jsonFields(retryAfter: UInt32?) -> HTTPHeaders {
    var headers: HTTPHeaders = ["Content-Type": "application/json"]
    if let retryAfter { headers.add(name: "Retry-After", value: String(retryAfter)) }
    return headers
}

/// An answer of `/rpc`: the protocol's document (schema `response`), its status that of its error
/// code (``ErrorCode/httpStatus``) unless the gateway's check decided another (401, 415).
struct RPCAnswer: GatewayAnswer {
    let status: Int
    let retryAfter: UInt32?
    let body: [UInt8]

    init(_ outcome: RPCOutcome, status: Int? = nil) {
        self.status = status ?? outcome.httpStatus
        if case .error(_, _, let retryAfter) = outcome.response { self.retryAfter = retryAfter } else { retryAfter = nil }
        body = outcome.body
    }

    var headers: HTTPHeaders { jsonFields(retryAfter: retryAfter) }
}

extension WalletAnswer: GatewayAnswer {
    var headers: HTTPHeaders { jsonFields(retryAfter: retryAfter) }
}

/// A refusal outside `/rpc` and the wallet: `{"error":"<slug>","status":N,"message":"…"}`
/// (`httpError` in the OpenAPI document), with the fields the refusal needs before its
/// `Content-Type` (`Allow` for a 405, `Retry-After` at accept).
struct HTTPError: GatewayAnswer {
    let status: Int
    let message: String
    let fields: HTTPHeaders

    init(status: Int, message: String, fields: HTTPHeaders = [:]) {
        self.status = status
        self.message = message
        self.fields = fields
    }

    var headers: HTTPHeaders {
        var headers = fields
        headers.replaceOrAdd(name: "Content-Type", value: "application/json")
        return headers
    }

    var body: [UInt8] {
        let document: JSONValue = ["error": .string(Self.slug(for: status)), "status": .number(JSONNumber(status)),
                                   "message": .string(message)]
        return document.serialized()
    }

    /// The `error` slug of each status the gateway refuses with.
    static func slug(for status: Int) -> String {
        switch status {
        case 400: "bad_request"
        case 404: "not_found"
        case 405: "method_not_allowed"
        case 408: "request_timeout"
        case 413: "content_too_large"
        case 414: "uri_too_long"
        case 417: "expectation_failed"
        case 431: "request_header_fields_too_large"
        case 500: "internal"
        case 501: "not_implemented"
        case 503: "unavailable"
        case 505: "http_version_not_supported"
        default: "error"
        }
    }
}

/// The probes' and the webhooks' small answer, `{"status":"…"}`, with a one-line `reason` when
/// a probe is not ready (`webhookStatus`, `probeStatus`).
struct StatusAnswer: GatewayAnswer {
    let status: Int
    let state: String
    var reason: String?

    init(_ status: Int, _ state: String, reason: String? = nil) {
        self.status = status
        self.state = state
        self.reason = reason
    }

    var headers: HTTPHeaders { jsonFields(retryAfter: nil) }
    var body: [UInt8] {
        var body = JSONObject()
        body["status"] = .string(state)
        if let reason { body["reason"] = .string(reason) }
        return JSONValue.object(body).serialized()
    }
}

/// How a webhook refusal is answered: 503 and `retry_later` when the verifier could not run (the
/// provider delivers again), else 400 and `refused` (nothing changes).
extension WebhookRefusal {
    var answer: HTTPError { HTTPError(status: httpStatus, message: description) }
    var httpStatus: Int {
        if case .verifierUnavailable = self { return 503 }
        return 400
    }
    var result: String {
        if case .verifierUnavailable = self { return "retry_later" }
        return "refused"
    }
}
