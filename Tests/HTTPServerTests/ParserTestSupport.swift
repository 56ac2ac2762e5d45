import HTTPServer
import Testing

/// What the parser produced, with body ranges resolved and adjacent body pieces merged, so that
/// results of different chunkings compare equal.
enum ParsedPart: Equatable, CustomStringConvertible {
    case head(HTTPRequestHead)
    case body([UInt8])
    case end
    case error(HTTPParserError)

    var description: String {
        switch self {
        case .head(let head): "head(\(head.method) \(head.target) \(head.version) \(head.framing))"
        case .body(let bytes): "body(\(bytes.count) bytes)"
        case .end: "end"
        case .error(let error): "error(\(error))"
        }
    }
}

/// Bytes of a string taken as ISO-8859-1 (one scalar = one octet), as the probes are written.
func latin1(_ text: String) -> [UInt8] {
    text.unicodeScalars.map { UInt8(truncatingIfNeeded: $0.value) }
}

/// Feeds `bytes` to a fresh parser in the given chunks; stops at the first error.
func parse(_ bytes: [UInt8], chunks: [Range<Int>], limits: HTTPLimits) -> [ParsedPart] {
    var parser = HTTPRequestParser(limits: limits)
    var parts: [ParsedPart] = []
    for chunk in chunks {
        let failed = Array(bytes[chunk]).withUnsafeBytes { buffer -> Bool in
            var offset = 0
            while true {
                let (event, consumed) = parser.parse(UnsafeRawBufferPointer(rebasing: buffer[offset...]))
                switch event {
                case .needMoreData:
                    precondition(offset + consumed == buffer.count, "needMoreData must consume everything")
                    return false
                case .head(let head):
                    parts.append(.head(head))
                case .body(let range):
                    let piece = Array(buffer[(offset + range.lowerBound)..<(offset + range.upperBound)])
                    if case .body(let previous)? = parts.last {
                        parts[parts.count - 1] = .body(previous + piece)
                    } else {
                        parts.append(.body(piece))
                    }
                case .end:
                    parts.append(.end)
                case .error(let error):
                    parts.append(.error(error))
                    return true
                }
                offset += consumed
            }
        }
        if failed { break }
    }
    return parts
}

/// Parses `bytes` whole, one byte at a time, and split in two at every position (at sampled
/// positions for inputs over 2 KiB), expects every way to give the same parts, and returns them.
@discardableResult
func parseAllWays(_ bytes: [UInt8], limits: HTTPLimits = HTTPLimits(),
                  sourceLocation: SourceLocation = #_sourceLocation) -> [ParsedPart] {
    let whole = parse(bytes, chunks: [0..<bytes.count], limits: limits)
    let byteByByte = parse(bytes, chunks: bytes.indices.map { $0..<($0 + 1) }, limits: limits)
    #expect(byteByByte == whole, "byte-by-byte differs from whole", sourceLocation: sourceLocation)
    let step = bytes.count > 2048 ? 61 : 1
    for split in stride(from: 1, to: bytes.count, by: step) {
        let twoWay = parse(bytes, chunks: [0..<split, split..<bytes.count], limits: limits)
        if twoWay != whole {
            Issue.record("split at \(split) gives \(twoWay), whole gives \(whole)", sourceLocation: sourceLocation)
            break
        }
    }
    return whole
}

/// Parses a request expected to be valid and complete; returns its head and body.
@discardableResult
func expectRequest(_ text: String, limits: HTTPLimits = HTTPLimits(),
                   sourceLocation: SourceLocation = #_sourceLocation) -> (head: HTTPRequestHead, body: [UInt8])? {
    let parts = parseAllWays(latin1(text), limits: limits, sourceLocation: sourceLocation)
    guard case .head(let head)? = parts.first else {
        Issue.record("no head: \(parts)", sourceLocation: sourceLocation)
        return nil
    }
    var body: [UInt8] = []
    if parts.count > 1, case .body(let bytes) = parts[1] { body = bytes }
    #expect(parts.last == .end, "request not complete: \(parts)", sourceLocation: sourceLocation)
    return (head, body)
}

/// Expects the parser to refuse `text` with `error`.
func expectError(_ text: String, _ error: HTTPParserError, limits: HTTPLimits = HTTPLimits(),
                 sourceLocation: SourceLocation = #_sourceLocation) {
    expectError(latin1(text), error, limits: limits, sourceLocation: sourceLocation)
}

func expectError(_ bytes: [UInt8], _ error: HTTPParserError, limits: HTTPLimits = HTTPLimits(),
                 sourceLocation: SourceLocation = #_sourceLocation) {
    let parts = parseAllWays(bytes, limits: limits, sourceLocation: sourceLocation)
    #expect(parts.last == .error(error), "got \(parts)", sourceLocation: sourceLocation)
}

/// A minimal well-formed request with extra field lines.
func request(_ fields: String = "", method: String = "GET", target: String = "/healthz",
             version: String = "HTTP/1.1", body: String = "") -> String {
    "\(method) \(target) \(version)\r\nHost: t\r\n\(fields)\r\n\(body)"
}
