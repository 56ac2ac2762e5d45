import BadgeCore
import Gateway
import Handlers
import HTTPServer
import Locking
import RequestAuth
import Storage
import TestSupport
import Testing

/// One route table names every path, for metrics and access lines alike: a path a route serves
/// keeps its name when the HTTP layer or the router refuses a request to it.
@Suite struct RouteTableTests {
    static let pool = WorkerPool(threads: 1, capacity: 4)
    let dir = TemporaryDirectory("route-table")

    func gateway(metrics: Metrics) throws -> Gateway {
        let store = try SQLiteBadgeStore(path: dir.file("badges.sqlite"))
        let service = BadgeService(store: store, issuer: CountingIssuer(), clock: { Timestamp(seconds: 0) })
        return Gateway(service: service, authenticator: RequestAuthenticator(), pool: Self.pool, metrics: metrics, accessLog: nil,
                       clock: { Timestamp(seconds: 0) }, readiness: { .ready })
    }

    @Test func everyRoutedPathHasOneNameAndItsRefusalsCountUnderIt() throws {
        let metrics = Metrics(openConnections: { 0 })
        let gateway = try gateway(metrics: metrics)
        #expect(gateway.routeNames == [
            "/rpc": "rpc", "/healthz": "healthz", "/readyz": "readyz", "/metrics": "metrics", "/schema": "schema",
            "/openapi.json": "openapi", "/webhooks/stripe": "webhook_stripe", "/webhooks/btcpay": "webhook_btcpay",
            "/webhooks/apple": "webhook_apple", "/webhooks/google": "webhook_google", "/wallet": "wallet",
            "/wallet/coin-packages": "wallet_coin_packages", "/wallet/coins/purchase": "wallet_purchase",
        ])
        #expect(Set(gateway.routeNames.keys) == Set(gateway.routes.keys))
        // a method the route does not serve (405), before and after the body, and a refusal of the HTTP layer
        let put = HTTPRequest(method: "PUT", target: "/openapi.json", headers: [:], body: [], remoteAddress: "192.0.2.1")
        #expect(gateway.checkHead(put)?.status == 405)
        let answered = LockedResponse()
        gateway.handle(put) { answered.set($0) }
        #expect(answered.value?.status == 405)
        #expect(gateway.refused(HTTPRefusal(status: 413, message: "too large", method: "POST", target: "/openapi.json")).status == 413)
        let missing = HTTPRequest(method: "GET", target: "/nowhere", headers: [:], body: [], remoteAddress: "192.0.2.1")
        #expect(gateway.checkHead(missing)?.status == 404)
        let text = metrics.render()
        #expect(text.contains("badge_http_responses_total{route=\"openapi\",status=\"405\"} 2\n"), "\(text)")
        #expect(text.contains("badge_http_responses_total{route=\"openapi\",status=\"413\"} 1\n"), "\(text)")
        #expect(text.contains("badge_http_responses_total{route=\"unrouted\",status=\"404\"} 1\n"), "\(text)")
        #expect(!text.contains("route=\"unrouted\",status=\"405\""))
    }
}

/// A response handed over on another thread, read once it came.
final class LockedResponse: Sendable {
    private let box = LockedValueBox<HTTPResponse?>(nil)
    func set(_ response: HTTPResponse) { box.withLock { $0 = response } }
    var value: HTTPResponse? { box.withLock { $0 } }
}
