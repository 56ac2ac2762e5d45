import BadgeCore
import Foundation
import Handlers
import HTTPServer
import RequestAuth
import Schema

/// The HTTP surface of ARCHITECTURE.md §2: `POST /rpc`, the operational `GET` routes, and
/// the webhook paths. It authenticates, hands the body to the RPC layer, maps the answer to
/// an HTTP status, and logs and counts every request.
public final class Gateway: HTTPResponder, @unchecked Sendable {
    public let service: BadgeService
    public let authenticator: RequestAuthenticator
    public let pool: WorkerPool
    public let metrics: Metrics
    public let accessLog: AccessLog?
    public let clock: @Sendable () -> Timestamp
    /// Whether the database is writable and the issuer keys are loaded.
    public let isReady: @Sendable () -> Bool

    public init(service: BadgeService, authenticator: RequestAuthenticator, pool: WorkerPool, metrics: Metrics,
                accessLog: AccessLog?, clock: @escaping @Sendable () -> Timestamp, isReady: @escaping @Sendable () -> Bool) {
        self.service = service
        self.authenticator = authenticator
        self.pool = pool
        self.metrics = metrics
        self.accessLog = accessLog
        self.clock = clock
        self.isReady = isReady
        router = makeRouter()
    }

    /// Built once in `init`, read-only afterwards.
    private var router = Router()

    /// Routes the request; what no route answers (404, 405, `OPTIONS *`) is logged and counted too.
    public func handle(_ request: HTTPRequest, respond: @escaping @Sendable (HTTPResponse) -> Void) {
        if router.allowedMethods(for: request.path).contains(request.method) {
            return router.handle(request, respond: respond)
        }
        let started = ContinuousClock.now
        router.handle(request) { response in
            self.finish(request, response, route: "unrouted", result: String(response.status), started: started, respond)
        }
    }

    private func makeRouter() -> Router {
        var router = Router()
        router.add("POST", "/rpc") { request, respond in self.rpc(request, respond: respond) }
        router.add("GET", "/healthz") { request, respond in
            self.finish(request, .json(200, #"{"status":"ok"}"#), route: "healthz", result: "ok", started: .now, respond)
        }
        router.add("GET", "/readyz") { request, respond in
            let started = ContinuousClock.now
            // Readiness writes to the database, so it runs off the event loop.
            guard self.pool.submit({
                let ready = self.isReady()
                self.finish(request, .json(ready ? 200 : 503, ready ? #"{"status":"ready"}"# : #"{"status":"not ready"}"#),
                            route: "readyz", result: ready ? "ok" : "not_ready", started: started, respond)
            }) else {
                return self.finish(request, .json(503, #"{"status":"busy"}"#), route: "readyz", result: "busy", started: started, respond)
            }
        }
        router.add("GET", "/metrics") { request, respond in
            let response = HTTPResponse(status: 200, contentType: "text/plain; version=0.0.4; charset=utf-8", body: self.metrics.render())
            self.finish(request, response, route: "metrics", result: "ok", started: .now, respond)
        }
        router.add("GET", "/schema") { request, respond in
            self.finish(request, .json(200, BadgeRPCSchema.text), route: "schema", result: "ok", started: .now, respond)
        }
        for provider in ["stripe", "btcpay"] {
            router.add("POST", "/webhooks/\(provider)") { request, respond in
                let response = HTTPResponse.error(status: 501, message: "\(provider) settlement is not available in this version")
                self.finish(request, response, route: "webhook_\(provider)", result: "not_built", started: .now, respond)
            }
        }
        return router
    }

    /// `POST /rpc`. Unsigned requests are answered on the event loop (the catalog is cached);
    /// signed ones go to the worker pool, where signature checks, SQLite and BBS may block.
    func rpc(_ request: HTTPRequest, respond: @escaping @Sendable (HTTPResponse) -> Void) {
        let started = ContinuousClock.now
        guard let type = request.headers.first("Content-Type"), Self.isJSON(type) else {
            let outcome = failure(.badRequest, "Content-Type must be application/json")
            return finish(request, httpResponse(outcome, status: 415), route: "rpc", result: outcome.result, started: started, respond)
        }
        let mayBeSigned = ["Signature", "Signature-Input", "Badge-Signer-Key", "Authorization"].contains {
            request.headers.contains($0)
        }
        if !mayBeSigned {
            let outcome = service.handle(body: request.body, caller: .anonymous)
            return finish(request, httpResponse(outcome), route: outcome.command ?? "rpc", result: outcome.result,
                          started: started, respond)
        }
        let accepted = pool.submit {
            let outcome: RPCOutcome
            switch self.authenticator.authenticate(self.signedRequest(request), now: self.clock()) {
            case .unsigned: outcome = self.service.handle(body: request.body, caller: .anonymous)
            case .valid(let signer): outcome = self.service.handle(body: request.body, caller: .signer(signer.publicKey))
            case .invalid(let failure):
                let refused = self.failure(.badRequest, failure.reason)
                return self.finish(request, self.httpResponse(refused, status: failure.httpStatus), route: "rpc",
                                   result: "unauthenticated", started: started, respond)
            }
            self.finish(request, self.httpResponse(outcome), route: outcome.command ?? "rpc", result: outcome.result,
                        started: started, respond)
        }
        if !accepted {
            let busy = service.encode(RPCResponse(.overloaded(retryAfter: 1)), command: nil)
            finish(request, httpResponse(busy), route: "rpc", result: busy.result, started: started, respond)
        }
    }

    /// The request as RFC 9421 sees it; `@authority` comes from `Host`.
    func signedRequest(_ request: HTTPRequest) -> SignedRequest {
        SignedRequest(method: request.method, path: request.path, query: request.query,
                      authority: request.headers.first("Host") ?? "", scheme: "http",
                      headers: request.headers.map { ($0.name, $0.value) }, body: request.body)
    }

    func failure(_ code: ErrorCode, _ message: String) -> RPCOutcome {
        service.encode(.failure(code, message: message), command: nil)
    }

    func httpResponse(_ outcome: RPCOutcome, status: Int? = nil) -> HTTPResponse {
        var headers: HTTPHeaders = ["Content-Type": "application/json"]
        if case .error(_, _, let retryAfter?) = outcome.response { headers.add(name: "Retry-After", value: String(retryAfter)) }
        return HTTPResponse(status: status ?? HTTPStatusMapping.status(for: outcome), headers: headers, body: outcome.body)
    }

    func finish(_ request: HTTPRequest, _ response: HTTPResponse, route: String, result: String,
                started: ContinuousClock.Instant, _ respond: @Sendable (HTTPResponse) -> Void) {
        respond(response)
        let elapsed = ContinuousClock.now - started
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        metrics.recordRequest(command: route, result: result, status: response.status, seconds: seconds)
        accessLog?.record(at: clock(), method: request.method, path: request.path, status: response.status,
                          command: route, result: result, seconds: seconds)
    }

    /// `application/json`, with or without parameters, in any case.
    static func isJSON(_ contentType: String) -> Bool {
        var media = contentType.split(separator: ";", maxSplits: 1).first ?? ""
        while media.first == " " || media.first == "\t" { media.removeFirst() }
        while media.last == " " || media.last == "\t" { media.removeLast() }
        return media.lowercased() == "application/json"
    }
}

extension HTTPResponse {
    static func json(_ status: Int, _ body: String) -> HTTPResponse {
        HTTPResponse(status: status, contentType: "application/json", body: body)
    }
}
