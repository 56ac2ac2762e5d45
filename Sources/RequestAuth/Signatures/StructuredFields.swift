import BadgeCore

// RFC 8941 Structured Field Values: the data model, the strict parser of §4.2 and the
// serialiser of §4.1. Only what RFC 9421 and RFC 9530 need (no Date or Display String
// of RFC 9651). Containers keep insertion order; values are compared structurally.

/// A decimal of RFC 8941 §3.3.2, held exactly as thousandths (at most 3 fraction digits).
package struct SFDecimal: Hashable, Sendable, CustomStringConvertible {
    /// The value times 1000.
    package let thousandths: Int64

    package init(thousandths: Int64) { self.thousandths = thousandths }

    package var description: String { StructuredFieldSerializer.decimal(self) }
}

/// A bare item (RFC 8941 §3.3).
package enum SFBareItem: Hashable, Sendable {
    case integer(Int64)
    case decimal(SFDecimal)
    case string(String)
    case token(String)
    case byteSequence([UInt8])
    case boolean(Bool)
}

/// Ordered parameters (RFC 8941 §3.1.2). Setting an existing key overwrites its value in place.
package struct SFParameters: Hashable, Sendable, Sequence {
    package struct Entry: Hashable, Sendable {
        package let key: String
        package var value: SFBareItem
    }

    package private(set) var entries: [Entry] = []
    // Key → position past `smallCount` entries, so parsing a long field stays linear (the fields
    // arrive unauthenticated); the few parameters of a signature are searched in place.
    private var index: SmallKeyIndex = SmallKeyIndex()

    package init() {}

    package init(_ pairs: [(String, SFBareItem)]) {
        for (k, v) in pairs { self[k] = v }
    }

    package subscript(key: String) -> SFBareItem? {
        get { index.position(of: key, in: entries.lazy.map(\.key)).map { entries[$0].value } }
        set {
            if let i = index.position(of: key, in: entries.lazy.map(\.key)) {
                if let newValue {
                    entries[i].value = newValue
                } else {
                    entries.remove(at: i)
                    index.rebuild(entries.map(\.key))
                }
            } else if let newValue {
                entries.append(Entry(key: key, value: newValue))
                index.appended(key, count: entries.count, keys: entries.map(\.key))
            }
        }
    }

    package static func == (a: SFParameters, b: SFParameters) -> Bool { a.entries == b.entries }
    package func hash(into hasher: inout Hasher) { hasher.combine(entries) }

    package var isEmpty: Bool { entries.isEmpty }
    package var keys: [String] { entries.map(\.key) }
    package func makeIterator() -> IndexingIterator<[Entry]> { entries.makeIterator() }
}

/// An item: a bare item with parameters (RFC 8941 §3.3).
package struct SFItem: Hashable, Sendable {
    package var bareItem: SFBareItem
    package var parameters: SFParameters

    package init(_ bareItem: SFBareItem, parameters: SFParameters = SFParameters()) {
        self.bareItem = bareItem
        self.parameters = parameters
    }
}

/// An inner list: items with parameters of their own (RFC 8941 §3.1.1).
package struct SFInnerList: Hashable, Sendable {
    package var items: [SFItem]
    package var parameters: SFParameters

    package init(_ items: [SFItem], parameters: SFParameters = SFParameters()) {
        self.items = items
        self.parameters = parameters
    }
}

/// A member of a List or Dictionary: an item or an inner list.
package enum SFMember: Hashable, Sendable {
    case item(SFItem)
    case innerList(SFInnerList)
}

/// An ordered Dictionary (RFC 8941 §3.2). Setting an existing key overwrites its value in place.
package struct SFDictionary: Hashable, Sendable {
    package struct Entry: Hashable, Sendable {
        package let key: String
        package var member: SFMember
    }

    package private(set) var entries: [Entry] = []
    // Key → position, as in SFParameters.
    private var index: SmallKeyIndex = SmallKeyIndex()

    package init() {}

    package init(_ pairs: [(String, SFMember)]) {
        for (k, v) in pairs { self[k] = v }
    }

    package subscript(key: String) -> SFMember? {
        get { index.position(of: key, in: entries.lazy.map(\.key)).map { entries[$0].member } }
        set {
            if let i = index.position(of: key, in: entries.lazy.map(\.key)) {
                if let newValue {
                    entries[i].member = newValue
                } else {
                    entries.remove(at: i)
                    index.rebuild(entries.map(\.key))
                }
            } else if let newValue {
                entries.append(Entry(key: key, member: newValue))
                index.appended(key, count: entries.count, keys: entries.map(\.key))
            }
        }
    }

    package static func == (a: SFDictionary, b: SFDictionary) -> Bool { a.entries == b.entries }
    package func hash(into hasher: inout Hasher) { hasher.combine(entries) }

    package var count: Int { entries.count }
    package var keys: [String] { entries.map(\.key) }
}

