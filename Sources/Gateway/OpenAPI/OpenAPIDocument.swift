import HTTPServer
import JSON
import Providers
import Schema

/// The OpenAPI 3.1 description of the HTTP surface (README, HTTP surface), served at
/// `GET /openapi.json`, printed by `badge-service schema --openapi` and committed as
/// `schema/badges-rpc.openapi.json`. Its schemas are the JTD schema translated by
/// ``JSONSchemaTranslation`` and its statuses come from the status mappings, so it cannot
/// drift from what the service validates and answers.
public enum OpenAPIDocument {
    /// The document.
    public static let value: JSONValue = build()

    /// The document as committed: indented, with a final newline.
    public static let text: String = value.text(.indented) + "\n"

    static let schemas = "#/components/schemas/"

    static func ref(_ name: String) -> JSONValue { ["$ref": .string(schemas + name)] }

    static func object(_ members: [(String, JSONValue)]) -> JSONObject {
        var o = JSONObject()
        for (k, v) in members { o[k] = v }
        return o
    }

    static func build() -> JSONValue {
        let jtd: JSONValue
        let translation: JSONSchemaTranslation
        do {
            jtd = try JSONValue.parse(BadgeRPCSchema.text)
            translation = try JSONSchemaTranslation(jtd, options: .openAPI)
        } catch {
            // The embedded schema is a constant the tests check; failing here is a build defect.
            fatalError("the embedded JTD schema does not translate: \(error)")
        }
        var components = translation.definitionsObject
        for member in walletComponents().members { components[member.key] = member.value }
        let responseVariants = translation.definitions.map(\.name).filter { $0.hasPrefix("response.") && $0 != "response.error" }
        components["successResponse"] = [
            "description": "Every response but `error`: what a 200 carries.",
            "oneOf": .array(responseVariants.map(ref)),
            "discriminator": ["propertyName": "type",
                              "mapping": .object(object(responseVariants.map { ($0.dropPrefix("response."), .string(schemas + $0)) }))],
        ]
        components["httpError"] = [
            "description": "The HTTP layer's own refusal (the request could not be read as HTTP, or no route answers it): a slug of the status, the status, and a message.",
            "type": "object",
            "properties": [
                "error": ["type": "string", "description": "e.g. bad_request, content_too_large, request_timeout, not_implemented"],
                "status": ["type": "integer", "minimum": 400, "maximum": 599],
                "message": ["type": "string"],
            ],
            "required": ["error", "status", "message"],
            "additionalProperties": false,
        ]
        components["webhookStatus"] = [
            "type": "object",
            "properties": ["status": ["type": "string", "description": "applied, duplicate or ignored with 200; retry_later or busy with 503"]],
            "required": ["status"],
            "additionalProperties": false,
        ]
        components["probeStatus"] = [
            "type": "object",
            "properties": ["status": ["type": "string"],
                           "reason": ["type": "string", "description": "Why not ready: one line naming the database file (read-only, busy, unreadable)."]],
            "required": ["status"],
            "additionalProperties": false,
        ]

        var info: JSONObject = [
            "title": "badge-service",
            "version": "1",
            "description": .string(description(jtd)),
            "license": ["name": "AGPL-3.0-only", "identifier": "AGPL-3.0-only"],
        ]
        info["summary"] = "Sells and issues SimpleX Chat supporter badges: the badge service RPC over HTTP/1.1 + JSON."
        return [
            "openapi": "3.1.0",
            "info": .object(info),
            "servers": [["url": "http://127.0.0.1:8080", "description": "badge-service serve with its default listen address"]],
            "paths": .object(paths()),
            "components": [
                "schemas": .object(components),
                "securitySchemes": securitySchemes,
                "headers": [
                    "X-Request-Id": [
                        "description": "The request's id (128 random bits), also in its access-log line and in every line its work logs: quote it when reporting a problem.",
                        "required": true,
                        "schema": ["type": "string", "pattern": "^[0-9a-f]{32}$"],
                    ],
                    "Retry-After": [
                        "description": "Seconds to wait: the body's retryAfter with payment_pending, rate_limited and provider_unavailable; 1 on the HTTP layer's 503.",
                        "schema": ["type": "integer", "minimum": 0],
                    ],
                ],
            ],
        ]
    }

