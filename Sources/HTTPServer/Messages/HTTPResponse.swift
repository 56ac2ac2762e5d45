import JSON

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

    /// The small JSON error document the server and the router use for the refusals they make
    /// themselves: `{"error":"<slug>","status":<code>,"message":"<text>"}`.
    public static func error(status: Int, message: String, headers: HTTPHeaders = [:]) -> HTTPResponse {
        var headers = headers
        headers.replaceOrAdd(name: "Content-Type", value: "application/json")
        return HTTPResponse(status: status, headers: headers,
                            body: HTTPErrorBody.json(status: status, message: message))
    }
}

/// The server's own error bodies.
enum HTTPErrorBody {
    static func json(status: Int, message: String) -> [UInt8] {
        let body: JSONValue = ["error": .string(slug(for: status)), "status": .number(JSONNumber(status)), "message": .string(message)]
        return body.serialized()
    }

    static func slug(for status: Int) -> String {
        switch status {
        case 400: "bad_request"
        case 404: "not_found"
        case 405: "method_not_allowed"
        case 408: "request_timeout"
        case 413: "content_too_large"
        case 414: "uri_too_long"
        case 417: "expectation_failed"
        case 431: "request_header_fields_too_large"
        case 500: "internal"
        case 501: "not_implemented"
        case 503: "unavailable"
        case 505: "http_version_not_supported"
        default: "error"
        }
    }
}

extension HTTPResponse: Equatable {}
