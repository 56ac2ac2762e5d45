/// A field section (RFC 9112 §5), byte by byte: field lines `name ":" OWS value OWS CRLF` up to
/// an empty line. The head and the chunked trailers both use it, so they share one grammar and
/// one set of strict choices (HTTPServer.docc): no obs-fold, no whitespace before
/// the colon, no bare CR or LF, no control bytes in values.
///
/// Limits: each field line (name, colon and value, without its CRLF) is at most
/// `maxLineLength` octets, the section (every field line with its CRLF, not the empty line that
/// ends it) at most `maxSectionSize`, and there are at most `maxFields` lines. A limit is
/// refused on the first byte that passes it, so nothing unbounded is ever read.
struct FieldSectionScanner {
    /// The limits of one kind of section, and the error its size limit reports.
    struct Limits {
        var maxLineLength: Int
        var maxSectionSize: Int
        var maxFields: Int
        var sectionTooLarge: HTTPParserError

        /// The request head's header section.
        static func header(_ limits: HTTPLimits) -> Limits {
            Limits(maxLineLength: limits.maxFieldLineLength, maxSectionSize: limits.maxHeaderSectionSize,
                   maxFields: limits.maxHeaderFields, sectionTooLarge: .headerSectionTooLarge)
        }

        /// The trailer section after a chunked body's last chunk.
        static func trailer(_ limits: HTTPLimits) -> Limits {
            Limits(maxLineLength: limits.maxFieldLineLength, maxSectionSize: limits.maxTrailerSectionSize,
                   maxFields: limits.maxHeaderFields, sectionTooLarge: .trailerSectionTooLarge)
        }
    }

    /// What one byte completed.
    enum Step: Equatable {
        /// Nothing yet.
        case next
        /// A field line, with its offsets.
        case field(FieldMarks)
        /// The empty line: the section is complete.
        case end
        case error(HTTPParserError)
    }

    enum State: UInt8 { case lineStart, name, valueLeadingWhitespace, value, lineLF, endLF }

    let limits: Limits
    private(set) var state = State.lineStart
    /// Offsets, in the caller's numbering, of the section's first byte and of the current line's parts.
    private var sectionStart: Int
    private var lineStart = 0
    private var nameEnd = 0
    private var valueStart = 0
    private var valueEnd = 0
    private var valueHasObsText = false
    private var fieldCount = 0

    /// A section whose first byte has offset `sectionStart`.
    init(_ limits: Limits, sectionStart: Int = 0) {
        self.limits = limits
        self.sectionStart = sectionStart
    }

    /// Takes the byte `b` at offset `pos` (offsets increase by one per byte).
    @inline(__always)
    mutating func scan(_ b: UInt8, at pos: Int) -> Step {
        let cr: UInt8 = 0x0D, lf: UInt8 = 0x0A, sp: UInt8 = 0x20, tab: UInt8 = 0x09
        let flags = HTTPGrammar.table[Int(b)]
        switch state {
        case .lineStart:
            if flags & HTTPGrammar.tokenFlag != 0 {
                guard fieldCount < limits.maxFields else { return .error(.tooManyFields) }
                guard pos - sectionStart < limits.maxSectionSize else { return .error(limits.sectionTooLarge) }
                lineStart = pos
                state = .name
            } else if b == cr {
                state = .endLF
            } else if b == lf {
                return .error(.bareLF)
            } else if b == sp || b == tab {
                return .error(.obsoleteLineFolding)
            } else {
                return .error(.invalidFieldName)
            }
        case .name:
            if let error = overLimit(pos) { return .error(error) }
            if flags & HTTPGrammar.tokenFlag != 0 {
                // name continues
            } else if b == UInt8(ascii: ":") {
                nameEnd = pos
                valueHasObsText = false
                state = .valueLeadingWhitespace
            } else if b == sp || b == tab {
                return .error(.whitespaceBeforeColon)
            } else {
                return .error(b == lf ? .bareLF : .invalidFieldName)
            }
        case .valueLeadingWhitespace, .value:
            if b == cr {
                if state == .valueLeadingWhitespace {
                    valueStart = pos
                    valueEnd = pos
                }
                state = .lineLF
                return .next
            }
            if let error = overLimit(pos) { return .error(error) }
            if flags & HTTPGrammar.fieldVCharFlag != 0 {
                if state == .valueLeadingWhitespace {
                    valueStart = pos
                    state = .value
                }
                valueEnd = pos + 1
                if b >= 0x80 { valueHasObsText = true }
            } else if b != sp && b != tab {  // inner whitespace is kept, the ends are trimmed
                return .error(b == lf ? .bareLF : .invalidFieldValue)
            }
        case .lineLF:
            guard b == lf else { return .error(.bareCR) }
            guard pos - sectionStart < limits.maxSectionSize else { return .error(limits.sectionTooLarge) }
            fieldCount += 1
            state = .lineStart
            return .field(FieldMarks(nameStart: Int32(lineStart), nameEnd: Int32(nameEnd), valueStart: Int32(valueStart),
                                     valueEnd: Int32(valueEnd), hasObsText: valueHasObsText))
        case .endLF:
            guard b == lf else { return .error(.bareCR) }
            return .end
        }
        return .next
    }

    /// How many bytes of `input` from `start` (the first at offset `pos`) continue the current
    /// field name or value without completing anything: what `scan` would take one call at a
    /// time with `.next`, taken in one loop (the same checks; a call per byte was a sixth of a
    /// small request's cost, issue 17's profile). Stops before a byte that ends the name or the
    /// value, is refused, or would pass a limit, leaving it to `scan`; 0 in any other state.
    mutating func skipRun(_ input: UnsafeRawBufferPointer, from start: Int, at pos: Int) -> Int {
        let allowed = Swift.min(input.count - start, limits.maxLineLength - (pos - lineStart),
                                limits.maxSectionSize - (pos - sectionStart))
        guard allowed > 0 else { return 0 }
        let table = HTTPGrammar.table
        var n = 0
        switch state {
        case .name:
            while n < allowed, table[Int(input[start + n])] & HTTPGrammar.tokenFlag != 0 { n += 1 }
        case .value:
            while n < allowed {
                let b = input[start + n]
                if table[Int(b)] & HTTPGrammar.fieldVCharFlag != 0 {
                    valueEnd = pos + n + 1
                    if b >= 0x80 { valueHasObsText = true }
                } else if b != 0x20 && b != 0x09 {
                    break
                }
                n += 1
            }
        default:
            return 0
        }
        return n
    }

    /// The line or the section would grow past its limit with the byte at `pos`.
    @inline(__always)
    private func overLimit(_ pos: Int) -> HTTPParserError? {
        if pos - lineStart >= limits.maxLineLength { return .fieldLineTooLong }
        if pos - sectionStart >= limits.maxSectionSize { return limits.sectionTooLarge }
        return nil
    }
}

/// Offsets of one field line, numbered as the bytes were fed to the scanner.
struct FieldMarks: Equatable {
    var nameStart: Int32
    var nameEnd: Int32
    var valueStart: Int32
    var valueEnd: Int32
    var hasObsText: Bool
}
