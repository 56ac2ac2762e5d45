/// A final response from a responder.
///
/// The server owns framing: it adds `Date`, `Content-Length` (never on 204 or 304) and, when it
/// closes or the client is HTTP/1.0 with keep-alive, `Connection`. Those four names, and
/// `Transfer-Encoding`, are ignored if the responder sets them — except that
/// `Connection: close` makes the server close the connection after this response.
/// Body bytes are dropped for HEAD requests and 204/304 statuses.
public struct HTTPResponse: Sendable {
    /// The status code, 200…599 (anything else is replaced by a 500).
    public var status: Int
    /// Header fields to send; names must be tokens and values must not contain CR, LF or NUL,
    /// else the server sends a 500 instead (that would be response splitting).
    public var headers: HTTPHeaders
    /// The body octets.
    public var body: [UInt8]

    /// A response from its parts.
    public init(status: Int, headers: HTTPHeaders = [:], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A response with a UTF-8 body and the given content type.
    public init(status: Int, contentType: String, body: String, headers: HTTPHeaders = [:]) {
        var headers = headers
        headers.replaceOrAdd(name: "Content-Type", value: contentType)
        self.init(status: status, headers: headers, body: Array(body.utf8))
    }

    /// A short plain-text answer (`message` and a newline): what the server and the router send
    /// for their own refusals when the responder renders none of its own
    /// (``HTTPResponder/answer(status:message:headers:)``).
    public static func plain(status: Int, message: String, headers: HTTPHeaders = [:]) -> HTTPResponse {
        var headers = headers
        headers.replaceOrAdd(name: "Content-Type", value: "text/plain; charset=utf-8")
        return HTTPResponse(status: status, headers: headers, body: Array((message + "\n").utf8))
    }
}

extension HTTPResponse: Equatable {}
