/// An incremental, I/O-free HTTP/1.1 request parser (RFC 9112) that refuses wherever the RFC allows
/// leniency (HTTPServer.docc).
///
/// Feed it any chunking of the byte stream with `parse(_:)`; each call returns one event and
/// how many input bytes it consumed. Every byte is examined exactly once and every decision is
/// made on the byte that triggers it, so the same stream gives the same events whatever the
/// chunk boundaries (the tests replay every input whole, byte by byte and in every two-way
/// split).
///
/// Memory: a head that arrives in one chunk is parsed in place; only a head split across
/// chunks is copied (into `headBytes`, bounded by the limits). Body bytes are never copied:
/// `.body` carries a range of the caller's buffer.
///
/// After `.error` the parser stays failed. After `.end` it is ready for the next request of a
/// persistent connection; the connection state machine decides when to ask for it (pipelined
/// requests are parsed only after the previous response).
package struct HTTPRequestParser {
    /// What one call to `parse(_:)` produced.
    package enum Event: Equatable {
        /// All input consumed; nothing complete yet.
        case needMoreData
        /// A validated request head.
        case head(HTTPRequestHead)
        /// Body octets: this range of the input passed to `parse(_:)` (de-chunked).
        case body(Range<Int>)
        /// The request is complete (body and any trailers consumed).
        case end
        /// A framing error: answer `error.httpStatus` and close.
        case error(HTTPParserError)
    }

    package let limits: HTTPLimits

    enum Phase {
        case head
        case fixedBody(remaining: Int)
        case chunked
        case failed(HTTPParserError)
    }

    enum HeadState: UInt8 {
        case lineStart, leadingLF, method, targetStart, target, targetPercent1, targetPercent2
        case version, requestLineCR, requestLineLF
        /// In the header section, which `fieldScanner` reads.
        case fields
    }

    enum TargetKind: UInt8 { case origin, asterisk, absolute }

    var phase: Phase = .head

    // Head scanning state; offsets are relative to the first byte of the head.
    var headState: HeadState = .lineStart
    var headLength = 0
    var headBytes: [UInt8] = []
    var emptyLines = 0
    var methodStart = 0
    var methodLength = 0
    var methodCode: UInt64 = 0
    /// The method ended with its space (kept apart from `headState`, which is saved only when a
    /// read ends, so a failure later in the same read still knows the method).
    var methodEnded = false
    var targetStart = 0
    var targetEnd = 0
    var targetKind: TargetKind = .origin
    var versionIndex = 0
    var versionMajor: UInt8 = 0
    var versionMinor: UInt8 = 0
    var fieldScanner: FieldSectionScanner
    var fields: [FieldMarks] = []
    /// The method and target of the request being parsed once its request-line is complete,
    /// kept until the next request begins, so that a refusal can say what it refused.
    package private(set) var requestLine: (method: String, target: String)?

    // Chunked body state.
    var chunk: ChunkedState

    /// A parser for one connection.
    package init(limits: HTTPLimits = HTTPLimits()) {
        self.limits = limits
        fieldScanner = FieldSectionScanner(.header(limits))
        chunk = ChunkedState(limits: limits)
    }

    /// Consumes bytes from the start of `input` and reports one event.
    package mutating func parse(_ input: UnsafeRawBufferPointer) -> (event: Event, consumed: Int) {
        switch phase {
        case .failed(let error):
            return (.error(error), 0)
        case .head:
            return parseHead(input)
        case .fixedBody(let remaining):
            if remaining == 0 {
                reset()
                return (.end, 0)
            }
            guard !input.isEmpty else { return (.needMoreData, 0) }
            let take = min(remaining, input.count)
            phase = .fixedBody(remaining: remaining - take)
            return (.body(0..<take), take)
        case .chunked:
            return parseChunked(input)
        }
    }

    /// Prepares for the next request of the connection.
    mutating func reset() {
        phase = .head
        headState = .lineStart
        headLength = 0
        headBytes.removeAll(keepingCapacity: headBytes.capacity <= 4096)
        emptyLines = 0
        methodLength = 0
        methodCode = 0
        methodEnded = false
        versionIndex = 0
        requestLine = nil
        fields.removeAll(keepingCapacity: true)
        chunk = ChunkedState(limits: limits)
    }

    mutating func fail(_ error: HTTPParserError, consumed: Int) -> (event: Event, consumed: Int) {
        phase = .failed(error)
        headBytes = []
        fields = []
        return (.error(error), consumed)
    }

    private static let knownMethodCodes: [(code: UInt64, length: Int)] = HTTPGrammar.knownMethods.map { method in
        (method.utf8.reduce(UInt64(0)) { $0 << 8 | UInt64($1) }, method.utf8.count)
    }
    private static let optionsCode: UInt64 = "OPTIONS".utf8.reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
    private static let headCode: UInt64 = "HEAD".utf8.reduce(UInt64(0)) { $0 << 8 | UInt64($1) }

    /// True when the request being parsed (or that failed) has the method HEAD, so that even a
    /// refusal is sent without a body.
    package var methodIsHEAD: Bool {
        methodEnded && methodLength == 4 && methodCode == Self.headCode
    }

    /// The request-line byte by byte, then the header section through `fieldScanner`; the head
    /// is built when the section ends.
    // swiftlint:disable:next cyclomatic_complexity function_body_length
    private mutating func parseHead(_ input: UnsafeRawBufferPointer) -> (event: Event, consumed: Int) {
        let count = input.count
        let base = headLength
        var state = headState
        var i = 0
        let table = HTTPGrammar.table
        let cr: UInt8 = 0x0D, lf: UInt8 = 0x0A, sp: UInt8 = 0x20, tab: UInt8 = 0x09
        let maxTarget = limits.maxTargetLength

        @inline(__always) func isToken(_ b: UInt8) -> Bool { table[Int(b)] & HTTPGrammar.tokenFlag != 0 }

        while i < count {
            let b = input[i]
            let pos = base + i
            switch state {
            case .lineStart:
                if isToken(b) {
                    methodStart = pos
                    methodLength = 1
                    methodCode = UInt64(b)
                    state = .method
                } else if b == cr {
                    state = .leadingLF
                } else if b == lf {
                    return fail(.bareLF, consumed: i)
                } else {
                    return fail(.invalidRequestLine, consumed: i)
                }
            case .leadingLF:
                guard b == lf else { return fail(.bareCR, consumed: i) }
                emptyLines += 1
                guard emptyLines <= limits.maxLeadingEmptyLines else { return fail(.tooManyEmptyLines, consumed: i) }
                state = .lineStart
            case .method:
                if isToken(b) {
                    methodLength += 1
                    guard methodLength <= HTTPGrammar.longestMethod else { return fail(.unknownMethod, consumed: i) }
                    methodCode = methodCode << 8 | UInt64(b)
                } else if b == sp {
                    methodEnded = true
                    state = .targetStart
                } else if b == lf {
                    return fail(.bareLF, consumed: i)
                } else if b == cr || b == tab {
                    return fail(.invalidRequestLine, consumed: i)
                } else {
                    return fail(.invalidMethod, consumed: i)
                }
            case .targetStart:
                targetStart = pos
                if b == UInt8(ascii: "/") {
                    targetKind = .origin
                    state = .target
                } else if b == UInt8(ascii: "*") {
                    targetKind = .asterisk
                    state = .target
                } else if b &- 0x41 < 26 || b &- 0x61 < 26 {
                    targetKind = .absolute
                    state = .target
                } else if b == lf {
                    return fail(.bareLF, consumed: i)
                } else if b == sp || b == cr || b == tab {
                    return fail(.invalidRequestLine, consumed: i)
                } else {
                    return fail(.invalidTarget, consumed: i)
                }
            case .target:
                if b == sp {
                    targetEnd = pos
                    if targetKind == .asterisk && targetEnd - targetStart != 1 {
                        return fail(.invalidTarget, consumed: i)
                    }
                    versionIndex = 0
                    state = .version
                    break
                }
                guard pos - targetStart < maxTarget else { return failTargetTooLong(input, base: base, at: pos, consumed: i) }
                if table[Int(b)] & HTTPGrammar.targetFlag != 0 && targetKind != .asterisk {
                    if b == UInt8(ascii: "%") { state = .targetPercent1 }
                } else if b == lf {
                    return fail(.bareLF, consumed: i)
                } else if b == cr || b == tab {
                    return fail(.invalidRequestLine, consumed: i)
                } else {
                    return fail(.invalidTarget, consumed: i)
                }
            case .targetPercent1, .targetPercent2:
                guard pos - targetStart < maxTarget else { return failTargetTooLong(input, base: base, at: pos, consumed: i) }
                guard table[Int(b)] & HTTPGrammar.hexFlag != 0 else { return fail(.invalidTarget, consumed: i) }
                state = state == .targetPercent1 ? .targetPercent2 : .target
            case .version:
                switch versionIndex {
                case 0...4:
                    guard b == Self.httpSlash[versionIndex] else {
                        return fail(b == lf ? .bareLF : .invalidVersion, consumed: i)
                    }
                case 5:
                    guard HTTPGrammar.isDigit(b) else { return fail(.invalidVersion, consumed: i) }
                    versionMajor = b - 0x30
                case 6:
                    guard b == UInt8(ascii: ".") else { return fail(.invalidVersion, consumed: i) }
                default:
                    guard HTTPGrammar.isDigit(b) else { return fail(.invalidVersion, consumed: i) }
                    versionMinor = b - 0x30
                    state = .requestLineCR
                }
                versionIndex += 1
            case .requestLineCR:
                if b == cr {
                    state = .requestLineLF
                } else {
                    return fail(b == lf ? .bareLF : .invalidVersion, consumed: i)
                }
            case .requestLineLF:
                guard b == lf else { return fail(.bareCR, consumed: i) }
                // The request-line is complete: decide what only the whole line can tell.
                captureRequestLine(input, base: base)
                if versionMajor != 1 { return fail(.unsupportedVersion, consumed: i) }
                guard Self.knownMethodCodes.contains(where: { $0.code == methodCode && $0.length == methodLength }) else {
                    return fail(.unknownMethod, consumed: i)
                }
                if targetKind == .asterisk && !(methodCode == Self.optionsCode && methodLength == 7) {
                    return fail(.asteriskFormWithoutOptions, consumed: i)
                }
                fieldScanner = FieldSectionScanner(.header(limits), sectionStart: pos + 1)
                state = .fields
            case .fields:
                let run = fieldScanner.skipRun(input, from: i, at: pos)
                if run > 0 {
                    i += run
                    continue
                }
                switch fieldScanner.scan(b, at: pos) {
                case .next: break
                case .field(let marks): fields.append(marks)
                case .error(let error): return fail(error, consumed: i)
                case .end: return completeHead(input, consumed: i + 1)
                }
            }
            i += 1
        }
        headState = state
        headLength = base + count
        // The head continues in a later chunk: keep its bytes so that it can be built contiguously.
        // Bounded by the limits checked above, plus the leading empty lines.
        headBytes.append(contentsOf: input)
        return (.needMoreData, count)
    }

    /// Copies the method and target out of the head's bytes (earlier reads in `headBytes`, the
    /// rest in `input`). Both are usually short enough for Swift's inline strings.
    private mutating func captureRequestLine(_ input: UnsafeRawBufferPointer, base: Int) {
        func text(_ range: Range<Int>) -> String {
            if range.lowerBound >= base {
                return String(decoding: UnsafeRawBufferPointer(rebasing: input[(range.lowerBound - base)..<(range.upperBound - base)]),
                              as: UTF8.self)
            }
            return String(decoding: range.map { $0 < base ? headBytes[$0] : input[$0 - base] }, as: UTF8.self)
        }
        requestLine = (text(methodStart..<(methodStart + methodLength)), text(targetStart..<targetEnd))
    }

    /// 414, keeping the method and the target's first `maxTargetLength` octets for the refusal
    /// (its path is whole when a `?` came early, as in `POST /rpc?…`).
    private mutating func failTargetTooLong(_ input: UnsafeRawBufferPointer, base: Int, at pos: Int,
                                            consumed: Int) -> (event: Event, consumed: Int) {
        targetEnd = pos
        captureRequestLine(input, base: base)
        return fail(.targetTooLong, consumed: consumed)
    }

    /// The empty line ending the head has been read (`consumed` bytes of `input`): builds the
    /// head from its bytes and sets up the body.
    private mutating func completeHead(_ input: UnsafeRawBufferPointer, consumed: Int) -> (event: Event, consumed: Int) {
        let result: Result<HTTPRequestHead, HTTPParserError>
        if headBytes.isEmpty {
            result = makeHead(UnsafeRawBufferPointer(rebasing: input[0..<consumed]))
        } else {
            headBytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: input[0..<consumed]))
            result = headBytes.withUnsafeBytes { makeHead($0) }
        }
        switch result {
        case .failure(let error):
            return fail(error, consumed: consumed)
        case .success(let head):
            headState = .lineStart
            headLength = 0
            headBytes.removeAll(keepingCapacity: headBytes.capacity <= 4096)
            switch head.framing {
            case .none: phase = .fixedBody(remaining: 0)
            case .contentLength(let length): phase = .fixedBody(remaining: length)
            case .chunked:
                chunk = ChunkedState(limits: limits)
                phase = .chunked
            }
            return (.head(head), consumed)
        }
    }

    private static let httpSlash: [UInt8] = Array("HTTP/".utf8)

    /// Builds the head from its bytes (request-line through the empty line) and applies the
    /// framing rules that need the whole field section.
    private func makeHead(_ bytes: UnsafeRawBufferPointer) -> Result<HTTPRequestHead, HTTPParserError> {
        var builder = HTTPRequestHead.Builder(bytes: bytes, limits: limits)
        return builder.build(methodRange: methodStart..<(methodStart + methodLength),
                             targetRange: targetStart..<targetEnd, targetKind: targetKind,
                             version: HTTPVersion(major: versionMajor, minor: versionMinor),
                             fields: fields)
    }
}
