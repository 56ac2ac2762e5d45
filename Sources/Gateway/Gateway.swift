import BadgeCore
import Foundation
import Handlers
import HTTPServer
import JSON
import Logging
import RequestAuth
import Providers
import Schema
import Wallet

/// The HTTP surface (README, HTTP surface): `POST /rpc`, the operational `GET` routes, and
/// the webhook paths. It authenticates, hands the body to the RPC layer, maps the answer to
/// an HTTP status, and logs and counts every request — and every refusal of the HTTP layer —
/// under a fresh request id, returned in `X-Request-Id`.
public struct Gateway: HTTPResponder {
    /// Built once from `endpoints`; its handlers hold a copy of them, not the gateway, so
    /// nothing refers back to itself.
    private let table: RouteTable
    private let endpoints: Endpoints

    /// The webhook routes are the service's (``BadgeService/webhookEndpoints``): one per payment
    /// provider its registry knows, and the stores'.
    public init(service: BadgeService, authenticator: RequestAuthenticator, pool: WorkerPool, metrics: Metrics,
                accessLog: AccessLog?, clock: @escaping @Sendable () -> Timestamp, readiness: @escaping @Sendable () -> Readiness,
                rateLimits: RateLimits = RateLimits(), wallet: WalletService? = nil) {
        endpoints = Endpoints(service: service, authenticator: authenticator, pool: pool, metrics: metrics,
                              accessLog: accessLog, clock: clock, readiness: readiness, rateLimits: rateLimits, wallet: wallet)
        table = RouteTable(endpoints.routes())
    }

    /// Before `100 Continue`: the route exists, and on `POST /rpc` the media type is JSON and the
    /// credentials pass every check that needs no body.
    /// A refusal here is logged and counted as the HTTP layer's refusals are.
    public func checkHead(_ head: HTTPRequest) -> HTTPResponse? {
        if let refusal = table.router.checkHead(head) {
            return endpoints.headRefused(head, refusal, route: table.name(for: head.path), result: nil)
        }
        guard head.path == Endpoints.rpcPath, let refusal = endpoints.cheapRefusal(head, bodyReceived: false) else { return nil }
        return endpoints.headRefused(head, refusal.response, route: table.name(for: head.path), result: refusal.result)
    }

    /// Every routed path with its methods: what `schema/badges-rpc.openapi.json` must describe.
    public var routes: [String: [String]] { table.router.routeTable }

    /// The name of each routed path, as `route` labels and access lines give it.
    public var routeNames: [String: String] { table.names }

    /// Routes the request under a new ``RequestID`` (the worker pool carries it to the work it
    /// runs); what no route answers (404, 405, `OPTIONS *`) is logged and counted too.
    public func handle(_ request: HTTPRequest, respond: @escaping @Sendable (HTTPResponse) -> Void) {
        RequestID.$current.withValue(RequestID()) {
            if table.router.routes(request.method, on: request.path) {
                return table.router.handle(request, respond: respond)
            }
            let started = ContinuousClock.now
            let route = table.name(for: request.path)
            table.router.handle(request) { [endpoints] response in
                endpoints.finish(request, response, route: route, started: started, respond)
            }
        }
    }

    /// The server's own answers outside a request (503 at accept, 500 for a response it cannot
    /// send), as every other refusal off `/rpc` is answered: `httpError`. Nothing is recorded:
    /// there was no request.
    public func answer(status: Int, message: String, headers: HTTPHeaders) -> HTTPResponse {
        HTTPResponse(HTTPError(status: status, message: message, fields: headers))
    }

    /// A refusal of the HTTP layer (framing, limits, timeouts), logged and counted like a
    /// response. On `POST /rpc` the body is the protocol's `error` document (`bad_request`).
    public func refused(_ refusal: HTTPRefusal) -> HTTPResponse {
        endpoints.refused(refusal, route: refusal.path.map(table.name(for:)) ?? "none")
    }
}

/// What the routes do, and what they need to do it.
struct Endpoints: Sendable {
    let service: BadgeService
    let authenticator: RequestAuthenticator
    let pool: WorkerPool
    let metrics: Metrics
    let accessLog: AccessLog?
    let clock: @Sendable () -> Timestamp
    /// Whether the database is writable and the issuer keys are loaded, or why not.
    let readiness: @Sendable () -> Readiness
    /// Failed guesses per key and address (`rate_limited`).
    let rateLimits: RateLimits
    /// The coin wallet's routes answer provider_not_configured without it.
    let wallet: WalletService?

    static let rpcPath = "/rpc"

