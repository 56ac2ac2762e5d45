/// Chunked transfer coding (RFC 9112 §7.1):
///
/// ```
/// chunked-body   = *chunk last-chunk trailer-section CRLF
/// chunk          = chunk-size [ chunk-ext ] CRLF chunk-data CRLF
/// chunk-size     = 1*HEXDIG
/// last-chunk     = 1*("0") [ chunk-ext ] CRLF
/// chunk-ext      = *( BWS ";" BWS chunk-ext-name [ BWS "=" BWS chunk-ext-val ] )
/// chunk-ext-val  = token / quoted-string
/// trailer-section = *( field-line CRLF )
/// ```
///
/// Extensions are checked and ignored, their total length bounded. Trailer fields are read by
/// the header section's scanner (the same grammar and line limit), bounded, and discarded: nothing in a trailer (a second
/// Content-Length, Host, Authorization…) may change how the request is framed or judged.
/// A chunk-size longer than 16 hex digits is refused (it cannot fit 64 bits even with
/// leading zeros, and unbounded zeros would be an unbounded line).
struct ChunkedState {
    enum State: UInt8 {
        case size, sizeDigits, sizeWhitespace
        case extBeforeName, extName, extAfterName, extBeforeValue, extToken, extQuoted, extQuotedPair, extAfterValue
        case sizeLF, data, dataCR, dataLF
        /// After the last chunk, in the trailer section, which `trailer` reads.
        case trailers
    }

    var state: State = .size
    var size: UInt64 = 0
    var sizeDigits = 0
    var remaining: UInt64 = 0
    var decoded = 0
    var extensionBytes = 0
    var trailer: FieldSectionScanner
    /// Bytes of the trailer section read so far: the offsets `trailer` is fed.
    var trailerOffset = 0

    init(limits: HTTPLimits) {
        trailer = FieldSectionScanner(.trailer(limits))
    }
}

extension ChunkedState {
    /// Whether a chunk-size line byte was taken (a CR moves on to `.sizeLF`) or broke the grammar.
    enum SizeLineStep: Equatable {
        case next
        case error(HTTPParserError)
    }

    /// One byte of a chunk-size line: `chunk-size [ chunk-ext ]` up to its CR (RFC 9112 §7.1.1).
    /// Extension octets (with the whitespace before them) count against `maxExtensionSize`
    /// over the whole body, and the size against what `maxBodySize` leaves.
    // swiftlint:disable:next cyclomatic_complexity function_body_length
    mutating func scanSizeLine(_ b: UInt8, maxExtensionSize: Int, maxBodySize: Int) -> SizeLineStep {
        let cr: UInt8 = 0x0D, lf: UInt8 = 0x0A, sp: UInt8 = 0x20, tab: UInt8 = 0x09
        let semicolon = UInt8(ascii: ";"), equals = UInt8(ascii: "="), quote = UInt8(ascii: "\"")
        if isInExtension && b != cr && b != lf {
            extensionBytes += 1
            guard extensionBytes <= maxExtensionSize else { return .error(.chunkExtensionTooLong) }
        }
        switch state {
        case .size, .sizeDigits:
            if HTTPGrammar.isHexDigit(b) {
                sizeDigits += 1
                guard sizeDigits <= 16 else { return .error(.invalidChunkSize) }
                size = size << 4 | HTTPGrammar.hexValue(b)
                guard size <= UInt64(maxBodySize - decoded) else {
                    return .error(.bodyTooLarge)
                }
                state = .sizeDigits
            } else if state == .size {
                return .error(b == lf ? .bareLF : .invalidChunkSize)
            } else if b == cr {
                state = .sizeLF
            } else if b == semicolon {
                extensionBytes += 1
                guard extensionBytes <= maxExtensionSize else {
                    return .error(.chunkExtensionTooLong)
                }
                state = .extBeforeName
            } else if b == sp || b == tab {
                extensionBytes += 1
                state = .sizeWhitespace
            } else {
                return .error(b == lf ? .bareLF : .invalidChunkSize)
            }
        case .sizeWhitespace:
            // BWS is only allowed before a `;` that starts an extension.
            extensionBytes += 1
            guard extensionBytes <= maxExtensionSize else {
                return .error(.chunkExtensionTooLong)
            }
            if b == semicolon {
                state = .extBeforeName
            } else if b != sp && b != tab {
                return .error(b == lf ? .bareLF : .invalidChunkSize)
            }
        case .extBeforeName:
            if HTTPGrammar.isTokenChar(b) {
                state = .extName
            } else if b != sp && b != tab {
                return .error(b == lf ? .bareLF : .invalidChunkExtension)
            }
        case .extName, .extAfterName, .extToken, .extAfterValue:
            // After a name or a value: the token goes on until whitespace; then only `=` (after a
            // name), the next extension or the end of the line.
            let afterName = state == .extName || state == .extAfterName
            if HTTPGrammar.isTokenChar(b) && (state == .extName || state == .extToken) {
                // name or value continues
            } else if b == sp || b == tab {
                state = afterName ? .extAfterName : .extAfterValue
            } else if b == equals && afterName {
                state = .extBeforeValue
            } else if b == semicolon {
                state = .extBeforeName
            } else if b == cr {
                state = .sizeLF
            } else {
                return .error(b == lf ? .bareLF : .invalidChunkExtension)
            }
        case .extBeforeValue:
            if HTTPGrammar.isTokenChar(b) {
                state = .extToken
            } else if b == quote {
                state = .extQuoted
            } else if b != sp && b != tab {
                return .error(b == lf ? .bareLF : .invalidChunkExtension)
            }
        case .extQuoted:
            // qdtext = HTAB / SP / %x21 / %x23-5B / %x5D-7E / obs-text
            if b == quote {
                state = .extAfterValue
            } else if b == UInt8(ascii: "\\") {
                state = .extQuotedPair
            } else if !(b == tab || b == sp || (b >= 0x21 && b != 0x7F)) {
                return .error(b == lf ? .bareLF : .invalidChunkExtension)
            }
        case .extQuotedPair:
            // quoted-pair = "\" ( HTAB / SP / VCHAR / obs-text )
            guard b == tab || b == sp || (b >= 0x21 && b != 0x7F) else {
                return .error(b == lf ? .bareLF : .invalidChunkExtension)
            }
            state = .extQuoted
        case .sizeLF, .data, .dataCR, .dataLF, .trailers:
            preconditionFailure("not in a chunk-size line")
        }
        return .next
    }

