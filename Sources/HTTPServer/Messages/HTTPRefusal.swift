/// A request the server refused itself, before any responder saw it: a framing error (400), a
/// limit (413, 414, 431), a deadline (408) or an unsupported version (505). The responder
/// chooses the answer's body and headers (``HTTPResponder/refused(_:)``); the server keeps the
/// status and closes the connection after it.
public struct HTTPRefusal: Sendable, Equatable {
    /// The status the server answers with.
    public let status: Int
    /// What was wrong, for the answer's message (never the client's bytes).
    public let message: String
    /// The method, when the request-line was read in full.
    public let method: String?
    /// The request-target as sent, when the request-line was read in full.
    public let target: String?
    /// Seconds the server asks the client to wait (`Retry-After`), for a refusal it may retry.
    public let retryAfter: Int?

    public init(status: Int, message: String, method: String? = nil, target: String? = nil, retryAfter: Int? = nil) {
        self.status = status
        self.message = message
        self.method = method
        self.target = target
        self.retryAfter = retryAfter
    }

    /// The target's path (without the query), when the target is known; that of an
    /// absolute-form target too (`http://host/rpc` is `/rpc`), as ``HTTPRequest/path`` is.
    public var path: String? {
        target.map { HTTPRequest.pathAndQuery(ofTarget: $0).path }
    }

    /// The answer of a responder that renders none of its own: ``HTTPResponse/plain(status:message:headers:)``.
    public var defaultResponse: HTTPResponse { .plain(status: status, message: message) }
}