    static func description(_ jtd: JSONValue) -> String {
        var parts = ["The HTTP surface of badge-service. `POST /rpc` carries the badge service RPC envelope; its request and response schemas are JSON Schema 2020-12 generated from the service's JTD schema (RFC 8927, served at `GET /schema`), which the service validates with."]
        if let conventions = jtd["metadata"]?["conventions"]?.stringValue { parts.append("Wire conventions: " + conventions) }
        parts.append("Every error status carries a JSON body: the RPC `error` response for what the RPC layer answers, the HTTP layer's `httpError` for what it refuses before routing.")
        return parts.joined(separator: "\n\n")
    }

    // MARK: Paths

    static func paths() -> JSONObject {
        var paths = JSONObject()
        paths["/rpc"] = ["post": rpcOperation()]
        paths["/healthz"] = ["get": probe("healthz", "Liveness: the process is up.", [200: "up: `{\"status\":\"ok\"}`"])]
        paths["/readyz"] = ["get": probe("readyz", "Readiness: a short write transaction lands, a pooled reader reads, and the issuer keys are loaded.",
                                         [200: "ready: `{\"status\":\"ready\"}`",
                                          503: "not ready, with the reason, or the worker queue is full: `{\"status\":\"not ready\",\"reason\":\"…\"}`, `{\"status\":\"busy\"}`"])]
        var metrics = probe("metrics", "Prometheus metrics, text format 0.0.4 (README, Logs and metrics).",
                            [503: "the worker queue, or this address's share of it, is full: `{\"status\":\"busy\"}`"])
        metrics = setting(metrics, ["responses", "200"], ["description": "Every metric of README, Logs and metrics.",
                                                          "headers": ["X-Request-Id": ["$ref": "#/components/headers/X-Request-Id"]],
                                                          "content": ["text/plain": ["schema": ["type": "string"]]]])
        paths["/metrics"] = ["get": metrics]
        paths["/schema"] = ["get": operation(
            id: "jtdSchema", summary: "The JTD schema (RFC 8927) the service validates bodies with: definition `request` for requests, `response` for responses.",
            responses: httpLayerResponses(besides: []).adding("200", ["description": "schema/badges-rpc.schema.json",
                                "content": ["application/json": ["schema": ["type": "object", "required": ["definitions"]]]]]))]
        paths["/openapi.json"] = ["get": operation(
            id: "openAPI", summary: "This document.",
            responses: httpLayerResponses(besides: []).adding("200", ["description": "schema/badges-rpc.openapi.json",
                                "content": ["application/json": ["schema": ["type": "object", "required": ["openapi", "paths"]]]]]))]
        for kind in ProviderCatalog.deployed {
            let provider = kind.name, header = kind.signatureHeader
            // The gateway's answers (Gateway.webhook): the provider redelivers on anything but 2xx.
            var responses = httpLayerResponses(besides: [400, 501, 503])
            responses["200"] = ["description": "Handled: `applied` (it settled, closed or refunded an invoice), `duplicate` (an event id already handled), or `ignored` (an event that settles nothing, e.g. for an unknown invoice or another amount).",
                                "content": ["application/json": ["schema": ref("webhookStatus")]]]
            responses["400"] = ["description": .string("The `\(header)` signature is missing, forged, stale or the body was tampered with; nothing changes. Or the HTTP layer's refusal."),
                                "content": ["application/json": ["schema": ref("httpError")]]]
            responses["501"] = ["description": .string("This deployment has no [\(provider)] section: the webhook is not configured."),
                                "content": ["application/json": ["schema": ref("httpError")]]]
            responses["503"] = ["description": "Deliver again later: the provider's re-read or the database failed (`retry_later`), or the worker queue is full (`busy`). Or the HTTP layer's refusal.",
                                "content": ["application/json": ["schema": ["oneOf": [ref("webhookStatus"), ref("httpError")]]]]]
            paths["/webhooks/\(provider)"] = ["post": operation(
                id: "\(provider)Webhook",
                summary: "The \(provider) settlement webhook: the `\(header)` signature checked, then the delivery applied once (README, Web payments).",
                requestBody: ["required": true, "content": ["application/json": ["schema": [:]]]],
                responses: responses)]
        }
        for webhook in storeWebhooks {
            var responses = httpLayerResponses(besides: [400, 501, 503])
            responses["200"] = ["description": .string("Handled: `applied` (\(webhook.applied)), `duplicate` (\(webhook.dedupe) already handled), or `ignored` (verified, but a type this service does not act on, or of nothing it credited)."),
                                "content": ["application/json": ["schema": ref("webhookStatus")]]]
            responses["400"] = ["description": .string("\(webhook.refused); nothing changes, and the reason is logged. Or the HTTP layer's refusal."),
                                "content": ["application/json": ["schema": ref("httpError")]]]
            responses["501"] = ["description": .string("This deployment has no [\(webhook.section)] section: the webhook is not configured."),
                                "content": ["application/json": ["schema": ref("httpError")]]]
            responses["503"] = ["description": .string("Deliver again later: \(webhook.retry), or the worker queue is full (`busy`). Or the HTTP layer's refusal."),
                                "content": ["application/json": ["schema": ["oneOf": [ref("webhookStatus"), ref("httpError")]]]]]
            paths["/webhooks/\(webhook.section)"] = ["post": operation(
                id: webhook.id, summary: webhook.summary,
                requestBody: ["required": true, "content": ["application/json": ["schema": webhook.body]]],
                responses: responses)]
        }
        for member in walletPaths().members { paths[member.key] = member.value }
        return paths
    }

