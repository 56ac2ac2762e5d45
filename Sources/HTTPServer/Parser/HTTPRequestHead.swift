/// How the body of a request is delimited (RFC 9112 §6.3). Requests are never close-delimited.
package enum HTTPBodyFraming: Equatable, Sendable {
    /// No Content-Length and no Transfer-Encoding: the body is empty.
    case none
    /// Exactly this many octets follow the head.
    case contentLength(Int)
    /// `Transfer-Encoding: chunked`.
    case chunked
}

/// A request head that passed every framing rule, plus what the connection needs to know.
package struct HTTPRequestHead: Equatable, Sendable {
    package var method: String
    package var target: String
    package var path: String
    package var query: String?
    package var version: HTTPVersion
    package var headers: HTTPHeaders
    /// Whether the client allows the connection to persist after the response
    /// (HTTP/1.1 unless `Connection: close`; HTTP/1.0 only with `Connection: keep-alive`).
    package var keepAlive: Bool
    /// `Expect: 100-continue` on an HTTP/1.1 request that has a body (ignored in HTTP/1.0).
    package var expectsContinue: Bool
    package var framing: HTTPBodyFraming
}

extension HTTPRequestHead {
    /// Applies the rules that need the whole field section, while turning offsets into strings.
    ///
    /// Why so strict about Content-Length and Transfer-Encoding: a request is only safe if
    /// every parser on its path (load balancer, CDN, this server) agrees where it ends. Each
    /// leniency RFC 9112 permits — merging identical Content-Length lines, preferring
    /// Transfer-Encoding over Content-Length, guessing at unknown codings, reading a body
    /// "until close" — is a place where two implementations may choose differently, and a
    /// request that one sees as a body and another as the next request is request smuggling.
    /// So any message that is not unambiguous under the strictest reading is refused and its
    /// connection closed: several Content-Length lines even when equal (SwiftNIO/llhttp refuse
    /// them too), Content-Length with Transfer-Encoding, Transfer-Encoding in HTTP/1.0, and any
    /// coding list that is not exactly `chunked`.
    struct Builder {
        let bytes: UnsafeRawBufferPointer
        let limits: HTTPLimits

        init(bytes: UnsafeRawBufferPointer, limits: HTTPLimits) {
            self.bytes = bytes
            self.limits = limits
        }

        func slice(_ start: Int, _ end: Int) -> UnsafeRawBufferPointer {
            UnsafeRawBufferPointer(rebasing: bytes[start..<end])
        }

        func ascii(_ range: Range<Int>) -> String {
            String(decoding: slice(range.lowerBound, range.upperBound), as: UTF8.self)
        }