/// Positions of the keys of an ordered map: searched in place while there are few (no hashing,
/// no allocation: a signature's fields hold one member and two or three parameters), indexed
/// by a dictionary past `smallCount` so that a long hostile field still parses in linear time.
private struct SmallKeyIndex: Sendable {
    static let smallCount = 8
    private var byKey: [String: Int]?

    func position(of key: String, in keys: some Collection<String>) -> Int? {
        if let byKey { return byKey[key] }
        var i = 0
        for k in keys {
            if k == key { return i }
            i += 1
        }
        return nil
    }

    /// After `key` was appended as entry number `count` (`keys`, all of them, is read only when
    /// the index is first built).
    mutating func appended(_ key: String, count: Int, keys: @autoclosure () -> [String]) {
        if byKey != nil {
            byKey![key] = count - 1
        } else if count > Self.smallCount {
            rebuild(keys())
        }
    }

    mutating func rebuild(_ keys: [String]) {
        byKey = keys.count > Self.smallCount
            ? Dictionary(uniqueKeysWithValues: keys.enumerated().map { ($1, $0) }) : nil
    }
}

/// Why a field value is not a valid structured field.
package enum StructuredFieldError: Error, Hashable, Sendable {
    /// The text breaks the grammar of RFC 8941 §4.2; `offset` is the byte where parsing stopped.
    case syntax(offset: Int)
    /// A key appeared twice where the caller asked for duplicates to be refused.
    case duplicateKey(String)
    /// A value cannot be serialised (out of range integer, bad token, non-ASCII string…).
    case unserialisable
}

/// What to do when a Dictionary or Parameters repeats a key.
package enum SFDuplicateKeyPolicy: Sendable {
    /// RFC 8941 §4.2.2 / §4.2.3.2: the later value overwrites the earlier one, keeping its position.
    case lastWins
    /// Refuse: for signature and digest fields, where a repeated key can only be an attempt at ambiguity.
    case reject
}

