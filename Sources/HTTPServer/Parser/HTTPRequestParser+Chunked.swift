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
/// Extensions are checked and ignored, their total length bounded. Trailer fields are checked
/// with the header rules, bounded, and discarded: nothing in a trailer (a second
/// Content-Length, Host, Authorization…) may change how the request is framed or judged.
/// A chunk-size longer than 16 hex digits is refused (it cannot fit 64 bits even with
/// leading zeros, and unbounded zeros would be an unbounded line).
struct ChunkedState {
    enum State: UInt8 {
        case size, sizeDigits, sizeWhitespace
        case extBeforeName, extName, extAfterName, extBeforeValue, extToken, extQuoted, extQuotedPair, extAfterValue
        case sizeLF, data, dataCR, dataLF
        case trailerLineStart, trailerName, trailerValue, trailerLF, endLF
    }

    var state: State = .size
    var size: UInt64 = 0
    var sizeDigits = 0
    var remaining: UInt64 = 0
    var decoded = 0
    var extensionBytes = 0
    var trailerBytes = 0
    var trailerFields = 0
    var trailerLineLength = 0
}

extension HTTPRequestParser {
    // swiftlint:disable:next cyclomatic_complexity function_body_length
    mutating func parseChunked(_ input: UnsafeRawBufferPointer) -> (event: Event, consumed: Int) {
        var c = chunk
        defer { chunk = c }
        let count = input.count
        let cr: UInt8 = 0x0D, lf: UInt8 = 0x0A, sp: UInt8 = 0x20, tab: UInt8 = 0x09
        let semicolon = UInt8(ascii: ";"), equals = UInt8(ascii: "="), quote = UInt8(ascii: "\"")
        var i = 0

        func isExtensionState(_ state: ChunkedState.State) -> Bool {
            switch state {
            case .extBeforeName, .extName, .extAfterName, .extBeforeValue, .extToken, .extQuoted,
                 .extQuotedPair, .extAfterValue: true
            default: false
            }
        }

        while i < count {
            if c.state == .data {
                let take = Int(min(UInt64(count - i), c.remaining))
                c.remaining -= UInt64(take)
                if c.remaining == 0 { c.state = .dataCR }
                return (.body(i..<(i + take)), i + take)
            }
            let b = input[i]
            if isExtensionState(c.state) && b != cr && b != lf {
                c.extensionBytes += 1
                guard c.extensionBytes <= limits.maxChunkExtensionSize else {
                    return fail(.chunkExtensionTooLong, consumed: i)
                }
            }
            switch c.state {
            case .size, .sizeDigits:
                if HTTPGrammar.isHexDigit(b) {
                    c.sizeDigits += 1
                    guard c.sizeDigits <= 16 else { return fail(.invalidChunkSize, consumed: i) }
                    c.size = c.size << 4 | HTTPGrammar.hexValue(b)
                    guard c.size <= UInt64(limits.maxBodySize - c.decoded) else {
                        return fail(.bodyTooLarge, consumed: i)
                    }
                    c.state = .sizeDigits
                } else if c.state == .size {
                    return fail(b == lf ? .bareLF : .invalidChunkSize, consumed: i)
                } else if b == cr {
                    c.state = .sizeLF
                } else if b == semicolon {
                    c.extensionBytes += 1
                    guard c.extensionBytes <= limits.maxChunkExtensionSize else {
                        return fail(.chunkExtensionTooLong, consumed: i)
                    }
                    c.state = .extBeforeName
                } else if b == sp || b == tab {
                    c.extensionBytes += 1
                    c.state = .sizeWhitespace
                } else {
                    return fail(b == lf ? .bareLF : .invalidChunkSize, consumed: i)
                }
            case .sizeWhitespace:
                // BWS is only allowed before a `;` that starts an extension.
                c.extensionBytes += 1
                guard c.extensionBytes <= limits.maxChunkExtensionSize else {
                    return fail(.chunkExtensionTooLong, consumed: i)
                }
                if b == semicolon {
                    c.state = .extBeforeName
                } else if b != sp && b != tab {
                    return fail(b == lf ? .bareLF : .invalidChunkSize, consumed: i)
                }
            case .extBeforeName:
                if HTTPGrammar.isTokenChar(b) {
                    c.state = .extName
                } else if b != sp && b != tab {
                    return fail(b == lf ? .bareLF : .invalidChunkExtension, consumed: i)
                }
            case .extName, .extAfterName:
                if HTTPGrammar.isTokenChar(b) && c.state == .extName {
                    // name continues
                } else if b == sp || b == tab {
                    c.state = .extAfterName
                } else if b == equals {
                    c.state = .extBeforeValue
                } else if b == semicolon {
                    c.state = .extBeforeName
                } else if b == cr {
                    c.state = .sizeLF
                } else {
                    return fail(b == lf ? .bareLF : .invalidChunkExtension, consumed: i)
                }
            case .extBeforeValue:
                if HTTPGrammar.isTokenChar(b) {
                    c.state = .extToken
                } else if b == quote {
                    c.state = .extQuoted
                } else if b != sp && b != tab {
                    return fail(b == lf ? .bareLF : .invalidChunkExtension, consumed: i)
                }
            case .extToken, .extAfterValue:
                if HTTPGrammar.isTokenChar(b) && c.state == .extToken {
                    // value continues
                } else if b == sp || b == tab {
                    c.state = .extAfterValue
                } else if b == semicolon {
                    c.state = .extBeforeName
                } else if b == cr {
                    c.state = .sizeLF
                } else {
                    return fail(b == lf ? .bareLF : .invalidChunkExtension, consumed: i)
                }
            case .extQuoted:
                // qdtext = HTAB / SP / %x21 / %x23-5B / %x5D-7E / obs-text
                if b == quote {
                    c.state = .extAfterValue
                } else if b == UInt8(ascii: "\\") {
                    c.state = .extQuotedPair
                } else if !(b == tab || b == sp || (b >= 0x21 && b != 0x7F)) {
                    return fail(b == lf ? .bareLF : .invalidChunkExtension, consumed: i)
                }
            case .extQuotedPair:
                // quoted-pair = "\" ( HTAB / SP / VCHAR / obs-text )
                guard b == tab || b == sp || (b >= 0x21 && b != 0x7F) else {
                    return fail(b == lf ? .bareLF : .invalidChunkExtension, consumed: i)
                }
                c.state = .extQuoted
            case .sizeLF:
                guard b == lf else { return fail(.bareCR, consumed: i) }
                if c.size == 0 {
                    c.state = .trailerLineStart
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
            case .trailerLineStart, .trailerName, .trailerValue, .trailerLF, .endLF:
                c.trailerBytes += 1
                guard c.trailerBytes <= limits.maxTrailerSectionSize else {
                    return fail(.trailerSectionTooLarge, consumed: i)
                }
                switch c.state {
                case .trailerLineStart:
                    if HTTPGrammar.isTokenChar(b) {
                        c.trailerFields += 1
                        guard c.trailerFields <= limits.maxHeaderFields else { return fail(.tooManyFields, consumed: i) }
                        c.trailerLineLength = 1
                        c.state = .trailerName
                    } else if b == cr {
                        c.state = .endLF
                    } else if b == lf {
                        return fail(.bareLF, consumed: i)
                    } else if b == sp || b == tab {
                        return fail(.obsoleteLineFolding, consumed: i)
                    } else {
                        return fail(.invalidFieldName, consumed: i)
                    }
                case .trailerName, .trailerValue:
                    if b == cr && c.state == .trailerValue {
                        c.state = .trailerLF
                        break
                    }
                    c.trailerLineLength += 1
                    guard c.trailerLineLength <= limits.maxFieldLineLength else {
                        return fail(.fieldLineTooLong, consumed: i)
                    }
                    if c.state == .trailerName {
                        if b == UInt8(ascii: ":") {
                            c.state = .trailerValue
                        } else if b == sp || b == tab {
                            return fail(.whitespaceBeforeColon, consumed: i)
                        } else if !HTTPGrammar.isTokenChar(b) {
                            return fail(b == lf ? .bareLF : .invalidFieldName, consumed: i)
                        }
                    } else if !HTTPGrammar.isFieldValueByte(b) {
                        return fail(b == lf ? .bareLF : .invalidFieldValue, consumed: i)
                    }
                case .trailerLF:
                    guard b == lf else { return fail(.bareCR, consumed: i) }
                    c.state = .trailerLineStart
                default:  // .endLF
                    guard b == lf else { return fail(.bareCR, consumed: i) }
                    c = ChunkedState()
                    reset()
                    return (.end, i + 1)
                }
            }
            i += 1
        }
        return (.needMoreData, count)
    }
}
