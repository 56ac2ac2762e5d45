/// Routes by exact path and method.
///
/// Unknown path → 404; known path, other method → 405 with `Allow`; `HEAD` is served by the GET
/// route (the server drops the body); `OPTIONS *` → 204 with `Allow` listing every method routed.
/// Paths are compared exactly as received (no percent-decoding, no trailing-slash folding).
public struct Router: HTTPResponder {
    /// An asynchronous handler: call `respond` exactly once, from any thread.
    public typealias Handler = @Sendable (HTTPRequest, @escaping @Sendable (HTTPResponse) -> Void) -> Void

    /// Renders the router's own answers (404, 405 with `Allow`): status, message, headers.
    public typealias Answers = @Sendable (Int, String, HTTPHeaders) -> HTTPResponse

    private var routes: [String: [String: Handler]] = [:]
    private let answers: Answers

    /// An empty router (every request is 404), whose own answers `answers` renders (plain text
    /// by default).
    public init(answers: @escaping Answers = { HTTPResponse.plain(status: $0, message: $1, headers: $2) }) {
        self.answers = answers
    }

    /// Routes `method` on `path` to `handler`, replacing any previous route for the pair.
    public mutating func add(_ method: String, _ path: String, handler: @escaping Handler) {
        routes[path, default: [:]][method] = handler
    }

    /// Routes `method` on `path` to another responder.
    public mutating func add(_ method: String, _ path: String, responder: any HTTPResponder) {
        add(method, path) { request, respond in responder.handle(request, respond: respond) }
    }

    /// Routes GET (and so HEAD) on `path` to a handler answering inline.
    public mutating func get(_ path: String, _ handler: @escaping @Sendable (HTTPRequest) -> HTTPResponse) {
        add("GET", path) { request, respond in respond(handler(request)) }
    }

    /// Routes POST on `path` to a handler answering inline.
    public mutating func post(_ path: String, _ handler: @escaping @Sendable (HTTPRequest) -> HTTPResponse) {
        add("POST", path) { request, respond in respond(handler(request)) }
    }

    /// Every routed path with the methods routed on it, as added (HEAD only where added itself).
    public var routeTable: [String: [String]] { routes.mapValues { $0.keys.sorted() } }

    /// The methods routed on `path`, as sent in `Allow` (HEAD included wherever GET is).
    public func allowedMethods(for path: String) -> [String] {
        guard let methods = routes[path] else { return [] }
        var allowed = Set(methods.keys)
        if allowed.contains("GET") { allowed.insert("HEAD") }
        return allowed.sorted()
    }

    /// Whether a route serves `method` on `path` (HEAD wherever GET is): what
    /// ``allowedMethods(for:)`` lists, without building the list.
    public func routes(_ method: String, on path: String) -> Bool {
        guard let methods = routes[path] else { return false }
        return methods[method] != nil || (method == "HEAD" && methods["GET"] != nil)
    }

    /// Before `100 Continue`: 404 for a path no route serves, 405 for a method it does not.
    public func checkHead(_ head: HTTPRequest) -> HTTPResponse? {
        if head.method == "OPTIONS" && head.target == "*" { return nil }
        guard let methods = routes[head.path] else { return answers(404, "no such path", [:]) }
        if methods[head.method] != nil || (head.method == "HEAD" && methods["GET"] != nil) { return nil }
        return answers(405, "method not allowed", ["Allow": allowedMethods(for: head.path).joined(separator: ", ")])
    }

    public func handle(_ request: HTTPRequest, respond: @escaping @Sendable (HTTPResponse) -> Void) {
        if request.method == "OPTIONS" && request.target == "*" {
            var allowed = Set(routes.values.flatMap(\.keys))
            if allowed.contains("GET") { allowed.insert("HEAD") }
            allowed.insert("OPTIONS")
            respond(HTTPResponse(status: 204, headers: ["Allow": allowed.sorted().joined(separator: ", ")]))
            return
        }
        guard let methods = routes[request.path] else {
            respond(answers(404, "no such path", [:]))
            return
        }
        if let handler = methods[request.method] ?? (request.method == "HEAD" ? methods["GET"] : nil) {
            handler(request, respond)
            return
        }
        respond(answers(405, "method not allowed", ["Allow": allowedMethods(for: request.path).joined(separator: ", ")]))
    }
}