    /// Every route with its name, as `route` labels and access lines give it (``RouteTable``).
    func routes() -> [RouteTable.Route] {
        var routes: [RouteTable.Route] = [
            .init("POST", Self.rpcPath, "rpc") { route in { request, respond in rpc(request, route: route, respond: respond) } },
            .init("GET", "/healthz", "healthz") { route in { request, respond in
                finish(request, HTTPResponse(StatusAnswer(200, "ok")), route: route, started: .now, respond)
            } },
            .init("GET", "/readyz", "readyz") { route in { request, respond in
                let started = ContinuousClock.now
                // Readiness writes to the database, so it runs off the event loop.
                guard pool.submit(key: request.remoteAddress, {
                    switch readiness() {
                    case .ready:
                        finish(request, HTTPResponse(StatusAnswer(200, "ready")), route: route, started: started, respond)
                    case .notReady(let reason):
                        finish(request, HTTPResponse(StatusAnswer(503, "not ready", reason: reason)), route: route, started: started, respond)
                    }
                }) else {
                    return finish(request, HTTPResponse(StatusAnswer(503, "busy")), route: route, started: started, respond)
                }
            } },
            .init("GET", "/metrics", "metrics") { route in { request, respond in
                let started = ContinuousClock.now
                // The scrape reads the database's totals, so it runs off the event loop too.
                guard pool.submit(key: request.remoteAddress, {
                    let response = HTTPResponse(status: 200, contentType: "text/plain; version=0.0.4; charset=utf-8", body: metrics.render())
                    finish(request, response, route: route, started: started, respond)
                }) else {
                    return finish(request, HTTPResponse(StatusAnswer(503, "busy")), route: route, started: started, respond)
                }
            } },
            .init("GET", "/schema", "schema") { route in { request, respond in
                finish(request, .json(200, BadgeRPCSchema.text), route: route, started: .now, respond)
            } },
            .init("GET", "/openapi.json", "openapi") { route in { request, respond in
                finish(request, .json(200, OpenAPIDocument.text), route: route, started: .now, respond)
            } },
        ]
        for endpoint in service.webhookEndpoints {
            routes.append(.init("POST", endpoint.path, endpoint.route) { route in { request, respond in
                webhook(request, endpoint, route: route, respond: respond)
            } })
        }
        routes += [
            .init("GET", "/wallet/coin-packages", "wallet_coin_packages") { route in { request, respond in
                // The table is in memory: answered on the event loop.
                walletFinish(request, wallet?.coinPackages() ?? .notDeployed, route: route, started: .now, respond)
            } },
            .init("GET", "/wallet", "wallet") { route in { request, respond in
                walletSigned(request, route: route, respond: respond) { wallet, account in wallet.wallet(account: account) }
            } },
            .init("POST", "/wallet/coins/purchase", "wallet_purchase") { route in { request, respond in
                guard let type = request.headers.first("Content-Type"), Self.isJSON(type) else {
                    return walletFinish(request, WalletAnswer(status: 415, .badRequest("Content-Type must be application/json")),
                                        route: route, started: .now, respond)
                }
                walletSigned(request, route: route, respond: respond) { wallet, account in
                    wallet.purchase(body: request.body, account: account)
                }
            } },
        ]
        return routes
    }

    /// A wallet route for the signing account: on the worker pool (the signature check, SQLite
    /// and the stores may block), signed as `/rpc` is; the account is the verified key.
    func walletSigned(_ request: HTTPRequest, route: String, respond: @escaping @Sendable (HTTPResponse) -> Void,
                      answer: @escaping @Sendable (WalletService, String) -> WalletAnswer) {
        let started = ContinuousClock.now
        guard let wallet else { return walletFinish(request, .notDeployed, route: route, started: started, respond) }
        // The front-token guessing limit of POST /rpc holds here too.
        if request.headers.contains("Authorization"),
           let wait = rateLimits.frontTokenRetryAfter(address: request.remoteAddress, now: clock().seconds) {
            return walletFinish(request, .rateLimited("too many failed front tokens from this address", retryAfter: UInt32(clamping: wait)),
                                route: route, started: started, respond)
        }
        let accepted = pool.submit(key: request.remoteAddress) {
            switch authenticator.authenticate(signedRequest(request), now: clock()) {
            case .unsigned:
                walletFinish(request, .unauthenticated("the wallet routes need a signed request (RFC 9421, as POST /rpc)"),
                             route: route, started: started, respond)
            case .invalid(let refusal):
                if refusal == .frontTokenMismatch { rateLimits.frontTokenFailed(address: request.remoteAddress, now: clock().seconds) }
                walletFinish(request, .unauthenticated(refusal.reason), route: route, started: started, respond)
            case .valid(let signer):
                walletFinish(request, answer(wallet, signer.keyID), route: route, started: started, respond)
            }
        }
        if !accepted { walletFinish(request, .busy, route: route, started: started, respond) }
    }