    private var isInExtension: Bool {
        switch state {
        case .extBeforeName, .extName, .extAfterName, .extBeforeValue, .extToken, .extQuoted, .extQuotedPair,
             .extAfterValue: true
        default: false
        }
    }
}

extension HTTPRequestParser {
    /// The chunked body: chunk-size lines, chunk data (handed out as ranges of the input, never
    /// copied), the CRLF after each chunk, then the trailer section through `chunk.trailer`.
    mutating func parseChunked(_ input: UnsafeRawBufferPointer) -> (event: Event, consumed: Int) {
        var c = chunk
        defer { chunk = c }
        let count = input.count
        let cr: UInt8 = 0x0D, lf: UInt8 = 0x0A
        var i = 0
        while i < count {
            if c.state == .data {
                let take = Int(min(UInt64(count - i), c.remaining))
                c.remaining -= UInt64(take)
                if c.remaining == 0 { c.state = .dataCR }
                return (.body(i..<(i + take)), i + take)
            }
            let b = input[i]
            switch c.state {
            case .size, .sizeDigits, .sizeWhitespace, .extBeforeName, .extName, .extAfterName, .extBeforeValue,
                 .extToken, .extQuoted, .extQuotedPair, .extAfterValue:
                if case .error(let error) = c.scanSizeLine(b, maxExtensionSize: limits.maxChunkExtensionSize,
                                                           maxBodySize: limits.maxBodySize) {
                    return fail(error, consumed: i)
                }
            case .sizeLF:
                guard b == lf else { return fail(.bareCR, consumed: i) }
                if c.size == 0 {
                    c.state = .trailers
                } else {
                    c.decoded += Int(c.size)
                    c.remaining = c.size
                    c.state = .data
                }
                c.size = 0
                c.sizeDigits = 0
            case .data:
                preconditionFailure("handled above")
            case .dataCR:
                guard b == cr else { return fail(.invalidChunkFraming, consumed: i) }
                c.state = .dataLF
            case .dataLF:
                guard b == lf else { return fail(.invalidChunkFraming, consumed: i) }
                c.state = .size
            case .trailers:
                let step = c.trailer.scan(b, at: c.trailerOffset)
                c.trailerOffset += 1
                switch step {
                case .next, .field: break  // trailer fields are discarded
                case .error(let error): return fail(error, consumed: i)
                case .end:
                    c = ChunkedState(limits: limits)
                    reset()
                    return (.end, i + 1)
                }
            }
            i += 1
        }
        return (.needMoreData, count)
    }
}
