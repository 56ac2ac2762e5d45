@testable import Gateway
import BadgeCore
import Handlers
import HTTPServer
import JSON
import RequestAuth
import Schema
import Storage
import TestSupport
import Testing

/// What an HTTP-layer refusal of `POST /rpc` answers: a protocol `error` document whose code says
/// what the status says, whatever form the target was sent in.
@Suite struct RefusalAnswerTests {
    /// Static: a pool's threads outlive any one test (nothing is submitted to it here).
    static let pool = WorkerPool(threads: 1, capacity: 1)
    let dir = TemporaryDirectory("gateway-refusals")

    func gateway() throws -> Gateway {
        let store = try SQLiteBadgeStore(path: dir.file("badges.sqlite"))
        let service = BadgeService(store: store, issuer: CountingIssuer(), clock: { Timestamp(seconds: 1_780_000_000) })
        return Gateway(service: service, authenticator: RequestAuthenticator(), pool: Self.pool,
                       metrics: Metrics(openConnections: { 0 }), accessLog: nil, clock: { Timestamp(seconds: 1_780_000_000) },
                       readiness: { .ready })
    }

    func error(_ response: HTTPResponse) throws -> (code: String?, retryAfter: Int?) {
        let json = try JSONParser().parse(response.body)
        #expect(BadgeRPCSchema.shared.validateResponse(json).isEmpty, "\(String(decoding: response.body, as: UTF8.self))")
        #expect(json["type"]?.stringValue == "error")
        return (json["code"]?.stringValue, json["retryAfter"]?.numberValue?.exactInt)
    }

    @Test func anAbsoluteFormTargetIsAnsweredAsItsPathIs() throws {
        let gateway = try gateway()
        for target in ["/rpc", "http://t/rpc", "http://t:8080/rpc?x=1", "HTTP://t/rpc"] {
            let response = gateway.refused(HTTPRefusal(status: 413, message: "body too large", method: "POST", target: target))
            #expect(response.status == 413, "\(target)")
            #expect(try error(response).code == "bad_request", "\(target)")
        }
        #expect(HTTPRefusal(status: 400, message: "", target: "http://t").path == "/")
        #expect(HTTPRefusal(status: 400, message: "", target: "http://t?q").path == "/")
        #expect(HTTPRefusal(status: 400, message: "", target: "/a?b").path == "/a")
    }

    @Test func aRefusalToRetryIsTheTransientClassWithItsWait() throws {
        let response = try gateway().refused(HTTPRefusal(status: 503, message: "request buffers are full; retry later",
                                                         method: "POST", target: "/rpc", retryAfter: 1))
        let answer = try error(response)
        #expect(answer.code == "provider_unavailable" && answer.retryAfter == 1)
        #expect(response.headers.first("Retry-After") == "1")
    }
}