/// Parses structured field values strictly per RFC 8941 §4.2.
package struct StructuredFieldParser {
    private let bytes: [UInt8]
    private var pos = 0
    private let duplicates: SFDuplicateKeyPolicy

    private init(_ text: String, duplicates: SFDuplicateKeyPolicy) {
        bytes = Array(text.utf8)
        self.duplicates = duplicates
    }

    /// Parses a Dictionary field value (the combined field lines).
    package static func dictionary(_ text: String, duplicates: SFDuplicateKeyPolicy = .lastWins) throws(StructuredFieldError) -> SFDictionary {
        var p = StructuredFieldParser(text, duplicates: duplicates)
        return try p.topLevel { p throws(StructuredFieldError) in try p.parseDictionary() }
    }

    /// Parses a List field value.
    package static func list(_ text: String, duplicates: SFDuplicateKeyPolicy = .lastWins) throws(StructuredFieldError) -> [SFMember] {
        var p = StructuredFieldParser(text, duplicates: duplicates)
        return try p.topLevel { p throws(StructuredFieldError) in try p.parseList() }
    }

    /// Parses an Item field value.
    package static func item(_ text: String, duplicates: SFDuplicateKeyPolicy = .lastWins) throws(StructuredFieldError) -> SFItem {
        var p = StructuredFieldParser(text, duplicates: duplicates)
        return try p.topLevel { p throws(StructuredFieldError) in try p.parseItem() }
    }

    // §4.2: leading and trailing SP are discarded, anything else left over is an error.
    // Bytes outside ASCII can never be valid, so they fail wherever they appear.
    private mutating func topLevel<T>(_ body: (inout StructuredFieldParser) throws(StructuredFieldError) -> T) throws(StructuredFieldError) -> T {
        skipSP()
        let value = try body(&self)
        skipSP()
        guard pos == bytes.count else { throw .syntax(offset: pos) }
        return value
    }

    private var peek: UInt8? { pos < bytes.count ? bytes[pos] : nil }
    private var atEnd: Bool { pos >= bytes.count }

    private mutating func skipSP() { while peek == 0x20 { pos += 1 } }
    private mutating func skipOWS() { while peek == 0x20 || peek == 0x09 { pos += 1 } }
    private func fail() -> StructuredFieldError { .syntax(offset: pos) }

    // §4.2.1
    private mutating func parseList() throws(StructuredFieldError) -> [SFMember] {
        var members: [SFMember] = []
        while !atEnd {
            members.append(try parseItemOrInnerList())
            skipOWS()
            if atEnd { return members }
            guard peek == UInt8(ascii: ",") else { throw fail() }
            pos += 1
            skipOWS()
            if atEnd { throw fail() }  // trailing comma
        }
        return members
    }

    private mutating func parseItemOrInnerList() throws(StructuredFieldError) -> SFMember {
        if peek == UInt8(ascii: "(") { return .innerList(try parseInnerList()) }
        return .item(try parseItem())
    }

    // §4.2.1.2
    private mutating func parseInnerList() throws(StructuredFieldError) -> SFInnerList {
        guard peek == UInt8(ascii: "(") else { throw fail() }
        pos += 1
        var items: [SFItem] = []
        while !atEnd {
            skipSP()
            if peek == UInt8(ascii: ")") {
                pos += 1
                return SFInnerList(items, parameters: try parseParameters())
            }
            items.append(try parseItem())
            guard peek == 0x20 || peek == UInt8(ascii: ")") else { throw fail() }
        }
        throw fail()  // no closing parenthesis
    }

    // §4.2.2
    private mutating func parseDictionary() throws(StructuredFieldError) -> SFDictionary {
        var dict = SFDictionary()
        while !atEnd {
            let key = try parseKey()
            let member: SFMember
            if peek == UInt8(ascii: "=") {
                pos += 1
                member = try parseItemOrInnerList()
            } else {
                member = .item(SFItem(.boolean(true), parameters: try parseParameters()))
            }
            if dict[key] != nil, duplicates == .reject { throw .duplicateKey(key) }
            dict[key] = member
            skipOWS()
            if atEnd { return dict }
            guard peek == UInt8(ascii: ",") else { throw fail() }
            pos += 1
            skipOWS()
            if atEnd { throw fail() }  // trailing comma
        }
        return dict
    }

    // §4.2.3
    private mutating func parseItem() throws(StructuredFieldError) -> SFItem {
        let bare = try parseBareItem()
        return SFItem(bare, parameters: try parseParameters())
    }

    // §4.2.3.1
    private mutating func parseBareItem() throws(StructuredFieldError) -> SFBareItem {
        guard let c = peek else { throw fail() }
        switch c {
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "*"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"):
            return .token(parseToken())
        case UInt8(ascii: ":"): return .byteSequence(try parseByteSequence())
        case UInt8(ascii: "?"): return .boolean(try parseBoolean())
        default: throw fail()
        }
    }

    // §4.2.3.2
    private mutating func parseParameters() throws(StructuredFieldError) -> SFParameters {
        var params = SFParameters()
        while peek == UInt8(ascii: ";") {
            pos += 1
            skipSP()
            let key = try parseKey()
            var value = SFBareItem.boolean(true)
            if peek == UInt8(ascii: "=") {
                pos += 1
                value = try parseBareItem()
            }
            if params[key] != nil, duplicates == .reject { throw .duplicateKey(key) }
            params[key] = value
        }
        return params
    }

    // §4.2.3.3: key = ( lcalpha / "*" ) *( lcalpha / DIGIT / "_" / "-" / "." / "*" )
    private mutating func parseKey() throws(StructuredFieldError) -> String {
        guard let first = peek, first == UInt8(ascii: "*") || isLCAlpha(first) else { throw fail() }
        let start = pos
        pos += 1
        while let c = peek, isKeyChar(c) { pos += 1 }
        return String(decoding: bytes[start..<pos], as: UTF8.self)
    }

    // §4.2.4: integers of at most 15 digits; decimals of at most 12 integer and 3 fraction digits.
    private mutating func parseNumber() throws(StructuredFieldError) -> SFBareItem {
        var negative = false
        if peek == UInt8(ascii: "-") {
            negative = true
            pos += 1
        }
        guard let first = peek, isDigit(first) else { throw fail() }
        var integerDigits: [UInt8] = []
        var fractionDigits: [UInt8] = []
        var isDecimal = false
        while let c = peek {
            if isDigit(c) {
                if isDecimal { fractionDigits.append(c) } else { integerDigits.append(c) }
                pos += 1
            } else if c == UInt8(ascii: "."), !isDecimal {
                if integerDigits.count > 12 { throw fail() }
                isDecimal = true
                pos += 1
            } else {
                break
            }
            if !isDecimal, integerDigits.count > 15 { throw fail() }
            if isDecimal, integerDigits.count + 1 + fractionDigits.count > 16 { throw fail() }
        }
        func value(_ digits: [UInt8]) -> Int64 { digits.reduce(0) { $0 * 10 + Int64($1 - 0x30) } }
        if !isDecimal {
            let v = value(integerDigits)
            return .integer(negative ? -v : v)
        }
        guard !fractionDigits.isEmpty, fractionDigits.count <= 3 else { throw fail() }
        let padded = fractionDigits + [UInt8](repeating: 0x30, count: 3 - fractionDigits.count)
        let v = value(integerDigits) * 1000 + value(padded)
        return .decimal(SFDecimal(thousandths: negative ? -v : v))
    }

    // §4.2.5: only printable ASCII; the escapes are \" and \\ and nothing else.
    private mutating func parseString() throws(StructuredFieldError) -> String {
        pos += 1  // opening DQUOTE
        // A string without escapes is made from its run of bytes at once (appending byte by byte
        // regrew the buffer about twice a string, seven strings a signed request); the first
        // escape switches to copying.
        let start = pos
        var unescaped: [UInt8]?
        while let c = peek {
            pos += 1
            if c == UInt8(ascii: "\\") {
                guard let next = peek, next == UInt8(ascii: "\"") || next == UInt8(ascii: "\\") else { throw fail() }
                if unescaped == nil { unescaped = Array(bytes[start..<pos - 1]) }
                unescaped?.append(next)
                pos += 1
            } else if c == UInt8(ascii: "\"") {
                if let unescaped { return String(decoding: unescaped, as: UTF8.self) }
                return String(decoding: bytes[start..<pos - 1], as: UTF8.self)
            } else if c < 0x20 || c > 0x7E {
                pos -= 1
                throw fail()
            } else {
                unescaped?.append(c)
            }
        }
        throw fail()  // unterminated
    }

    // §4.2.6: token = ( ALPHA / "*" ) *( tchar / ":" / "/" )
    private mutating func parseToken() -> String {
        let start = pos
        pos += 1
        while let c = peek, isTChar(c) || c == UInt8(ascii: ":") || c == UInt8(ascii: "/") { pos += 1 }
        return String(decoding: bytes[start..<pos], as: UTF8.self)
    }

    // §4.2.7: ":" base64 ":"; padding may be absent, non-zero pad bits are refused (allowed by the RFC).
    private mutating func parseByteSequence() throws(StructuredFieldError) -> [UInt8] {
        pos += 1
        let start = pos
        while let c = peek, c != UInt8(ascii: ":") {
            guard isAlpha(c) || isDigit(c) || c == UInt8(ascii: "+") || c == UInt8(ascii: "/") || c == UInt8(ascii: "=") else {
                throw fail()
            }
            pos += 1
        }
        guard peek == UInt8(ascii: ":") else { throw fail() }
        let text = String(decoding: bytes[start..<pos], as: UTF8.self)
        guard let decoded = Base64URL.decodeStandard(text) else { throw .syntax(offset: start) }
        pos += 1
        return decoded
    }

    // §4.2.8
    private mutating func parseBoolean() throws(StructuredFieldError) -> Bool {
        pos += 1
        switch peek {
        case UInt8(ascii: "1"): pos += 1; return true
        case UInt8(ascii: "0"): pos += 1; return false
        default: throw fail()
        }
    }
}