        // swiftlint:disable:next cyclomatic_complexity function_body_length
        mutating func build(methodRange: Range<Int>, targetRange: Range<Int>,
                            targetKind: HTTPRequestParser.TargetKind, version: HTTPVersion,
                            fields: [FieldMarks]) -> Result<HTTPRequestHead, HTTPParserError> {
            var headers = HTTPHeaders(reservingCapacity: fields.count)
            var hostCount = 0
            var hostValue: UnsafeRawBufferPointer?
            var contentLengthCount = 0
            var contentLengthValue: UnsafeRawBufferPointer?
            var codings = TransferCodings()
            var expectContinue = false
            var expectOther = false
            var connectionClose = false
            var connectionKeepAlive = false

            for field in fields {
                let name = slice(Int(field.nameStart), Int(field.nameEnd))
                let value = slice(Int(field.valueStart), Int(field.valueEnd))
                let valueString = field.hasObsText
                    ? String(String.UnicodeScalarView(value.map { Unicode.Scalar($0) }))
                    : String(decoding: value, as: UTF8.self)
                headers.add(name: String(decoding: name, as: UTF8.self), value: valueString)

                switch name.count {
                case 4 where HTTPGrammar.equalsIgnoringCase(name, "host"):
                    hostCount += 1
                    hostValue = value
                case 14 where HTTPGrammar.equalsIgnoringCase(name, "content-length"):
                    contentLengthCount += 1
                    contentLengthValue = value
                case 17 where HTTPGrammar.equalsIgnoringCase(name, "transfer-encoding"):
                    codings.add(value)
                case 6 where HTTPGrammar.equalsIgnoringCase(name, "expect"):
                    forEachListElement(value) { element in
                        if HTTPGrammar.equalsIgnoringCase(element, "100-continue") {
                            expectContinue = true
                        } else {
                            expectOther = true
                        }
                    }
                case 10 where HTTPGrammar.equalsIgnoringCase(name, "connection"):
                    forEachListElement(value) { element in
                        if HTTPGrammar.equalsIgnoringCase(element, "close") { connectionClose = true }
                        if HTTPGrammar.equalsIgnoringCase(element, "keep-alive") { connectionKeepAlive = true }
                    }
                default:
                    break
                }
            }

            // Host (RFC 9112 §3.2: MUST 400 when missing in 1.1, repeated, or invalid).
            if hostCount > 1 { return .failure(.duplicateHost) }
            if hostCount == 0 && version.hasHTTP11Semantics { return .failure(.missingHost) }
            if let hostValue, !HTTPGrammar.isValidHost(hostValue) { return .failure(.invalidHost) }

            // Body framing (RFC 9112 §6.1–6.3), strictest reading.
            var framing = HTTPBodyFraming.none
            if codings.present {
                if !version.hasHTTP11Semantics { return .failure(.transferEncodingInHTTP10) }
                if contentLengthCount > 0 { return .failure(.contentLengthWithTransferEncoding) }
                if let error = codings.error { return .failure(error) }
                framing = .chunked
            } else if let contentLengthValue {
                if contentLengthCount > 1 { return .failure(.duplicateContentLength) }
                switch parseContentLength(contentLengthValue) {
                case .failure(let error): return .failure(error)
                case .success(let length): framing = length > 0 ? .contentLength(length) : .none
                }
            }

            if expectOther { return .failure(.unsupportedExpectation) }

            let target = ascii(targetRange)
            var path: String
            var query: String?
            switch targetKind {
            case .asterisk:
                path = "*"
            case .origin:
                if containsBracket(targetRange) { return .failure(.invalidTarget) }
                (path, query) = splitPathAndQuery(targetRange)
            case .absolute:
                guard let (pathRange, queryRange) = absoluteFormPathAndQuery(targetRange) else {
                    return .failure(.invalidTarget)
                }
                path = pathRange.isEmpty ? "/" : ascii(pathRange)
                query = queryRange.map { ascii($0) }
            }

            let hasBody = framing != .none
            return .success(HTTPRequestHead(
                method: ascii(methodRange), target: target, path: path, query: query,
                version: version, headers: headers,
                keepAlive: version.hasHTTP11Semantics ? !connectionClose : (connectionKeepAlive && !connectionClose),
                expectsContinue: expectContinue && hasBody && version.hasHTTP11Semantics,
                framing: framing))
        }

        /// `Content-Length = 1*DIGIT`: no sign, no whitespace inside, no list, no hex; leading zeros
        /// are decimal. A value that does not fit 63 bits is invalid; one over the limit is 413.
        func parseContentLength(_ value: UnsafeRawBufferPointer) -> Result<Int, HTTPParserError> {
            guard !value.isEmpty else { return .failure(.invalidContentLength) }
            var length = 0
            var overflow = false
            for byte in value {
                if byte == UInt8(ascii: ",") { return .failure(.duplicateContentLength) }
                guard HTTPGrammar.isDigit(byte) else { return .failure(.invalidContentLength) }
                let (times10, o1) = length.multipliedReportingOverflow(by: 10)
                let (sum, o2) = times10.addingReportingOverflow(Int(byte - 0x30))
                if o1 || o2 { overflow = true }
                length = sum
            }
            if overflow { return .failure(.invalidContentLength) }
            if length > limits.maxBodySize { return .failure(.bodyTooLarge) }
            return .success(length)
        }

        /// `[` and `]` are gen-delims: allowed only around an IP-literal host (RFC 3986 §3.2.2).
        func containsBracket(_ range: Range<Int>) -> Bool {
            range.contains { bytes[$0] == UInt8(ascii: "[") || bytes[$0] == UInt8(ascii: "]") }
        }