    /// The store notification webhooks (README, App Store and Google Play): beyond the spec.
    static let storeWebhooks: [(section: String, id: String, summary: String, body: JSONValue, applied: String, dedupe: String,
                                refused: String, retry: String)] = [
        (section: "apple", id: "appleNotificationWebhook",
         summary: "App Store Server Notifications V2: the signed payload and its transaction verified against [apple] root_certificates and bundle_id, then a REFUND or REVOKE applied once (README, App Store).",
         body: ["type": "object", "properties": ["signedPayload": ["type": "string", "description": "A JWS signed by Apple's PKI."]],
                "required": ["signedPayload"]],
         applied: "a refund debited, a subscription ended", dedupe: "a notificationUUID",
         refused: "The body is not `{\"signedPayload\": …}`, or the payload or its transaction does not verify (a forged or unknown chain, another bundle id, a bad signature)",
         retry: "the database failed (`retry_later`)"),
        (section: "google", id: "googleNotificationWebhook",
         summary: "Play real-time developer notifications by Pub/Sub push: the `Authorization: Bearer` OIDC token checked against Google's keys, [google] push_audience and push_service_account, then a voided purchase or SUBSCRIPTION_REVOKED applied once (README, Google Play). Answers 501 without those keys.",
         body: ["type": "object",
                "properties": ["message": ["type": "object", "properties": ["data": ["type": "string", "description": "A base64 DeveloperNotification."],
                                                                          "messageId": ["type": "string"]]],
                               "subscription": ["type": "string"]],
                "required": ["message"]],
         applied: "a refund debited, a subscription ended", dedupe: "a messageId",
         refused: "The bearer token is missing or does not pass (signature, iss, aud, email, expiry), the body is not a Pub/Sub push of a DeveloperNotification, or it is for another package",
         retry: "Google's signing keys could not be fetched or the database failed (`retry_later`)"),
    ]

    static func operation(id: String, summary: String, requestBody: JSONValue? = nil, responses: JSONObject,
                          security: JSONValue? = nil) -> JSONValue {
        var o: JSONObject = ["operationId": .string(id), "summary": .string(summary)]
        if let security { o["security"] = security }
        if let requestBody { o["requestBody"] = requestBody }
        // Every response the gateway sends, refusals included, names its request.
        var withIDs = JSONObject()
        for m in sortedByStatus(responses).members {
            var response = m.value.objectValue ?? [:]
            var headers = response["headers"]?.objectValue ?? [:]
            headers["X-Request-Id"] = ["$ref": "#/components/headers/X-Request-Id"]
            response["headers"] = .object(headers)
            withIDs[m.key] = .object(response)
        }
        o["responses"] = .object(withIDs)
        return .object(o)
    }

