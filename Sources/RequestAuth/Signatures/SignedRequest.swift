/// The received request as authentication sees it, independent of any HTTP server type.
///
/// Values are as they arrived: `path` keeps its percent-encoding, `authority` is the `Host`
/// field value (normalised only when a component is derived from it).
public struct SignedRequest: Sendable {
    /// The method as sent, e.g. `POST` (compared case-sensitively).
    public var method: String
    /// The absolute path of the request-target without the query, e.g. `/rpc`; empty means `/`.
    public var path: String
    /// The query without its leading `?`; nil when the request-target has no `?` at all.
    public var query: String?
    /// The `Host` field value, e.g. `example.com` or `127.0.0.1:8080`.
    public var authority: String
    /// `http` or `https`, as the server was reached.
    public var scheme: String
    /// Every header field line in message order; names in any case.
    public var headers: [(name: String, value: String)]
    /// The content as received (after content-coding, before transfer-coding).
    public var body: [UInt8]

    /// A received request; `query` nil means no `?` in the target.
    public init(method: String, path: String, query: String? = nil, authority: String, scheme: String = "http",
                headers: [(name: String, value: String)], body: [UInt8]) {
        self.method = method
        self.path = path
        self.query = query
        self.authority = authority
        self.scheme = scheme
        self.headers = headers
        self.body = body
    }

    /// The values of every line of the field `name` (case-insensitive), in message order.
    public func fieldLines(_ name: String) -> [String] {
        // Compared in place: lowercasing copies of every name on every lookup cost about a
        // tenth of a signed request's verification (issue 17's profile).
        var lines: [String] = []
        for field in headers where asciiEqualIgnoringCase(field.name, name) { lines.append(field.value) }
        return lines
    }

    /// The combined field value per RFC 9110 §5.3 (lines trimmed, joined by `", "`); nil when absent.
    public func combinedField(_ name: String) -> String? {
        // A field on one line, the usual case, is its own combined value: no array, no join.
        var first: String?
        for field in headers where asciiEqualIgnoringCase(field.name, name) {
            guard first == nil else { return fieldLines(name).map(trimOWS).joined(separator: ", ") }
            first = field.value
        }
        return first.map(trimOWS)
    }
}

/// Whether `a` and `b` are equal with A–Z folded to a–z (field names are ASCII tokens).
func asciiEqualIgnoringCase(_ a: String, _ b: String) -> Bool {
    var a = a, b = b
    return a.withUTF8 { x in
        b.withUTF8 { y in
            guard x.count == y.count else { return false }
            for i in 0..<x.count where x[i] != y[i] {
                let p = x[i], q = y[i]
                guard p | 0x20 == q | 0x20, p | 0x20 >= 0x61, p | 0x20 <= 0x7A else { return false }
            }
            return true
        }
    }
}

/// Lowercases A–Z only: field names and hosts are ASCII, and locale rules must not apply.
func asciiLowercased(_ s: String) -> String {
    guard s.utf8.contains(where: { $0 >= 0x41 && $0 <= 0x5A }) else { return s }
    return String(decoding: s.utf8.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }, as: UTF8.self)
}

/// Strips leading and trailing optional whitespace (SP / HTAB, RFC 9110 §5.6.3).
func trimOWS(_ s: String) -> String {
    var text = s
    // Read in place, and a value with nothing to trim is returned as it is (no copy).
    let trimmed = text.withUTF8 { b -> String? in
        var lo = 0, hi = b.count
        while lo < hi, b[lo] == 0x20 || b[lo] == 0x09 { lo += 1 }
        while hi > lo, b[hi - 1] == 0x20 || b[hi - 1] == 0x09 { hi -= 1 }
        return lo == 0 && hi == b.count ? nil : String(decoding: UnsafeBufferPointer(rebasing: b[lo..<hi]), as: UTF8.self)
    }
    return trimmed ?? s
}