        func splitPathAndQuery(_ range: Range<Int>) -> (String, String?) {
            for i in range where bytes[i] == UInt8(ascii: "?") {
                return (ascii(range.lowerBound..<i), ascii((i + 1)..<range.upperBound))
            }
            return (ascii(range), nil)
        }

        /// `absolute-form = absolute-URI` with scheme http or https and an authority without
        /// userinfo (RFC 9110 §4.2.4: a recipient treats userinfo as an error).
        func absoluteFormPathAndQuery(_ range: Range<Int>) -> (Range<Int>, Range<Int>?)? {
            var i = range.lowerBound
            while i < range.upperBound, bytes[i] != UInt8(ascii: ":") { i += 1 }
            let scheme = slice(range.lowerBound, i)
            guard HTTPGrammar.equalsIgnoringCase(scheme, "http") || HTTPGrammar.equalsIgnoringCase(scheme, "https")
            else { return nil }
            guard range.upperBound - i >= 3, bytes[i + 1] == UInt8(ascii: "/"), bytes[i + 2] == UInt8(ascii: "/")
            else { return nil }
            let authorityStart = i + 3
            var j = authorityStart
            while j < range.upperBound, bytes[j] != UInt8(ascii: "/"), bytes[j] != UInt8(ascii: "?") { j += 1 }
            let authority = slice(authorityStart, j)
            guard !authority.isEmpty, !authority.contains(UInt8(ascii: "@")), HTTPGrammar.isValidHost(authority)
            else { return nil }
            guard !containsBracket(j..<range.upperBound) else { return nil }
            var k = j
            while k < range.upperBound, bytes[k] != UInt8(ascii: "?") { k += 1 }
            return (j..<k, k < range.upperBound ? (k + 1)..<range.upperBound : nil)
        }
    }
}

/// Calls `body` with each non-empty element of a comma-separated list, OWS trimmed
/// (RFC 9110 §5.6.1: empty elements are ignored).
func forEachListElement(_ value: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer) -> Void) {
    var start = 0
    let count = value.count
    while start <= count {
        var end = start
        while end < count, value[end] != UInt8(ascii: ",") { end += 1 }
        var lo = start, hi = end
        while lo < hi, value[lo] == 0x20 || value[lo] == 0x09 { lo += 1 }
        while hi > lo, value[hi - 1] == 0x20 || value[hi - 1] == 0x09 { hi -= 1 }
        if hi > lo { body(UnsafeRawBufferPointer(rebasing: value[lo..<hi])) }
        start = end + 1
    }
}

/// The transfer codings of all Transfer-Encoding lines combined, judged as a whole.
struct TransferCodings {
    private(set) var present = false
    private var elements = 0
    private var chunkedCount = 0
    private var lastIsChunked = false
    private var unknown = false
    private var malformed = false

    mutating func add(_ value: UnsafeRawBufferPointer) {
        present = true
        forEachListElement(value) { element in
            elements += 1
            // transfer-coding = token *( OWS ";" OWS transfer-parameter )
            var nameEnd = 0
            while nameEnd < element.count, HTTPGrammar.isTokenChar(element[nameEnd]) { nameEnd += 1 }
            let name = UnsafeRawBufferPointer(rebasing: element[0..<nameEnd])
            if nameEnd == 0 {
                malformed = true
            } else if nameEnd < element.count {
                // parameters or stray bytes after the name: only `;` may follow (after OWS)
                var k = nameEnd
                while k < element.count, element[k] == 0x20 || element[k] == 0x09 { k += 1 }
                if k == element.count || element[k] != UInt8(ascii: ";") { malformed = true }
                unknown = true  // no coding we implement takes parameters
                lastIsChunked = false
                return
            }
            let isChunked = HTTPGrammar.equalsIgnoringCase(name, "chunked")
            if isChunked { chunkedCount += 1 } else { unknown = true }
            lastIsChunked = isChunked
        }
    }

    /// nil when the codings are exactly `chunked`; otherwise why not.
    var error: HTTPParserError? {
        if malformed || elements == 0 { return .invalidTransferEncoding }
        if chunkedCount > 1 || (chunkedCount == 1 && !lastIsChunked) { return .invalidTransferEncoding }
        if unknown { return .unsupportedTransferCoding }
        return nil
    }
}