    static func probe(_ id: String, _ summary: String, _ statuses: [Int: String]) -> JSONValue {
        var responses = httpLayerResponses(besides: Set(statuses.keys))
        for (status, text) in statuses {
            var response: JSONObject = ["description": .string(text)]
            if let refusal = HTTPLayerRefusal.statuses[status] {
                // The route's own answer, or the HTTP layer's refusal before the route ran.
                response["description"] = .string(text + "; the HTTP layer's refusal (`httpError`): " + refusal)
                response["content"] = ["application/json": ["schema": ["oneOf": [ref("probeStatus"), ref("httpError")]]]]
            } else {
                response["content"] = ["application/json": ["schema": ref("probeStatus")]]
            }
            if HTTPLayerRefusal.withRetryAfter.contains(status) { response["headers"] = retryAfterHeader }
            responses[String(status)] = .object(response)
        }
        return operation(id: id, summary: summary, responses: responses)
    }

    static let retryAfterHeader: JSONValue = ["Retry-After": ["$ref": "#/components/headers/Retry-After"]]

    /// `value` with the member at `path` set to `member`, responses kept in status order.
    static func setting(_ value: JSONValue, _ path: [String], _ member: JSONValue) -> JSONValue {
        guard case .object(var o) = value, let key = path.first else { return member }
        o[key] = setting(o[key] ?? [:], Array(path.dropFirst()), member)
        return .object(key == "responses" ? sortedByStatus(o) : o)
    }

    static func sortedByStatus(_ responses: JSONObject) -> JSONObject {
        object(responses.members.sorted { $0.key < $1.key }.map { ($0.key, $0.value) })
    }

    // MARK: POST /rpc

    /// Codes of the RPC layer by the status they are answered with.
    static var codesByStatus: [Int: [ErrorCode]] {
        var out: [Int: [ErrorCode]] = [:]
        for code in ErrorCode.all { out[code.httpStatus, default: []].append(code) }
        return out
    }

    /// Statuses the RPC layer answers besides an error code's own: 401 (authentication, always
    /// `bad_request`) and 415 (not JSON).
    static let rpcOnlyStatuses: [Int: String] = [
        401: "`bad_request`: the request is not authenticated — a signature or digest that does not verify, a stale or future `created`, missing components, an unknown algorithm, a trusted-front token that does not match, or no signature on a command that needs one.",
        415: "`bad_request`: `POST /rpc` without `Content-Type: application/json`.",
    ]

    static func rpcOperation() -> JSONValue {
        var responses: JSONObject = [
            "200": ["description": "Every non-error response: badgeCatalog, badgeCredential, badgeInvoice.",
                    "content": ["application/json": ["schema": ref("successResponse")]]],
        ]
        let byStatus = codesByStatus
        let layer = HTTPLayerRefusal.statuses
        for status in Set(byStatus.keys).union(rpcOnlyStatuses.keys).union(layer.keys).sorted() {
            let codes = byStatus[status] ?? []
            var text: [String] = []
            if !codes.isEmpty { text.append(codes.map { "`\($0.rawValue)`" }.joined(separator: ", ")) }
            if let only = rpcOnlyStatuses[status] { text.append(only) }
            if status == 429 { text.append("also answered when the worker queue is full") }
            if let refusal = layer[status] {
                text.append("the HTTP layer's refusal: " + refusal + " (an `error` document, `bad_request`, once the request line named POST /rpc; else `httpError`)")
            }
            // The HTTP layer answers an `error` document on a request it read as POST /rpc, and
            // `httpError` when it could not read that far.
            let schema: JSONValue = layer[status] != nil ? ["oneOf": [ref("response.error"), ref("httpError")]] : ref("response.error")
            var response: JSONObject = ["description": .string(text.joined(separator: "; ")),
                                        "content": ["application/json": ["schema": schema]]]
            if codes.contains(where: \.isTransient) || HTTPLayerRefusal.withRetryAfter.contains(status) {
                response["headers"] = retryAfterHeader
            }
            responses[String(status)] = .object(response)
        }
        return operation(
            id: "rpc",
            summary: "One badge service RPC command in its envelope; the response is always a document valid against the schema's `response`, and its `type` (or `code`) says the same as the status.",
            requestBody: [
                "required": true,
                "content": ["application/json": [
                    "schema": ref("request"),
                    "examples": ["unsignedCatalog": ["summary": "the one request answered unsigned",
                                                     "value": ["version": 1, "request": ["type": "getBadgeCatalog"]]]],
                ]],
            ],
            responses: responses,
            // Unsigned (only getBadgeCatalog without purchaseKey), signed, or through the trusted front.
            security: [[:], ["httpMessageSignature": []], ["trustedFront": []]])
    }