    func walletFinish(_ request: HTTPRequest, _ answer: WalletAnswer, route: String, started: ContinuousClock.Instant,
                      _ respond: @Sendable (HTTPResponse) -> Void) {
        finish(request, HTTPResponse(answer), route: route, result: answer.result, started: started, respond)
    }

    /// `POST /rpc`. The event loop answers what needs no wait: an unsigned request when the RPC
    /// layer can do it from memory (the cached catalog), and a signed one once its signature
    /// checks here (CPU alone, about 50 µs) when the RPC layer can answer it without writing,
    /// signing or waiting (a credential already issued, read from SQLite's WAL, which waits for no
    /// writer). Everything else goes to the worker pool, where SQLite writes, BBS and the stores'
    /// APIs may block. Answering on the loop spares the hand-off between threads (wake-ups and
    /// context switches), which under load made most of the tail latency (issue 17).
    func rpc(_ request: HTTPRequest, route: String, respond: @escaping @Sendable (HTTPResponse) -> Void) {
        let started = ContinuousClock.now
        let signer: VerifiedSigner?
        switch admission(request, bodyReceived: true) {
        case .refused(let response, let result):
            return finish(request, response, route: route, command: nil, result: result, started: started, respond)
        case .unsigned:
            if let outcome = service.answerFromMemory(body: request.body) {
                return finish(request, httpResponse(outcome), route: route, command: outcome.command, result: outcome.result,
                              started: started, respond)
            }
            signer = nil
        case .credentials(let prechecked):
            // What the admission checked is not checked again: only the time, and the signature.
            switch authenticator.authenticate(prechecked, now: clock()) {
            case .unsigned:
                signer = nil
            case .invalid(let refusal):
                let refused = failure(.badRequest, refusal.reason)
                return finish(request, httpResponse(refused, status: refusal.httpStatus), route: route, command: nil,
                              result: refused.result, started: started, respond)
            case .valid(let verified):
                if let limited = codeRedemptionLimit(request, signer: verified) {
                    return finish(request, httpResponse(limited), route: route, command: limited.command, result: limited.result,
                                  started: started, respond)
                }
                if let outcome = service.answerWithoutWaiting(body: request.body, signer: verified.publicKey) {
                    return finish(request, httpResponse(outcome), route: route, command: outcome.command,
                                  result: outcome.result, started: started, respond)
                }
                signer = verified
            }
        }
        // One peer address queues at most its share of the pool, so a flood from it leaves room for others.
        let accepted = pool.submit(key: request.remoteAddress) {
            guard let signer else {
                let outcome = service.handle(body: request.body, caller: .anonymous)
                return finish(request, httpResponse(outcome), route: route, command: outcome.command, result: outcome.result,
                              started: started, respond)
            }
            let outcome = service.handle(body: request.body, caller: .signer(signer.publicKey))
            if outcome.command == "redeemBadgeCode", outcome.response.errorCode == .codeInvalid {
                rateLimits.codeRedemptionFailed(key: signer.keyID, address: request.remoteAddress, now: clock().seconds)
            }
            finish(request, httpResponse(outcome), route: route, command: outcome.command, result: outcome.result,
                   started: started, respond)
        }
        if !accepted {
            let busy = service.encode(RPCResponse(.overloaded(retryAfter: 1)), command: nil)
            finish(request, httpResponse(busy), route: route, command: nil, result: busy.result, started: started, respond)
        }
    }

    /// What `POST /rpc`'s checks on the event loop decided.
    enum Admission {
        /// Refused before any queue, with this response and protocol result code.
        case refused(HTTPResponse, String)
        /// No credentials: an anonymous request.
        case unsigned
        /// Credentials that passed every check needing no cryptography; the signature is next.
        case credentials(RequestAuthenticator.Prechecked)
    }

    /// What `POST /rpc` refuses on the event loop, before any queue: a media type other than
    /// JSON (415), a front token from an address that failed too many (`rate_limited`), and
    /// credentials that fail a check needing no cryptography — a stale or future `created`, a
    /// digest that does not match the body, a wrong front token (401, counted per address).
    func cheapRefusal(_ request: HTTPRequest, bodyReceived: Bool) -> (response: HTTPResponse, result: String)? {
        guard case .refused(let response, let result) = admission(request, bodyReceived: bodyReceived) else { return nil }
        return (response, result)
    }

