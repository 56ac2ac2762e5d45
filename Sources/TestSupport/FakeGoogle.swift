import Foundation
import HTTPServer
import Locking

/// A fake Google on 127.0.0.1 over real HTTP: the OAuth token endpoint (`POST /token`),
/// androidpublisher (`/androidpublisher/v3/applications/{package}/…`) and whatever else a test
/// scripts (the push keys' JWKS, `GET /oauth2/v3/certs`), answering from scripts.
/// Each route answers its scripted answers in turn and repeats the last one.
public final class FakeGoogle: HTTPResponder, Sendable {
    public struct Answer: Sendable {
        public var status: Int
        public var body: [UInt8]
        /// Seconds before answering (a slow Google).
        public var delay: Double = 0
        /// Header fields besides `Content-Type` (the JWKS route's `Cache-Control`).
        public var headers: [String: String] = [:]

        public init(status: Int, body: [UInt8], delay: Double = 0, headers: [String: String] = [:]) {
            self.status = status
            self.body = body
            self.delay = delay
            self.headers = headers
        }

        public static func json(_ status: Int, _ text: String, delay: Double = 0, headers: [String: String] = [:]) -> Answer {
            Answer(status: status, body: Array(text.utf8), delay: delay, headers: headers)
        }
        public static func googleError(_ status: Int, _ reason: String) -> Answer {
            .json(status, #"{"error":{"code":\#(status),"message":"\#(reason)","errors":[{"reason":"\#(reason)"}]}}"#)
        }
    }

    public struct Received: Sendable {
        public var method: String
        /// Path after `/androidpublisher/v3/applications/{package}/`, or `/token`.
        public var route: String
        public var authorization: String?
        public var body: [UInt8]
    }

    private struct State {
        var scripts: [String: [Answer]] = [:]
        public var received: [Received] = []
        var tokensIssued = 0
    }
    private let state = LockedValueBox(State())
    public let package: String

    public init(package: String = "chat.simplex.app") { self.package = package }

    /// Scripts the answers of `method route` (route as in ``Received/route``).
    public func script(_ method: String, _ route: String, _ answers: Answer...) {
        state.withLock { $0.scripts["\(method) \(route)"] = answers }
    }

    public var received: [Received] { state.withLock { $0.received } }
    public var apiCalls: [Received] { received.filter { $0.route != "/token" } }
    public var tokenRequests: [Received] { received.filter { $0.route == "/token" } }

    public func handle(_ request: HTTPRequest, respond: @escaping @Sendable (HTTPResponse) -> Void) {
        let prefix = "/androidpublisher/v3/applications/\(package)/"
        let route = request.path.hasPrefix(prefix) ? String(request.path.dropFirst(prefix.count)) : request.path
        let answer: Answer = state.withLock { s in
            s.received.append(Received(method: request.method, route: route, authorization: request.headers.first("Authorization"),
                                       body: request.body))
            let key = "\(request.method) \(route)"
            if var queue = s.scripts[key], let first = queue.first {
                if queue.count > 1 { queue.removeFirst(); s.scripts[key] = queue }
                if route == "/token" && first.status == 200 && first.body.isEmpty { s.tokensIssued += 1; return Self.token(s.tokensIssued) }
                return first
            }
            if route == "/token" { s.tokensIssued += 1; return Self.token(s.tokensIssued) }
            return .googleError(404, "notFound")
        }
        var headers: HTTPHeaders = ["Content-Type": "application/json"]
        for (name, value) in answer.headers { headers.add(name: name, value: value) }
        let response = HTTPResponse(status: answer.status, headers: headers, body: answer.body)
        if answer.delay > 0 {
            DispatchQueue.global().asyncAfter(deadline: .now() + answer.delay) { respond(response) }
        } else {
            respond(response)
        }
    }

    /// A fresh access token `at-N`, valid for an hour.
    public static func token(_ n: Int) -> Answer { .json(200, #"{"access_token":"at-\#(n)","expires_in":3599,"token_type":"Bearer"}"#) }

    /// An answer the token route gives as a fresh token (its number assigned when served).
    public static let freshToken = Answer(status: 200, body: [])

    /// Runs `body` with the fake serving on a free port of 127.0.0.1; stops it afterwards.
    public func serve<T>(_ body: (_ baseURL: String) throws -> T) throws -> T {
        let configuration = HTTPServerConfiguration(host: "127.0.0.1", port: 0,
                                                    timeouts: HTTPTimeouts(shutdownGrace: .seconds(2), timerResolution: .milliseconds(20)), loopCount: 1)
        let server = HTTPServer(configuration: configuration, responder: self)
        let port = try server.start()
        defer {
            server.shutdown()
            server.waitUntilStopped()
        }
        return try body("http://127.0.0.1:\(port)")
    }
}
