/// A complete request as the server hands it to a responder: the head and the whole body.
///
/// The server reads the entire body (at most `HTTPLimits.maxBodySize` bytes, de-chunked) before
/// dispatching, so a responder never sees a partial body and never has to drain one.
public struct HTTPRequest: Sendable {
    /// The method token, case-sensitive as sent (`GET`, `POST`, …).
    public var method: String
    /// The request-target exactly as sent (origin-form, absolute-form or `*`).
    public var target: String
    /// The path of the target, not percent-decoded (`/rpc`); `*` for an asterisk-form target.
    public var path: String
    /// The query of the target without the `?`, not decoded; nil when there is no `?`.
    public var query: String?
    /// The request's protocol version.
    public var version: HTTPVersion
    /// The header fields as received (trailer fields of a chunked body are not included).
    public var headers: HTTPHeaders
    /// The body octets (empty when the request has none).
    public var body: [UInt8]
    /// The peer as per-address limits count it, without the port: its IPv4 address
    /// (`127.0.0.1`), or its IPv6 /64 (`2001:db8:1:2::/64`, `::/64` for `::1`). Never logged.
    public var remoteAddress: String

    /// A request from its parts (the server builds these; tests and in-process callers may too).
    public init(method: String, target: String, path: String? = nil, query: String? = nil,
                version: HTTPVersion = .http1_1, headers: HTTPHeaders = [:], body: [UInt8] = [],
                remoteAddress: String = "") {
        self.method = method
        self.target = target
        if let path {
            self.path = path
            self.query = query
        } else {
            let parts = Self.pathAndQuery(ofTarget: target)
            self.path = parts.path
            self.query = parts.query ?? query
        }
        self.version = version
        self.headers = headers
        self.body = body
        self.remoteAddress = remoteAddress
    }
}

extension HTTPRequest: Equatable {}

extension HTTPRequest {
    /// The path and query of a request-target as sent: an origin-form one split at its `?`, an
    /// absolute-form one (`http://host/rpc?x`) without its scheme and authority (`/` when it
    /// names none), `*` as itself.
    public static func pathAndQuery(ofTarget target: String) -> (path: String, query: String?) {
        var rest = Substring(target)
        if let first = rest.first, first != "/", first != "*", let separator = rest.range(of: "://") {
            rest = rest[separator.upperBound...]
            rest = rest[(rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex)...]
        }
        guard let mark = rest.firstIndex(of: "?") else { return (rest.isEmpty ? "/" : String(rest), nil) }
        let path = rest[..<mark]
        return (path.isEmpty ? "/" : String(path), String(rest[rest.index(after: mark)...]))
    }
}

extension HTTPRequest {
    /// The target URI's authority (RFC 9112 §3.3): the authority of an absolute-form target,
    /// which wins over `Host`, else the `Host` value (empty when there is none).
    public var authority: String {
        if let (_, authority) = absoluteFormParts { return authority }
        return headers.first("Host") ?? ""
    }

    /// The target URI's scheme: that of an absolute-form target, else `http` (this server has no TLS).
    public var scheme: String {
        absoluteFormParts?.scheme ?? "http"
    }

    /// Scheme and authority of an absolute-form target (the parser accepted only `http` and
    /// `https` ones, with a valid authority).
    private var absoluteFormParts: (scheme: String, authority: String)? {
        guard let first = target.utf8.first, first != UInt8(ascii: "/"), first != UInt8(ascii: "*"),
              let separator = target.range(of: "://") else { return nil }
        let rest = target[separator.upperBound...]
        let end = rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex
        return (target[..<separator.lowerBound].lowercased(), String(rest[..<end]))
    }
}