    /// ``cheapRefusal(_:bodyReceived:)``, keeping what the credential checks established.
    func admission(_ request: HTTPRequest, bodyReceived: Bool) -> Admission {
        guard let type = request.headers.first("Content-Type"), Self.isJSON(type) else {
            let outcome = failure(.badRequest, "Content-Type must be application/json")
            return .refused(httpResponse(outcome, status: 415), outcome.result)
        }
        guard Self.carriesCredentials(request) else { return .unsigned }
        let now = clock()
        if request.headers.contains("Authorization"),
           let wait = rateLimits.frontTokenRetryAfter(address: request.remoteAddress, now: now.seconds) {
            let limited = service.encode(.failure(.rateLimited, message: "too many failed front tokens from this address",
                                                  retryAfter: UInt32(clamping: wait)), command: nil)
            return .refused(httpResponse(limited), limited.result)
        }
        switch authenticator.prepare(signedRequest(request), now: now, bodyReceived: bodyReceived) {
        case .success(let prechecked):
            return .credentials(prechecked)
        case .failure(let refusal):
            if refusal == .frontTokenMismatch { rateLimits.frontTokenFailed(address: request.remoteAddress, now: now.seconds) }
            let refused = failure(.badRequest, refusal.reason)
            return .refused(httpResponse(refused, status: refusal.httpStatus), refused.result)
        }
    }

    /// `rate_limited` for a code redemption while its key or address is blocked for failed ones.
    /// The body is looked at only then, so the common path parses it once (in the RPC layer).
    func codeRedemptionLimit(_ request: HTTPRequest, signer: VerifiedSigner) -> RPCOutcome? {
        guard let wait = rateLimits.codeRedemptionRetryAfter(key: signer.keyID, address: request.remoteAddress,
                                                              now: clock().seconds),
              (try? JSONParser().parse(request.body))?["request"]?["type"]?.stringValue == "redeemBadgeCode"
        else { return nil }
        return service.encode(.failure(.rateLimited, message: "too many failed code redemptions; retry later",
                                       retryAfter: UInt32(clamping: wait)), command: "redeemBadgeCode")
    }

    /// A provider's delivery: the signature is checked on the worker pool (never the body
    /// logged), then the settlement runs there too, as it may write and call the provider.
    /// 400 for a refused signature, 200 once handled (a duplicate or an event that settles
    /// nothing included), 503 when it must be delivered again (the push keys could not be
    /// fetched included), 501 when not configured.
    func webhook(_ request: HTTPRequest, _ endpoint: WebhookEndpoint, route: String, respond: @escaping @Sendable (HTTPResponse) -> Void) {
        let started = ContinuousClock.now
        let accepted = pool.submit {
            let settle: (() -> SettlementOutcome)?
            let delivery = WebhookDelivery(body: request.body, field: { request.headers.first($0) })
            do throws(WebhookRefusal) { settle = try endpoint.accept(delivery, clock()) } catch {
                return finish(request, HTTPResponse(error.answer), route: route, result: error.result, started: started, respond)
            }
            guard let settle else {
                return finish(request, HTTPResponse(HTTPError(status: 501, message: "\(endpoint.provider) is not configured")),
                              route: route, result: "provider_not_configured", started: started, respond)
            }
            let outcome = settle()
            if case .retryLater = outcome {
                return finish(request, HTTPResponse(StatusAnswer(503, outcome.result)), route: route, result: outcome.result, started: started, respond)
            }
            finish(request, HTTPResponse(StatusAnswer(200, outcome.result)), route: route, result: outcome.result, started: started, respond)
        }
        if !accepted { finish(request, HTTPResponse(StatusAnswer(503, "busy")), route: route, result: "busy", started: started, respond) }
    }

    /// The request as RFC 9421 sees it; `@authority` is the target's (RFC 9112 §3.3: an
    /// absolute-form target's authority wins over `Host`).
    func signedRequest(_ request: HTTPRequest) -> SignedRequest {
        SignedRequest(method: request.method, path: request.path, query: request.query,
                      authority: request.authority, scheme: request.scheme,
                      headers: request.headers.lines, body: request.body)
    }

    func failure(_ code: ErrorCode, _ message: String) -> RPCOutcome {
        service.encode(.failure(code, message: message), command: nil)
    }

