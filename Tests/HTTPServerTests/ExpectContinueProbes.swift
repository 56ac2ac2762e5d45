import Foundation
import HTTPServer
import Testing

/// G. Expect: 100-continue against a real server (RFC 9110 §10.1.1).
@Suite(.timeLimit(.minutes(5))) struct ExpectContinueProbes {
    static let head = "POST /v1/echo HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\nContent-Length: 2\r\nExpect: 100-continue\r\n\r\n"

    /// G01: interim 100, then the body, then exactly one final response; the connection stays open.
    @Test func continueThenFinal() throws {
        try withTestServer { _, port in
            let client = try RawClient(port: port)
            client.send(Self.head)
            let interim = try client.readResponse()
            #expect(interim.status == 100)
            #expect(interim.raw == Array("HTTP/1.1 100 Continue\r\n\r\n".utf8))
            client.send("{}")
            let final = try client.readResponse()
            #expect(final.status == 200)
            #expect(final.body == Array("{}".utf8))
            expectHygiene([final], closed: false)
            client.send("GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n")
            #expect(try client.readResponse().status == 200)
        }
    }

    /// G02: a client that does not wait; a 100 is optional, one final response is not.
    @Test func bodyWithoutWaiting() throws {
        try withTestServer { _, port in
            let client = try RawClient(port: port)
            client.send(Self.head + "{}")
            var response = try client.readResponse()
            if response.status == 100 { response = try client.readResponse() }
            #expect(response.status == 200)
            #expect(response.body == Array("{}".utf8))
            client.send("GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n")
            #expect(try client.readResponse().status == 200)
        }
    }

    /// G03: refused from the head: final status without 100, then close.
    @Test func tooLargeGetsNoContinue() throws {
        try withTestServer { _, port in
            let client = try RawClient(port: port)
            client.send("POST /v1/echo HTTP/1.1\r\nHost: t\r\nContent-Length: 104857600\r\nExpect: 100-continue\r\n\r\n")
            let response = try client.readResponse()
            #expect(response.status == 413)
            #expect(client.closesWithoutMoreData())
            expectHygiene([response], closed: true)
        }
    }

    @Test(arguments: ["Expect: foo\r\n", "Expect: 100-continue, bar\r\n"])
    func otherExpectationsAre417(field: String) throws {
        try withTestServer { _, port in
            let client = try RawClient(port: port)
            client.send("POST /v1/echo HTTP/1.1\r\nHost: t\r\nContent-Length: 2\r\n\(field)\r\n")
            let response = try client.readResponse()
            #expect(response.status == 417)
            #expect(client.closesWithoutMoreData())
            expectHygiene([response], closed: true)
            expectServerStillServes(port: port)
        }
    }

    /// HTTP/1.0 clients never get a 1xx: the server just waits for the body.
    @Test func noContinueToHTTP10() throws {
        try withTestServer { _, port in
            let client = try RawClient(port: port, receiveTimeout: .milliseconds(400))
            client.send("POST /v1/echo HTTP/1.0\r\nContent-Length: 2\r\nExpect: 100-continue\r\n\r\n")
            #expect(throws: RawClient.ClientError.self) { try client.readResponse() }   // nothing within 400 ms
            client.setReceiveTimeout(.seconds(5))
            client.send("{}")
            let response = try client.readResponse()
            #expect(response.status == 200)
            expectHygiene([response], closed: true, http10: true)
            #expect(client.closesWithoutMoreData())
        }
    }

    @Test func noContinueWithoutBody() throws {
        try withTestServer { _, port in
            let client = try RawClient(port: port)
            client.send("POST /v1/echo HTTP/1.1\r\nHost: t\r\nContent-Length: 0\r\nExpect: 100-continue\r\n\r\n")
            #expect(try client.readResponse().status == 200)
        }
    }

    @Test func continueForChunkedBodies() throws {
        try withTestServer { _, port in
            let client = try RawClient(port: port)
            client.send("POST /v1/echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\nExpect: 100-continue\r\n\r\n")
            #expect(try client.readResponse().status == 100)
            client.send("2\r\n{}\r\n0\r\n\r\n")
            let response = try client.readResponse()
            #expect(response.status == 200)
            #expect(response.body == Array("{}".utf8))
        }
    }
}
