import Foundation
import HTTPServer
import Testing
import TestSupport

/// I07 with an independent parser: responses captured from a live server are parsed by h11
/// (PyPI, client role), which must accept each one and see the same status, body length and
/// no body where none is allowed.
@Suite(.timeLimit(.minutes(5))) struct PeerResponseTests {
    struct Case {
        let method: String
        let version: String
        let request: String
        let statuses: [Int]
    }

    static let cases: [Case] = [
        Case(method: "GET", version: "1.1", request: "GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n", statuses: [200]),
        Case(method: "HEAD", version: "1.1", request: "HEAD /healthz HTTP/1.1\r\nHost: t\r\n\r\n", statuses: [200]),
        Case(method: "GET", version: "1.1", request: "GET /nope HTTP/1.1\r\nHost: t\r\n\r\n", statuses: [404]),
        Case(method: "DELETE", version: "1.1", request: "DELETE /healthz HTTP/1.1\r\nHost: t\r\n\r\n", statuses: [405]),
        Case(method: "OPTIONS", version: "1.1", request: "OPTIONS * HTTP/1.1\r\nHost: t\r\n\r\n", statuses: [204]),
        Case(method: "POST", version: "1.1", request: "POST /v1/echo HTTP/1.1\r\nHost: t\r\nContent-Length: 2\r\n\r\n{}", statuses: [200]),
        Case(method: "GET", version: "1.0", request: "GET /healthz HTTP/1.0\r\n\r\n", statuses: [200]),
        Case(method: "GET", version: "1.0", request: "GET /healthz HTTP/1.0\r\nConnection: keep-alive\r\n\r\n", statuses: [200]),
        Case(method: "GET", version: "1.1", request: "GET  / HTTP/1.1\r\nHost: t\r\n\r\n", statuses: [400]),
        Case(method: "GET", version: "1.1", request: "GET /" + String(repeating: "a", count: 9000) + " HTTP/1.1\r\nHost: t\r\n\r\n",
             statuses: [414]),
        Case(method: "GET", version: "1.1", request: "GET / HTTP/1.1\r\nHost: t\r\n" + (0..<150).map { "X-\($0): v\r\n" }.joined() + "\r\n",
             statuses: [431]),
        Case(method: "POST", version: "1.1", request: "POST /v1/echo HTTP/1.1\r\nHost: t\r\nContent-Length: 99999999\r\n\r\n",
             statuses: [413]),
        Case(method: "POST", version: "1.1", request: "POST /v1/echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: gzip\r\n\r\n",
             statuses: [501]),
        Case(method: "GET", version: "1.1", request: "GET / HTTP/2.0\r\nHost: t\r\n\r\n", statuses: [505]),
        Case(method: "POST", version: "1.1", request: "POST /v1/echo HTTP/1.1\r\nHost: t\r\nContent-Length: 2\r\nExpect: nope\r\n\r\n",
             statuses: [417]),
    ]

    @Test func h11AcceptsEveryResponse() throws {
        var captured: [[String: String]] = []
        var expected: [(statuses: [Int], body: Int)] = []
        try withTestServer { _, port in
            for testCase in Self.cases {
                let client = try RawClient(port: port)
                client.send(testCase.request)
                let response = try client.readResponse(bodyless: testCase.method == "HEAD")
                captured.append(["method": testCase.method, "version": testCase.version,
                                 "raw": Data(response.raw).base64EncodedString()])
                expected.append((testCase.statuses, testCase.method == "HEAD" ? 0 : response.body.count))
                #expect([response.status] == testCase.statuses)
            }
            // and the interim + final pair of a 100-continue exchange
            let client = try RawClient(port: port)
            client.send("POST /v1/echo HTTP/1.1\r\nHost: t\r\nContent-Length: 2\r\nExpect: 100-continue\r\n\r\n")
            let interim = try client.readResponse()
            client.send("{}")
            let final = try client.readResponse()
            captured.append(["method": "POST", "version": "1.1", "raw": Data(interim.raw + final.raw).base64EncodedString()])
            expected.append(([100, 200], 2))
        }
        let input = try JSONSerialization.data(withJSONObject: captured)
        let output = try PeerPython.run(script: "h11_check_responses.py", input: input)
        let results = try #require(try JSONSerialization.jsonObject(with: output) as? [[String: Any]])
        #expect(results.count == expected.count)
        for (result, want) in zip(results, expected) {
            #expect(result["statuses"] as? [Int] == want.statuses)
            #expect(result["body"] as? Int == want.body)
            let names = (result["headers"] as? [[String]] ?? []).map { $0[0].lowercased() }
            #expect(names.filter { $0 == "date" }.count == 1)
        }
    }
}