    func httpResponse(_ outcome: RPCOutcome, status: Int? = nil) -> HTTPResponse {
        HTTPResponse(RPCAnswer(outcome, status: status))
    }

    /// Sends `response` with the request's id in `X-Request-Id`, then counts and logs it.
    /// `command` and `result` are the RPC command and protocol result code (nil outside RPC).
    func finish(_ request: HTTPRequest, _ response: HTTPResponse, route: String, command: String? = nil, result: String? = nil,
                started: ContinuousClock.Instant, _ respond: @Sendable (HTTPResponse) -> Void) {
        let id = RequestID.current ?? RequestID()
        var response = response
        response.headers.replaceOrAdd(name: "X-Request-Id", value: id.text)
        let elapsed = ContinuousClock.now - started
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        // Counted and logged before it is sent: a client that has its answer finds it in
        // /metrics and the access log (a worker could otherwise be preempted in between).
        metrics.recordRequest(route: route, command: command, result: result, status: response.status, seconds: seconds)
        accessLog?.record(requestID: id, method: request.method, path: request.path, route: route, command: command,
                          status: response.status, result: result, seconds: seconds)
        respond(response)
    }

    /// A refusal before `100 Continue` (``Gateway/checkHead(_:)``), counted and logged under a new
    /// request id, as the HTTP layer's refusals are.
    func headRefused(_ head: HTTPRequest, _ response: HTTPResponse, route: String, result: String?) -> HTTPResponse {
        let id = RequestID()
        var response = response
        response.headers.replaceOrAdd(name: "X-Request-Id", value: id.text)
        metrics.recordRefusal(route: route, status: response.status)
        accessLog?.record(requestID: id, method: head.method, path: head.path, route: route, command: nil,
                          status: response.status, result: result, seconds: nil)
        return response
    }

    /// The answer to an HTTP-layer refusal on `route`, counted and logged under a new request id.
    func refused(_ refusal: HTTPRefusal, route: String) -> HTTPResponse {
        let id = RequestID()
        var response: HTTPResponse
        var result: String?
        if refusal.method == "POST" && refusal.path == Self.rpcPath {
            // The body says what the status says: a refusal to retry (503, past the buffer
            // budget) is the transient class with its wait, every other one bad_request.
            let outcome = refusal.retryAfter.map {
                service.encode(.failure(.providerUnavailable, message: refusal.message, retryAfter: UInt32(clamping: $0)), command: nil)
            } ?? failure(.badRequest, refusal.message)
            response = httpResponse(outcome, status: refusal.status)
            result = outcome.result
        } else {
            response = HTTPResponse(HTTPError(status: refusal.status, message: refusal.message))
        }
        response.headers.replaceOrAdd(name: "X-Request-Id", value: id.text)
        metrics.recordRefusal(route: route, status: refusal.status)
        accessLog?.record(requestID: id, method: refusal.method, path: refusal.path, route: route, command: nil,
                          status: refusal.status, result: result, seconds: nil)
        return response
    }

    /// Whether the request carries credentials to check (``RequestAuthenticator/credentialFields``),
    /// in one pass over its header lines.
    static func carriesCredentials(_ request: HTTPRequest) -> Bool {
        request.headers.containsAny(of: RequestAuthenticator.credentialFields)
    }

    /// `application/json`, with or without parameters, in any case. On the contiguous bytes:
    /// split and `lowercased()`, then generic views of the UTF-8, cost 4–5% of the cached
    /// catalog's path (issue 17's profile).
    static func isJSON(_ contentType: String) -> Bool {
        var contentType = contentType
        return contentType.withUTF8 { bytes in
            var end = 0
            while end < bytes.count, bytes[end] != UInt8(ascii: ";") { end += 1 }
            var start = 0
            while start < end, bytes[start] == 0x20 || bytes[start] == 0x09 { start += 1 }
            while end > start, bytes[end - 1] == 0x20 || bytes[end - 1] == 0x09 { end -= 1 }
            let expected: StaticString = "application/json"
            guard end - start == expected.utf8CodeUnitCount else { return false }
            let e = expected.utf8Start
            for i in 0..<(end - start) {
                let a = bytes[start + i], x = e[i]
                // ASCII case folding: only letters differ by 0x20, and the expected text has no
                // other byte that folds onto a letter.
                guard a == x || (x >= 0x61 && x <= 0x7A && a == x - 0x20) else { return false }
            }
            return true
        }
    }
}

extension HTTPResponse {
    static func json(_ status: Int, _ body: String) -> HTTPResponse {
        HTTPResponse(status: status, contentType: "application/json", body: body)
    }
}
