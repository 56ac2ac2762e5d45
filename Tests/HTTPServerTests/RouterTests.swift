import Foundation
import HTTPServer
import Locking
import Testing

@Suite struct RouterTests {
    func router() -> Router {
        var router = Router()
        router.get("/healthz") { _ in HTTPResponse(status: 200, body: Array("ok".utf8)) }
        router.post("/v1/echo") { request in HTTPResponse(status: 200, body: request.body) }
        router.add("PUT", "/v1/echo") { _, respond in respond(HTTPResponse(status: 201)) }
        return router
    }

    func answer(_ router: Router, _ method: String, _ target: String, body: [UInt8] = []) -> HTTPResponse {
        let box = LockedValueBox<HTTPResponse?>(nil)
        router.handle(HTTPRequest(method: method, target: target, body: body)) { response in
            box.withLock { $0 = response }
        }
        return box.withLock { $0 }!
    }

    /// `routes(_:on:)` answers what `allowedMethods(for:)` lists, for every method and path.
    @Test(arguments: ["GET", "HEAD", "POST", "PUT", "DELETE", "OPTIONS", "get"])
    func routesAgreesWithAllowedMethods(method: String) {
        let r = router()
        for path in ["/healthz", "/v1/echo", "/", "/HEALTHZ", "*"] {
            #expect(r.routes(method, on: path) == r.allowedMethods(for: path).contains(method), "\(method) \(path)")
        }
    }

    @Test func routesByExactPathAndMethod() {
        let r = router()
        #expect(answer(r, "GET", "/healthz").body == Array("ok".utf8))
        #expect(answer(r, "GET", "/healthz?probe=1").status == 200)
        #expect(answer(r, "POST", "/v1/echo", body: [1, 2]).body == [1, 2])
        #expect(answer(r, "PUT", "/v1/echo").status == 201)
    }

    @Test(arguments: ["/", "/healthz/", "/HEALTHZ", "/health", "/v1/echo/x", "/%68ealthz", "*"])
    func unknownPathsAre404(path: String) {
        let response = answer(router(), "GET", path)
        #expect(response.status == 404)
        #expect(response.headers.first("content-type") == "text/plain; charset=utf-8")
        #expect(response.body == Array("no such path\n".utf8))
    }

    /// The router's own answers are rendered by the closure it is made with (the gateway's JSON).
    @Test func itsOwnAnswersAreRenderedByItsMaker() {
        var r = Router(answers: { status, message, fields in
            var fields = fields
            fields.add(name: "X-Rendered", value: "yes")
            return HTTPResponse(status: status, headers: fields, body: Array(message.utf8))
        })
        r.get("/healthz") { _ in HTTPResponse(status: 200) }
        let missing = answer(r, "GET", "/nowhere")
        #expect(missing.status == 404 && missing.body == Array("no such path".utf8) && missing.headers.first("X-Rendered") == "yes")
        let wrong = answer(r, "DELETE", "/healthz")
        #expect(wrong.status == 405 && wrong.headers.first("Allow") == "GET, HEAD" && wrong.headers.first("X-Rendered") == "yes")
    }

    @Test func wrongMethodIs405WithAllow() {
        let r = router()
        let get = answer(r, "DELETE", "/healthz")
        #expect(get.status == 405)
        #expect(get.headers.first("Allow") == "GET, HEAD")
        let echo = answer(r, "GET", "/v1/echo")
        #expect(echo.status == 405)
        #expect(echo.headers.first("Allow") == "POST, PUT")
    }

    @Test func headIsServedByTheGetRoute() {
        #expect(answer(router(), "HEAD", "/healthz").body == Array("ok".utf8))   // the server drops it
        #expect(answer(router(), "HEAD", "/v1/echo").status == 405)
    }

    @Test func optionsAsteriskListsEveryMethod() {
        let response = answer(router(), "OPTIONS", "*")
        #expect(response.status == 204)
        #expect(response.headers.first("allow") == "GET, HEAD, OPTIONS, POST, PUT")
    }
}

@Suite struct HTTPHeadersTests {
    @Test func lookupIsCaseInsensitiveAndOrderIsKept() {
        var headers: HTTPHeaders = ["Content-Type": "a", "X-Multi": "1"]
        headers.add(name: "x-multi", value: "2")
        #expect(headers.first("content-type") == "a")
        #expect(headers.values(for: "X-MULTI") == ["1", "2"])
        #expect(headers.contains("CONTENT-TYPE"))
        #expect(!headers.contains("Content-Typ"))
        headers.replaceOrAdd(name: "X-Multi", value: "3")
        #expect(headers.values(for: "x-multi") == ["3"])
        headers.remove(name: "CONTENT-type")
        #expect(headers.map(\.name) == ["X-Multi"])
        #expect(headers.count == 1)
    }

    @Test func octetsRoundTripLatin1() {
        #expect(HTTPHeaders.octets(of: "a\u{ff}") == [0x61, 0xFF])
        #expect(HTTPHeaders.octets(of: "\u{100}") == nil)
    }
}

@Suite struct HTTPDateTests {
    /// RFC 9110 §5.6.7: IMF-fixdate = day-name "," SP date1 SP time-of-day SP GMT
    @Test(arguments: [(0, "Thu, 01 Jan 1970 00:00:00 GMT"), (784_111_777, "Sun, 06 Nov 1994 08:49:37 GMT"),
                      (951_782_400, "Tue, 29 Feb 2000 00:00:00 GMT"), (4_102_444_799, "Thu, 31 Dec 2099 23:59:59 GMT")])
    func formatsIMFFixdate(seconds: Int, expected: String) {
        #expect(String(decoding: HTTPDate.format(unixSeconds: seconds), as: UTF8.self) == expected)
    }
}