private func isDigit(_ c: UInt8) -> Bool { c >= 0x30 && c <= 0x39 }
private func isLCAlpha(_ c: UInt8) -> Bool { c >= 0x61 && c <= 0x7A }
private func isAlpha(_ c: UInt8) -> Bool { isLCAlpha(c) || (c >= 0x41 && c <= 0x5A) }
private func isKeyChar(_ c: UInt8) -> Bool {
    isLCAlpha(c) || isDigit(c) || c == UInt8(ascii: "_") || c == UInt8(ascii: "-") || c == UInt8(ascii: ".") || c == UInt8(ascii: "*")
}
// RFC 9110 §5.6.2 tchar
private func isTChar(_ c: UInt8) -> Bool {
    isAlpha(c) || isDigit(c) || tcharSymbols.contains(c)
}
private let tcharSymbols: [UInt8] = Array("!#$%&'*+-.^_`|~".utf8)

/// Serialises structured field values per RFC 8941 §4.1; refuses values the grammar cannot carry.
///
/// Every form is written into one byte buffer and made a String once: joining a String per
/// member and parameter made serialising a signature's parameters about 30k instructions, a
/// sixtieth of verifying a signed request (issue 17's profile).
package enum StructuredFieldSerializer {
    /// §4.1.2
    package static func dictionary(_ dict: SFDictionary) throws(StructuredFieldError) -> String {
        try text { out throws(StructuredFieldError) in try write(dict, into: &out) }
    }

    /// §4.1.1
    package static func list(_ members: [SFMember]) throws(StructuredFieldError) -> String {
        try text { out throws(StructuredFieldError) in
            for (n, m) in members.enumerated() {
                if n > 0 { out.append(contentsOf: [0x2C, 0x20]) }  // ", "
                try write(m, into: &out)
            }
        }
    }

    package static func member(_ m: SFMember) throws(StructuredFieldError) -> String {
        try text { out throws(StructuredFieldError) in try write(m, into: &out) }
    }

    /// §4.1.1.1
    package static func innerList(_ list: SFInnerList) throws(StructuredFieldError) -> String {
        try text { out throws(StructuredFieldError) in try write(list, into: &out) }
    }

    /// §4.1.3
    package static func item(_ item: SFItem) throws(StructuredFieldError) -> String {
        try text { out throws(StructuredFieldError) in try write(item, into: &out) }
    }

    /// §4.1.1.2
    package static func parameters(_ params: SFParameters) throws(StructuredFieldError) -> String {
        try text { out throws(StructuredFieldError) in try write(params, into: &out) }
    }

    /// §4.1.1.3
    package static func key(_ k: String) throws(StructuredFieldError) -> String {
        var none: [UInt8] = []
        try writeKey(k, into: &none)
        return k
    }

    /// §4.1.3.1
    package static func bareItem(_ bare: SFBareItem) throws(StructuredFieldError) -> String {
        try text { out throws(StructuredFieldError) in try write(bare, into: &out) }
    }

    private static func text(_ body: (inout [UInt8]) throws(StructuredFieldError) -> Void) throws(StructuredFieldError) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(128)
        try body(&out)
        return String(decoding: out, as: UTF8.self)
    }

    /// §4.1.2, appended to `out`.
    package static func write(_ dict: SFDictionary, into out: inout [UInt8]) throws(StructuredFieldError) {
        for (n, entry) in dict.entries.enumerated() {
            if n > 0 { out.append(contentsOf: [0x2C, 0x20]) }  // ", "
            try writeKey(entry.key, into: &out)
            if case .item(let item) = entry.member, item.bareItem == .boolean(true) {
                try write(item.parameters, into: &out)
            } else {
                out.append(UInt8(ascii: "="))
                try write(entry.member, into: &out)
            }
        }
    }

    package static func write(_ m: SFMember, into out: inout [UInt8]) throws(StructuredFieldError) {
        switch m {
        case .item(let i): try write(i, into: &out)
        case .innerList(let l): try write(l, into: &out)
        }
    }

    /// §4.1.1.1, appended to `out`.
    package static func write(_ list: SFInnerList, into out: inout [UInt8]) throws(StructuredFieldError) {
        out.append(UInt8(ascii: "("))
        for (n, i) in list.items.enumerated() {
            if n > 0 { out.append(0x20) }
            try write(i, into: &out)
        }
        out.append(UInt8(ascii: ")"))
        try write(list.parameters, into: &out)
    }

    /// §4.1.3, appended to `out`.
    package static func write(_ item: SFItem, into out: inout [UInt8]) throws(StructuredFieldError) {
        try write(item.bareItem, into: &out)
        try write(item.parameters, into: &out)
    }

    /// §4.1.1.2, appended to `out`.
    package static func write(_ params: SFParameters, into out: inout [UInt8]) throws(StructuredFieldError) {
        for entry in params {
            out.append(UInt8(ascii: ";"))
            try writeKey(entry.key, into: &out)
            if entry.value != .boolean(true) {
                out.append(UInt8(ascii: "="))
                try write(entry.value, into: &out)
            }
        }
    }

    /// §4.1.1.3, appended to `out`.
    private static func writeKey(_ k: String, into out: inout [UInt8]) throws(StructuredFieldError) {
        guard let first = k.utf8.first, first == UInt8(ascii: "*") || isLCAlpha(first), k.utf8.allSatisfy(isKeyChar) else {
            throw .unserialisable
        }
        out.append(contentsOf: k.utf8)
    }

    /// §4.1.3.1, appended to `out`.
    package static func write(_ bare: SFBareItem, into out: inout [UInt8]) throws(StructuredFieldError) {
        switch bare {
        case .integer(let v):
            guard v >= -999_999_999_999_999, v <= 999_999_999_999_999 else { throw .unserialisable }
            out.append(contentsOf: String(v).utf8)
        case .decimal(let d):
            guard d.thousandths.magnitude / 1000 <= 999_999_999_999 else { throw .unserialisable }
            out.append(contentsOf: decimal(d).utf8)
        case .string(let s):
            out.append(UInt8(ascii: "\""))
            var text = s
            // Checked first, then copied in one go unless something needs escaping: a byte-by-byte
            // append (a capacity check each) cost more than the check (the key id of every signature).
            // nil: a byte outside the string's range; true: copied as it is; false: needs escapes.
            let copied = text.withUTF8 { bytes -> Bool? in
                var escapes = false
                for c in bytes {
                    guard c >= 0x20, c <= 0x7E else { return nil }
                    escapes = escapes || c == UInt8(ascii: "\"") || c == UInt8(ascii: "\\")
                }
                if !escapes { out.append(contentsOf: bytes) }
                return !escapes
            }
            guard let copied else { throw .unserialisable }
            if !copied {
                for c in s.utf8 {
                    if c == UInt8(ascii: "\"") || c == UInt8(ascii: "\\") { out.append(UInt8(ascii: "\\")) }
                    out.append(c)
                }
            }
            out.append(UInt8(ascii: "\""))
        case .token(let t):
            guard let first = t.utf8.first, first == UInt8(ascii: "*") || isAlpha(first),
                  t.utf8.allSatisfy({ isTChar($0) || $0 == UInt8(ascii: ":") || $0 == UInt8(ascii: "/") })
            else { throw .unserialisable }
            out.append(contentsOf: t.utf8)
        case .byteSequence(let bytes):
            out.append(UInt8(ascii: ":"))
            out.append(contentsOf: Base64URL.encodeStandard(bytes).utf8)
            out.append(UInt8(ascii: ":"))
        case .boolean(let b):
            out.append(contentsOf: [UInt8(ascii: "?"), b ? UInt8(ascii: "1") : UInt8(ascii: "0")])
        }
    }

    // §4.1.5: at least one fraction digit, trailing zeros dropped.
    static func decimal(_ d: SFDecimal) -> String {
        let sign = d.thousandths < 0 ? "-" : ""
        let m = d.thousandths.magnitude
        var fraction = String(m % 1000)
        fraction = String(repeating: "0", count: 3 - fraction.count) + fraction
        while fraction.count > 1, fraction.hasSuffix("0") { fraction.removeLast() }
        return "\(sign)\(m / 1000).\(fraction)"
    }
}
