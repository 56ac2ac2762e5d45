import BadgeCore
import Foundation
import HTTPServer
import JSON
import Testing
import TestSupport

/// Our HTTP/1.1 request parser beside PyPI `h11` as a server (Tests/Peers/differential_peer.py
/// `http`), on request streams mutated and generated: whether the first request's head is read,
/// its method, target, version and field lines (names and values as octets), and its body when
/// both reach the end of the message.
///
/// Our parser refuses wherever RFC 9112 allows a choice (HTTPServer.docc); `h11` is lenient in
/// several of those places. Each such refusal is a documented difference (Tests/Fuzz/README.md,
/// Differential), recognised here only when the input shows the feature the RFC line is about
/// (a bare LF, an obs-fold, a control byte in a value…). When `h11` has not seen the whole head
/// yet it has decided nothing; a refusal of ours on an earlier byte is counted apart. Some
/// documented differences go the other way, where `h11` refuses what RFC 9112/9110 allow
/// (``h11Stricter(_:)``).
@Suite(.timeLimit(.minutes(20))) struct HTTPDifferentialTests {
    struct Ours {
        var head: HTTPRequestHead?
        var error: HTTPParserError?
        var body: [UInt8] = []
        var ended = false
        var bodyError: HTTPParserError?
    }

    /// The first request of `input`, as our parser reads it (default limits).
    static func ours(_ input: [UInt8]) -> Ours {
        var parser = HTTPRequestParser()
        var out = Ours()
        var offset = 0
        var idle = 0
        while idle < 3 {
            let (event, consumed) = input.withUnsafeBytes { parser.parse(UnsafeRawBufferPointer(rebasing: $0[offset...])) }
            let start = offset
            offset += consumed
            idle = consumed == 0 ? idle + 1 : 0
            switch event {
            case .needMoreData: return out
            case .head(let head): out.head = head
            case .body(let range): out.body += input[(start + range.lowerBound)..<(start + range.upperBound)]
            case .end: out.ended = true; return out
            case .error(let error):
                if out.head == nil { out.error = error } else { out.bodyError = error }
                return out
            }
        }
        return out
    }

    static func compare(_ input: [UInt8], _ verdict: JSONValue) -> Comparison {
        let ours = Self.ours(input)
        switch verdict["verdict"]?.stringValue {
        case "request":
            if let error = ours.error { return documented(error, input) ?? .disagree("we refuse (\(error)) a head h11 reads") }
            guard let head = ours.head else { return .disagree("h11 reads a head we are still waiting on") }
            if let difference = fieldsDiffer(head, verdict) { return .disagree(difference) }
            let theirsEnded = verdict["ended"] == .bool(true), theirsRefused = verdict["bodyError"] != nil
            switch (ours.ended, ours.bodyError, theirsEnded, theirsRefused) {
            case (true, _, true, _):
                return verdict["body"]?.stringValue == Hex.encode(ours.body) ? .agree : .disagree("different bodies")
            case (_, .some, _, true), (false, nil, false, false):
                return .agree
            case (_, .some(let error), true, _):
                return documented(error, input) ?? .disagree("we refuse (\(error)) a body h11 reads to its end")
            case (_, .some, false, false):
                return .documented(Self.earlier)
            case (_, nil, false, true):
                return h11Stricter(input) ?? .disagree("h11 refuses (\(verdict["bodyError"]?.stringValue ?? "")) a body we "
                    + (ours.ended ? "read to its end" : "are still reading"))
            default:
                return .disagree(ours.ended ? "we end a message h11 does not" : "h11 ends a message we do not")
            }
        case "error":
            if ours.error != nil { return .agree }
            return h11Stricter(input) ?? .disagree(ours.head == nil
                ? "h11 refuses a head we are still waiting on (\(verdict["error"]?.stringValue ?? ""))"
                : "h11 refuses a head we read: \(verdict["error"]?.stringValue ?? "")")
        default:  // incomplete
            if ours.error != nil { return .documented(Self.earlier) }
            return ours.head == nil ? .agree : .disagree("we read a head h11 is still waiting on")
        }
    }

    static let earlier = "we refuse before h11 has the whole head or chunk"

    static let hexDigits = Set(Array("0123456789abcdefABCDEF".utf8))

    /// Whether a line after the head starts with at least `count` hex digits.
    static func startsWithHexDigits(_ count: Int, _ input: [UInt8]) -> Bool {
        lines(afterHead: input).contains { $0.prefix { hexDigits.contains($0) }.count >= count }
    }

    static func lines(afterHead input: [UInt8]) -> [ArraySlice<UInt8>] {
        input.dropFirst(head(of: input).count).split(separator: 0x0A)
    }

    /// The values (CR dropped) of the field lines named `name` among `lines`.
    static func field(_ name: String, in lines: some Sequence<ArraySlice<UInt8>>) -> [[UInt8]] {
        lines.compactMap { line in
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")),
                  String(decoding: line[line.startIndex..<colon], as: UTF8.self).lowercased() == name else { return nil }
            return Array(line[(colon + 1)...].filter { $0 != 0x0D })
        }
    }

    /// Where `h11` refuses what RFC 9112 allows and we accept, and the input shows it.
    static func h11Stricter(_ input: [UInt8]) -> Comparison? {
        let headLines = head(of: input).split(separator: 0x0A).dropFirst()
        let codings = field("transfer-encoding", in: headLines).map { String(decoding: $0, as: UTF8.self) }
        if codings.contains(where: { $0.split(separator: ",", omittingEmptySubsequences: false).contains { $0.allSatisfy(\.isWhitespace) } }) {
            return .documented("h11 refuses empty elements in Transfer-Encoding (RFC 9110 §5.6.1: MUST ignore them)")
        }
        if field("content-length", in: headLines).contains(where: { $0.filter { $0 != 0x20 && $0 != 0x09 }.count > 20 }) {
            return .documented("h11 refuses a Content-Length of more than 20 digits (RFC 9110 §8.6: 1*DIGIT)")
        }
        let after = lines(afterHead: input)
        if !field("transfer-encoding", in: after).isEmpty || !field("content-length", in: after).isEmpty {
            return .documented("h11 judges trailer fields as header fields (RFC 9110 §6.5.1: we discard them)")
        }
        if input.first == 0x0D {
            return .documented("h11 refuses empty lines before the request-line (RFC 9112 §2.2: SHOULD ignore at least one)")
        }
        let body = input.count > head(of: input).count ? Array(input[head(of: input).count...]) : []
        if zip(body, body.dropFirst()).contains(where: { ($0 == 0x20 || $0 == 0x09) && $1 == UInt8(ascii: ";") }) {
            return .documented("h11 refuses whitespace before a chunk extension (RFC 9112 §7.1.1: BWS)")
        }
        return nil
    }

    static func fieldsDiffer(_ head: HTTPRequestHead, _ verdict: JSONValue) -> String? {
        if verdict["method"]?.stringValue != Hex.encode(Array(head.method.utf8)) { return "different methods" }
        if verdict["target"]?.stringValue != Hex.encode(Array(head.target.utf8)) { return "different targets" }
        if verdict["version"]?.stringValue != "\(head.version.major).\(head.version.minor)" { return "different versions" }
        // h11 reports Transfer-Encoding lower-cased (it only accepts `chunked`): compare that one so.
        func line(_ name: [UInt8], _ value: [UInt8]) -> [String] {
            let lowered = String(decoding: name, as: UTF8.self).lowercased() == "transfer-encoding"
            return [Hex.encode(name), Hex.encode(lowered ? value.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 } : value)]
        }
        let theirs = (verdict["headers"]?.arrayValue ?? []).map { pair in
            let parts = (pair.arrayValue ?? []).compactMap(\.stringValue).compactMap(Hex.decode)
            return parts.count == 2 ? line(parts[0], parts[1]) : []
        }
        let mine = head.headers.lines.map { line(Array($0.name.utf8), $0.value.unicodeScalars.map { UInt8(truncatingIfNeeded: $0.value) }) }
        return theirs == mine ? nil : "different field lines"
    }

    /// Where RFC 9112 (or 9110) lets a server refuse what `h11` accepts, and the input shows
    /// that feature: the difference and the RFC line deciding it; nil for anything else.
    static func documented(_ error: HTTPParserError, _ input: [UInt8]) -> Comparison? {
        let head = Self.head(of: input)
        let lines = head.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        let requestLine = Array(lines.first(where: { !$0.isEmpty && $0 != [0x0D] }) ?? []).filter { $0 != 0x0D }
        let parts = requestLine.split(separator: 0x20, omittingEmptySubsequences: false).map(Array.init)
        func field(_ name: String) -> [[UInt8]] { Self.field(name, in: lines.dropFirst()) }
        let shows: Bool
        let name: String
        switch error {
        case .bareLF:
            shows = zip([0] + input, input).contains { $1 == 0x0A && $0 != 0x0D }
            name = "a bare LF ends a line (RFC 9112 §2.2: MAY recognize)"
        case .obsoleteLineFolding:
            shows = zip(input, input.dropFirst()).contains { $0 == 0x0A && ($1 == 0x20 || $1 == 0x09) }
            name = "obs-fold (RFC 9112 §5.2: reject or replace)"
        case .unknownMethod:
            shows = !["GET", "HEAD", "POST", "PUT", "DELETE", "OPTIONS", "PATCH"].contains(String(decoding: parts.first ?? [], as: UTF8.self))
            name = "a method we do not implement (RFC 9110 §9.1: 501)"
        case .invalidTarget, .asteriskFormWithoutOptions:
            shows = parts.count > 1 && !isPlainTarget(parts[1], method: parts[0])
            name = "a request-target outside the RFC 9112 §3.2 forms or RFC 3986 characters"
        case .unsupportedVersion:
            shows = parts.count > 2 && !parts[2].starts(with: Array("HTTP/1.".utf8))
            name = "an HTTP major version other than 1 (RFC 9110 §15.6.6: 505)"
        case .contentLengthWithTransferEncoding:
            shows = !field("content-length").isEmpty && !field("transfer-encoding").isEmpty
            name = "Content-Length with Transfer-Encoding (RFC 9112 §6.3 item 3: ought to be an error)"
        case .duplicateContentLength:
            shows = field("content-length").count > 1 || field("content-length").contains { $0.contains(UInt8(ascii: ",")) }
            name = "several Content-Length values (RFC 9110 §8.6: MAY reject)"
        case .transferEncodingInHTTP10:
            shows = !field("transfer-encoding").isEmpty && parts.count > 2 && parts[2].starts(with: Array("HTTP/1.0".utf8))
            name = "Transfer-Encoding in HTTP/1.0 (RFC 9112 §6.1: faulty framing)"
        case .invalidFieldValue:
            // In a header or a trailer field (RFC 9110 §5.5 is the grammar of both; h11 checks neither).
            let control = { (byte: UInt8) in (byte < 0x20 && byte != 0x09 && byte != 0x0A && byte != 0x0D) || byte == 0x7F }
            shows = head.contains(where: control)
                || Self.lines(afterHead: input).contains { $0.contains(UInt8(ascii: ":")) && $0.contains(where: control) }
            name = "a control byte in a field value (RFC 9110 §5.5: not field-vchar)"
        case .unsupportedExpectation:
            shows = field("expect").contains { String(decoding: $0, as: UTF8.self).trimmingCharacters(in: .whitespaces).lowercased() != "100-continue" }
            name = "an Expect other than 100-continue (RFC 9110 §10.1.1: 417)"
        case .invalidHost:
            let hosts = field("host").map { String(decoding: $0, as: UTF8.self).trimmingCharacters(in: CharacterSet(charactersIn: " \t")) }
            if hosts.contains("") {
                shows = true
                name = "an empty Host (RFC 9112 §3.2: only for a target without authority, which no request here has)"
            } else {
                shows = hosts.contains { !isPlainHost($0) }
                name = "a Host value that is not uri-host [ \":\" port ] (RFC 9112 §3.2: MUST 400)"
            }
        case .tooManyEmptyLines:
            shows = input.starts(with: [0x0D, 0x0A])
            name = "empty lines before the request-line (RFC 9112 §2.2: SHOULD ignore at least one)"
        case .invalidChunkExtension:
            shows = Self.lines(afterHead: input).contains { $0.contains(UInt8(ascii: ";")) && !isChunkSizeLine($0) }
            name = "a chunk extension outside RFC 9112 §7.1.1's grammar"
        case .bareCR:
            // A CR inside a chunk extension: not in §7.1.1's grammar; h11 reads any bytes after `;` up to CRLF.
            shows = Self.lines(afterHead: input).contains { line in
                guard let semicolon = line.firstIndex(of: UInt8(ascii: ";")) else { return false }
                return line[semicolon...].dropLast().contains(0x0D) || (line.last == 0x0D && line.dropLast().last == 0x0D)
            }
            name = "a chunk extension outside RFC 9112 §7.1.1's grammar"
        case .invalidContentLength:
            shows = field("content-length").contains { value in
                let digits = value.filter { $0 != 0x20 && $0 != 0x09 }
                return digits.count > 18 && digits.allSatisfy { $0 >= 0x30 && $0 <= 0x39 }
            }
            name = "a Content-Length beyond 63 bits (RFC 9110 §8.6: MUST not overflow; we refuse it)"
        case .missingHost:
            shows = field("host").isEmpty && parts.count > 2 && parts[2].count == 8 && parts[2].starts(with: Array("HTTP/1.".utf8))
                && parts[2][7] > UInt8(ascii: "1")
            name = "no Host in HTTP/1.2 and later (RFC 9112 §3.2: MUST 400; RFC 9110 §2.5: read as 1.1)"
        case .invalidChunkSize where startsWithHexDigits(17, input):
            shows = true
            name = "a chunk-size of more than 16 hex digits (RFC 9112 §7.1: MUST not overflow; we refuse it)"
        case .invalidChunkSize:
            shows = Self.lines(afterHead: input).contains { line in
                let size = line.prefix { Self.hexDigits.contains($0) }
                let rest = line.dropFirst(size.count)
                return !size.isEmpty && !rest.isEmpty && rest.allSatisfy { $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }
            }
            name = "whitespace after a chunk-size without an extension (not in RFC 9112 §7.1's grammar)"
        case .bodyTooLarge, .targetTooLong, .fieldLineTooLong, .chunkExtensionTooLong, .headerSectionTooLarge, .tooManyFields, .trailerSectionTooLarge:
            shows = true
            name = "over one of our limits (README, [server] limits)"
        default:
            return nil
        }
        return shows ? .documented(name) : nil
    }

    /// The bytes up to the first empty line (or all).
    static func head(of input: [UInt8]) -> [UInt8] {
        for i in input.indices where input[i] == 0x0A {
            if i + 1 < input.count, input[i + 1] == 0x0A { return Array(input[..<i]) }
            if i + 2 < input.count, input[i + 1] == 0x0D, input[i + 2] == 0x0A { return Array(input[..<i]) }
        }
        return input
    }

    /// An origin-form of RFC 3986 path and query characters with well-formed `%XX`, an
    /// http(s) absolute-form without userinfo, or `*` for OPTIONS.
    static func isPlainTarget(_ target: [UInt8], method: [UInt8]) -> Bool {
        if target == [UInt8(ascii: "*")] { return method == Array("OPTIONS".utf8) }
        let allowed = Set(Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~!$&'()*+,;=:@/?%".utf8))
        guard !target.isEmpty, target.allSatisfy(allowed.contains) else { return false }
        for (i, b) in target.enumerated() where b == UInt8(ascii: "%") {
            let hex = Set(Array("0123456789ABCDEFabcdef".utf8))
            guard i + 2 < target.count, hex.contains(target[i + 1]), hex.contains(target[i + 2]) else { return false }
        }
        if target.first == UInt8(ascii: "/") { return true }
        let text = String(decoding: target, as: UTF8.self).lowercased()
        guard text.hasPrefix("http://") || text.hasPrefix("https://") else { return false }
        let authority = text.drop { $0 != "/" }.dropFirst(2).prefix { $0 != "/" && $0 != "?" }
        return isPlainAuthority(Substring(authority)) && !text.dropFirst(8).contains { $0 == "[" || $0 == "]" }
    }

    /// `uri-host [ ":" port ]` (RFC 9110 §7.2): an IP-literal of hex digits, `:` and `.` in
    /// brackets, or a reg-name (without `,`, which in Host only ever joins two values).
    static func isPlainHost(_ host: String) -> Bool {
        if host.hasPrefix("[") {
            guard let close = host.firstIndex(of: "]") else { return false }
            let literal = host[host.index(after: host.startIndex)..<close]
            let port = host[host.index(after: close)...]
            return !literal.isEmpty && literal.allSatisfy { $0.isHexDigit || $0 == ":" || $0 == "." }
                && (port.isEmpty || (port.first == ":" && port.dropFirst().allSatisfy { $0.isASCII && $0.isNumber }))
        }
        return !host.contains(",") && isPlainAuthority(Substring(host))
    }

    /// `chunk-size *( BWS ";" BWS token [ BWS "=" BWS ( token / quoted-string ) ] ) CR` (RFC 9112 §7.1.1).
    static func isChunkSizeLine(_ line: ArraySlice<UInt8>) -> Bool {
        let text = String(line.map { Character(Unicode.Scalar($0)) })
        let token = #"[!#$%&'*+.^_`|~0-9A-Za-z-]+"#
        let quoted = #""(?:[\t \x21\x23-\x5B\x5D-\x7E\x80-\xFF]|\\[\t \x21-\x7E\x80-\xFF])*""#
        let pattern = "^[0-9A-Fa-f]+(?:[ \t]*;[ \t]*\(token)(?:[ \t]*=[ \t]*(?:\(token)|\(quoted)))?)*\r$"
        return text.range(of: pattern, options: .regularExpression) != nil
    }

    /// `reg-name [ ":" *DIGIT ]`, without userinfo or an IP-literal (RFC 3986 §3.2).
    static func isPlainAuthority(_ authority: Substring) -> Bool {
        let host = authority.prefix { $0 != ":" }
        let port = authority.dropFirst(host.count + 1)
        let regName = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~!$&'()*+;=%")
        let percents = host.indices.filter { host[$0] == "%" }
        let wellEncoded = percents.allSatisfy { i in
            let hex = host[host.index(after: i)...].prefix(2)
            return hex.count == 2 && hex.allSatisfy(\.isHexDigit)
        }
        return !host.isEmpty && host.allSatisfy(regName.contains) && wellEncoded && port.allSatisfy(\.isASCII) && port.allSatisfy(\.isNumber)
    }

    @Test func mutatedRequestsAgreeWithH11() throws {
        let run = try DifferentialRun.run("http", Self.compare)
        #expect(run.inputs == DifferentialRun.inputCount)
        #expect(run.disagreements == 0, "\(run.findingsDescription)")
        #expect(run.counts["agree", default: 0] > run.inputs / 4)
    }

    /// Each documented difference on an input that shows it: h11 reads the head, we refuse it for
    /// that reason, and the comparison names it.
    @Test func documentedDifferencesAreExactlyThose() throws {
        let cases: [(String, String)] = [
            ("GET / HTTP/1.1\nHost: h\n\n", "a bare LF ends a line (RFC 9112 §2.2: MAY recognize)"),
            ("BREW /pot HTTP/1.1\r\nHost: h\r\n\r\n", "a method we do not implement (RFC 9110 §9.1: 501)"),
            ("GET /a\"b HTTP/1.1\r\nHost: h\r\n\r\n", "a request-target outside the RFC 9112 §3.2 forms or RFC 3986 characters"),
            ("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 1\r\nContent-Length: 1\r\n\r\nx", "several Content-Length values (RFC 9110 §8.6: MAY reject)"),
            ("GET / HTTP/1.1\r\nHost: h\r\nX: a\u{1}b\r\n\r\n", "a control byte in a field value (RFC 9110 §5.5: not field-vchar)"),
            ("GET / HTTP/1.1\r\nHost: a b\r\n\r\n", "a Host value that is not uri-host [ \":\" port ] (RFC 9112 §3.2: MUST 400)"),
            ("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n1;a=\"x\r\nx\r\n0\r\n\r\n",
             "a chunk extension outside RFC 9112 §7.1.1's grammar"),
            ("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nX: a\u{1A}b\r\n\r\n",
             "a control byte in a field value (RFC 9110 §5.5: not field-vchar)"),
            ("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n1;a=b\rc\r\nx\r\n0\r\n\r\n",
             "a chunk extension outside RFC 9112 §7.1.1's grammar"),
            ("GET / HTTP/1.1\r\nHost: h\r\nExpect: x\r\n\r\n", "an Expect other than 100-continue (RFC 9110 §10.1.1: 417)"),
            ("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n00000000000000000\r\n\r\n",
             "a chunk-size of more than 16 hex digits (RFC 9112 §7.1: MUST not overflow; we refuse it)"),
            ("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n0\t\r\n\r\n",
             "whitespace after a chunk-size without an extension (not in RFC 9112 §7.1's grammar)"),
            ("GET / HTTP/1.3\r\n\r\n", "no Host in HTTP/1.2 and later (RFC 9112 §3.2: MUST 400; RFC 9110 §2.5: read as 1.1)"),
            ("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 99999999999999999999\r\n\r\n",
             "a Content-Length beyond 63 bits (RFC 9110 §8.6: MUST not overflow; we refuse it)"),
        ]
        let verdicts = try DifferentialRun.judge("http", cases.map { Array($0.0.utf8) })
        for ((text, name), verdict) in zip(cases, verdicts) {
            #expect(verdict["verdict"]?.stringValue == "request", "h11 on \(text.debugDescription): \(verdict)")
            #expect(Self.compare(Array(text.utf8), verdict) == .documented(name), "\(text.debugDescription)")
        }
        var stricter: [(String, String)] = [
            ("\r\nGET / HTTP/1.1\r\nHost: h\r\n\r\n", "h11 refuses empty lines before the request-line (RFC 9112 §2.2: SHOULD ignore at least one)"),
            ("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n1 ;a\r\nx\r\n0\r\n\r\n",
             "h11 refuses whitespace before a chunk extension (RFC 9112 §7.1.1: BWS)"),
        ]
        stricter += [
            ("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: , chunked\r\n\r\n0\r\n\r\n",
             "h11 refuses empty elements in Transfer-Encoding (RFC 9110 §5.6.1: MUST ignore them)"),
            ("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 000000000000000000002\r\n\r\n{}",
             "h11 refuses a Content-Length of more than 20 digits (RFC 9110 §8.6: 1*DIGIT)"),
            ("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nTransfer-Encoding: gzip\r\n\r\n",
             "h11 judges trailer fields as header fields (RFC 9110 §6.5.1: we discard them)"),
        ]
        for (text, name) in stricter {
            let verdict = try DifferentialRun.judge("http", [Array(text.utf8)])[0]
            #expect(verdict["verdict"]?.stringValue == "error" || verdict["bodyError"] != nil, "h11 on \(text.debugDescription): \(verdict)")
            #expect(Self.ours(Array(text.utf8)).ended, "\(text.debugDescription)")
            #expect(Self.compare(Array(text.utf8), verdict) == .documented(name), "\(text.debugDescription)")
        }
        let plain = Array("POST /rpc HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nab\r\n0\r\n\r\n".utf8)
        #expect(Self.compare(plain, try DifferentialRun.judge("http", [plain])[0]) == .agree)
    }
}
