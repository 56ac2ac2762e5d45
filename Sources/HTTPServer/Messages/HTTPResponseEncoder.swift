/// Serialises responses. The server owns framing: status line, `Date`, `Content-Length`,
/// `Connection`; responder headers with those names (and `Transfer-Encoding`) are dropped so a
/// responder can never produce a message whose length a client would read differently.
package enum HTTPResponseEncoder {
    /// `HTTP/1.1 100 Continue` plus the empty line.
    package static let continueResponse: [UInt8] = Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)

    /// Encodes `response` to a request with `version`, dropping the body for HEAD, 204 and 304.
    /// Returns the bytes and whether the connection closes after them: `close` as asked, or
    /// because the responder set `Connection: close`. An invalid response (status outside
    /// 200…599, a header name that is not a token, a value with CR/LF/NUL/CTL) is replaced by
    /// the 500 `answers` renders (its status kept 500; a plain-text one without them, or if that
    /// is invalid too).
    package static func encode(_ response: HTTPResponse, isHEAD: Bool, version: HTTPVersion, close: Bool,
                               clock: some HTTPConnectionClock,
                               answers: (@Sendable (Int, String, HTTPHeaders) -> HTTPResponse)? = nil)
        -> (bytes: [UInt8], close: Bool) {
        guard isValid(response) else {
            let message = "invalid response from handler"
            var replacement = answers?(500, message, [:]) ?? .plain(status: 500, message: message)
            replacement.status = 500
            if !isValid(replacement) { replacement = .plain(status: 500, message: "invalid response from handler") }
            return encode(replacement, isHEAD: isHEAD, version: version, close: close, clock: clock)
        }
        var close = close
        let status = response.status
        let bodyAllowed = status != 204 && status != 304
        let sendBody = bodyAllowed && !isHEAD && !response.body.isEmpty

        var out: [UInt8] = []
        var headerBytes = 0
        for field in response.headers { headerBytes += field.name.utf8.count + field.value.utf8.count + 4 }
        out.reserveCapacity(96 + headerBytes + (sendBody ? response.body.count : 0))

        appendLiteral("HTTP/1.1 ", to: &out)
        appendDecimal(status, to: &out)
        out.append(0x20)
        append(reasonPhrase(status), to: &out)
        appendLiteral("\r\nDate: ", to: &out)
        clock.appendDate(to: &out)
        appendLiteral("\r\n", to: &out)
        for field in response.headers {
            switch field.name.utf8.count {
            case 4 where HTTPHeaders.namesEqual(field.name, "date"): continue
            case 10 where HTTPHeaders.namesEqual(field.name, "connection"):
                if hasToken(field.value, "close") { close = true }
                continue
            case 10 where HTTPHeaders.namesEqual(field.name, "keep-alive"): continue
            case 14 where HTTPHeaders.namesEqual(field.name, "content-length"): continue
            case 17 where HTTPHeaders.namesEqual(field.name, "transfer-encoding"): continue
            default: break
            }
            append(field.name, to: &out)
            appendLiteral(": ", to: &out)
            append(field.value, to: &out)
            appendLiteral("\r\n", to: &out)
        }
        if close {
            appendLiteral("Connection: close\r\n", to: &out)
        } else if !version.hasHTTP11Semantics {
            appendLiteral("Connection: keep-alive\r\n", to: &out)
        }
        if bodyAllowed {
            appendLiteral("Content-Length: ", to: &out)
            appendDecimal(response.body.count, to: &out)
            appendLiteral("\r\n", to: &out)
        }
        appendLiteral("\r\n", to: &out)
        if sendBody { out += response.body }
        return (out, close)
    }

    static func isValid(_ response: HTTPResponse) -> Bool {
        guard (200...599).contains(response.status) else { return false }
        for field in response.headers {
            // On the contiguous bytes: the generic `utf8.allSatisfy` cost 4% of a small response.
            var name = field.name, value = field.value
            guard name.withUTF8({ !$0.isEmpty && $0.allSatisfy(HTTPGrammar.isTokenChar) }),
                  value.withUTF8({ $0.allSatisfy(HTTPGrammar.isFieldValueByte) })
            else { return false }
        }
        return true
    }

    // Appends from contiguous bytes: `+= string.utf8` took the generic sequence path, about a
    // tenth of encoding a small response (issue 17's profile).
    @inline(__always)
    static func appendLiteral(_ text: StaticString, to out: inout [UInt8]) {
        out.append(contentsOf: UnsafeRawBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    @inline(__always)
    static func append(_ text: String, to out: inout [UInt8]) {
        var text = text
        text.withUTF8 { out.append(contentsOf: $0) }
    }

    static func hasToken(_ value: String, _ token: StaticString) -> Bool {
        var value = value
        return value.withUTF8 { bytes in
            var found = false
            forEachListElement(UnsafeRawBufferPointer(bytes)) { element in
                if HTTPGrammar.equalsIgnoringCase(element, token) { found = true }
            }
            return found
        }
    }

    static func appendDecimal(_ value: Int, to out: inout [UInt8]) {
        if value < 10 {
            out.append(UInt8(0x30 + value))
            return
        }
        var digits: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                     UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
            (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var count = 0
        var v = value
        withUnsafeMutableBytes(of: &digits) { buffer in
            while v > 0 {
                buffer[count] = UInt8(0x30 + v % 10)
                v /= 10
                count += 1
            }
            for i in stride(from: count - 1, through: 0, by: -1) { out.append(buffer[i]) }
        }
    }

    /// RFC 9110 §15 reason phrases (informational only; clients must ignore them).
    static func reasonPhrase(_ status: Int) -> String {
        switch status {
        case 200: "OK"
        case 201: "Created"
        case 202: "Accepted"
        case 204: "No Content"
        case 301: "Moved Permanently"
        case 302: "Found"
        case 303: "See Other"
        case 304: "Not Modified"
        case 307: "Temporary Redirect"
        case 308: "Permanent Redirect"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 402: "Payment Required"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 406: "Not Acceptable"
        case 408: "Request Timeout"
        case 409: "Conflict"
        case 410: "Gone"
        case 411: "Length Required"
        case 412: "Precondition Failed"
        case 413: "Content Too Large"
        case 414: "URI Too Long"
        case 415: "Unsupported Media Type"
        case 417: "Expectation Failed"
        case 422: "Unprocessable Content"
        case 425: "Too Early"
        case 428: "Precondition Required"
        case 429: "Too Many Requests"
        case 431: "Request Header Fields Too Large"
        case 500: "Internal Server Error"
        case 501: "Not Implemented"
        case 502: "Bad Gateway"
        case 503: "Service Unavailable"
        case 504: "Gateway Timeout"
        case 505: "HTTP Version Not Supported"
        default: ""
        }
    }
}