    /// The HTTP layer's refusals on every route other than `/rpc` (which lists them itself).
    static func httpLayerResponses(besides: Set<Int>) -> JSONObject {
        var out = JSONObject()
        for (status, text) in HTTPLayerRefusal.statuses.sorted(by: { $0.key < $1.key }) where !besides.contains(status) {
            var response: JSONObject = ["description": .string("the HTTP layer's refusal: " + text),
                                        "content": ["application/json": ["schema": ref("httpError")]]]
            if HTTPLayerRefusal.withRetryAfter.contains(status) { response["headers"] = retryAfterHeader }
            out[String(status)] = .object(response)
        }
        return out
    }

    // MARK: Security

    static let securitySchemes: JSONValue = [
        "httpMessageSignature": [
            "type": "apiKey", "in": "header", "name": "Signature",
            "description": """
                RFC 9421 HTTP Message Signatures with algorithm `ed25519`, beside an RFC 9530 `Content-Digest: sha-256=:…:` of the body. \
                `Signature-Input` must cover `"@method"`, `"@path"` (or `"@target-uri"`) and `"content-digest"`, with the parameters \
                `created` and `keyid`; `keyid` is the envelope's `purchaseKey` exactly as written (base64url, padded, of the 44-byte \
                Ed25519 SubjectPublicKeyInfo DER); `alg`, when present, is `ed25519`. `created` must lie within the server's \
                signature window (default 300 s); `expires`, when present, must not have passed. One signature label per request. \
                The envelope's `purchaseKey` must be the signing key. A request that fails any of this is answered 401.
                """,
        ],
        "trustedFront": [
            "type": "http", "scheme": "bearer",
            "description": """
                A trusted front (a SimpleX chat bridge that verified the agent's signature), off unless `[rpc] front_token` is set: \
                `Authorization: Bearer <front_token>` and `Badge-Signer-Key: <purchase key>`. With the front off, a \
                `Badge-Signer-Key` header is refused (401). The envelope's `purchaseKey` must be that key.
                """,
        ],
    ]
}

/// The statuses the HTTP layer answers by itself, before or instead of a route, with an
/// `httpError` body: the parser's refusals, a request that is not received in time, and a
/// handler response the server cannot send.
enum HTTPLayerRefusal {
    static let statuses: [Int: String] = {
        var out: [Int: String] = [:]
        for error in HTTPParserError.allCases {
            let what = explanation[error.httpStatus] ?? error.description
            out[error.httpStatus] = what
        }
        for status in [408, 500, 503] { out[status] = explanation[status] }
        return out
    }()

    /// Refusals sent with `Retry-After`.
    static let withRetryAfter: Set<Int> = [503]

    static let explanation: [Int: String] = [
        400: "a request that is not well-formed HTTP/1.1 (request line, fields, framing, chunked syntax)",
        408: "the request head was not received in time (`[server] head_timeout`)",
        413: "a body larger than `[server] max_body`",
        414: "a request-target longer than `[server] max_request_target`",
        417: "an `Expect` other than `100-continue`",
        431: "a field line, header section or field count above `[server] max_field_line`, `max_head`, `max_fields`",
        500: "a response the server could not send",
        501: "an unknown method or transfer coding",
        503: "a connection refused by the connection policy, or a request past the request-buffer budget (with `Retry-After: 1`)",
        505: "an HTTP version other than 1.x",
    ]
}

private extension JSONObject {
    func adding(_ key: String, _ value: JSONValue) -> JSONObject {
        var o = self
        o[key] = value
        return o
    }
}

private extension String {
    func dropPrefix(_ prefix: String) -> String { hasPrefix(prefix) ? String(dropFirst(prefix.count)) : self }
}
