import JSON

import Testing

@Suite struct JSONParserTests {
    @Test(arguments: [
        ("null", JSONValue.null), ("true", true), ("false", false), ("0", 0), ("-0", 0), ("12", 12),
        ("\"\"", ""), ("[]", []), ("{}", [:]), (" \t\r\n[ 1 , {\"a\" : null} ] \n", [1, ["a": nil]]),
        ("\"\\\"\\\\\\/\\b\\f\\n\\r\\t\"", "\"\\/\u{8}\u{c}\n\r\t"), ("\"\\u00e9\\u20AC\"", "é€"),
        ("\"\\ud83d\\ude00\"", "😀"), ("\"é😀\"", "é😀"), ("\"\\u0000\"", "\u{0}"),
        ("1.5", 1.5), ("-2.5e-3", -0.0025), ("1E2", 100), ("4294967295", 4_294_967_295),
    ] as [(String, JSONValue)])
    func accepts(_ text: String, _ expected: JSONValue) throws {
        #expect(try JSONValue.parse(text) == expected)
    }

    @Test(arguments: [
        ("", 0, JSONParseError.Reason.empty),
        ("  ", 2, .unexpectedEnd),
        ("[1,]", 3, .unexpectedByte(0x5D)),
        ("[1 2]", 3, .unexpectedByte(0x32)),
        ("{\"a\":1,}", 7, .unexpectedByte(0x7D)),
        ("{'a':1}", 1, .unexpectedByte(0x27)),
        ("{\"a\" 1}", 5, .unexpectedByte(0x31)),
        ("{a:1}", 1, .unexpectedByte(0x61)),
        ("1 2", 2, .trailingData),
        ("{} x", 3, .trailingData),
        ("nul", 3, .unexpectedEnd),
        ("nulL", 3, .unexpectedByte(0x4C)),
        ("True", 0, .unexpectedByte(0x54)),
        ("NaN", 0, .unexpectedByte(0x4E)),
        ("-Infinity", 1, .invalidNumber),
        ("Infinity", 0, .unexpectedByte(0x49)),
        ("01", 0, .leadingZero),
        ("-012", 1, .leadingZero),
        ("+1", 0, .unexpectedByte(0x2B)),
        (".5", 0, .unexpectedByte(0x2E)),
        ("1.", 2, .unexpectedEnd),
        ("1.e3", 2, .invalidNumber),
        ("1e", 2, .unexpectedEnd),
        ("1e+", 3, .unexpectedEnd),
        ("-", 1, .unexpectedEnd),
        ("0x10", 1, .trailingData),
        ("1e400", 0, .numberOutOfRange),
        ("-1e309", 0, .numberOutOfRange),
        ("\"abc", 4, .unexpectedEnd),
        ("\"a\tb\"", 2, .controlCharacter),
        ("\"a\nb\"", 2, .controlCharacter),
        ("\"\\x\"", 1, .invalidEscape),
        ("\"\\u12\"", 5, .invalidEscape),
        ("\"\\ud800\"", 1, .loneSurrogate),
        ("\"\\udc00\"", 1, .loneSurrogate),
        ("\"\\ud800\\u0041\"", 1, .loneSurrogate),
        ("\"\\ud800x\"", 1, .loneSurrogate),
        ("{\"a\":1,\"a\":2}", 7, .duplicateKey("a")),
        ("{\"b\":{},\"a\":[],\"b\":null}", 15, .duplicateKey("b")),
        ("{\"a\\u0062\":1,\"ab\":2}", 13, .duplicateKey("ab")),
    ] as [(String, Int, JSONParseError.Reason)])
    func refuses(_ text: String, _ offset: Int, _ reason: JSONParseError.Reason) {
        #expect(throws: JSONParseError(offset: offset, reason: reason)) { try JSONValue.parse(text) }
    }

    @Test(arguments: [
        ([0x22, 0xC3, 0x28, 0x22], 2),            // bad continuation byte
        ([0x22, 0xC0, 0xAF, 0x22], 1),            // overlong '/'
        ([0x22, 0xE0, 0x80, 0xAF, 0x22], 2),      // overlong 3-byte
        ([0x22, 0xED, 0xA0, 0x80, 0x22], 2),      // UTF-8-encoded surrogate U+D800
        ([0x22, 0xF4, 0x90, 0x80, 0x80, 0x22], 2), // above U+10FFFF
        ([0x22, 0xF5, 0x80, 0x80, 0x80, 0x22], 1),
        ([0x22, 0xFF, 0x22], 1),
        ([0x22, 0x80, 0x22], 1),                  // lone continuation byte
        ([0xC3, 0xA9], 0),                        // non-ASCII outside a string
    ] as [([UInt8], Int)])
    func refusesInvalidUTF8(_ bytes: [UInt8], _ offset: Int) {
        #expect(throws: JSONParseError(offset: offset, reason: .invalidUTF8)) { try JSONValue.parse(bytes) }
    }

    @Test func refusesTruncatedUTF8AndBOM() {
        #expect(throws: JSONParseError(offset: 3, reason: .unexpectedEnd)) { try JSONValue.parse([0x22, 0xE2, 0x82]) }
        #expect(throws: JSONParseError(offset: 0, reason: .byteOrderMark)) { try JSONValue.parse([0xEF, 0xBB, 0xBF, 0x31]) }
    }

    @Test func depthLimit() throws {
        let parser = JSONParser(maxDepth: 4)
        _ = try parser.parse("[[{\"a\":[1]}]]")
        #expect(throws: JSONParseError(offset: 8, reason: .tooDeep(limit: 4))) { try parser.parse("[[{\"a\":[[1]]}]]") }
        let deep = String(repeating: "[", count: 65) + String(repeating: "]", count: 65)
        #expect(throws: JSONParseError(offset: 64, reason: .tooDeep(limit: 64))) { try JSONValue.parse(deep) }
        let ok = String(repeating: "[", count: 64) + String(repeating: "]", count: 64)
        _ = try JSONValue.parse(ok)
        // Far deeper input fails cleanly, without exhausting the stack.
        #expect(throws: JSONParseError.self) { try JSONValue.parse(String(repeating: "[", count: 100_000)) }
    }

    @Test func duplicateDetectionInLargeObjects() throws {
        let members = (0..<200).map { "\"k\($0)\":\($0)" }
        let object = try JSONValue.parse("{" + members.joined(separator: ",") + "}")
        #expect(object.objectValue?.count == 200)
        #expect(object["k150"] == 150)
        #expect(throws: JSONParseError.self) { try JSONValue.parse("{" + (members + ["\"k7\":0"]).joined(separator: ",") + "}") }
    }

    /// Objects of every size either side of the point where the parser starts hashing names: each
    /// duplicate is found, at its offset, and the members keep their order.
    @Test func duplicateDetectionAtEverySize() throws {
        for size in 1...30 {
            let members = (0..<size).map { "\"k\($0)\":\($0)" }
            let text = "{" + members.joined(separator: ",") + "}"
            let object = try #require(try JSONValue.parse(text).objectValue, "size \(size)")
            #expect(object.keys == (0..<size).map { "k\($0)" })
            for repeated in 0..<size {
                let prefix = "{" + members.joined(separator: ",") + ","
                let duplicated = prefix + "\"k\(repeated)\":0}"
                #expect(throws: JSONParseError(offset: prefix.utf8.count, reason: .duplicateKey("k\(repeated)"))) {
                    try JSONValue.parse(duplicated)
                }
            }
        }
    }

    /// Names are unique per object: an inner object may repeat its parent's and its siblings' names,
    /// and the parent's check does not see the inner members.
    @Test func namesAreUniquePerObject() throws {
        let inner = "{" + (0..<15).map { "\"k\($0)\":{\"k\($0)\":\($0)}" }.joined(separator: ",") + "}"
        let text = "{\"k0\":\(inner),\"k1\":\(inner),\"k2\":[\(inner),\(inner)]}"
        let object = try #require(try JSONValue.parse(text).objectValue)
        #expect(object.keys == ["k0", "k1", "k2"])
        #expect(object["k1"]?["k14"]?["k14"] == 14)
        let prefix = "{\"k0\":\(inner),\"k1\":\(inner),"
        #expect(throws: JSONParseError(offset: prefix.utf8.count, reason: .duplicateKey("k0"))) {
            try JSONValue.parse(prefix + "\"k0\":1}")
        }
    }

    /// Canonically equivalent but differently encoded names are different JSON names.
    @Test func namesCompareByBytes() throws {
        let object = try #require(try JSONValue.parse("{\"\u{E9}\":1,\"e\u{301}\":2}").objectValue)
        #expect(object.count == 2)
        #expect(object["\u{E9}"] == 1)
        #expect(object["e\u{301}"] == 2)
        #expect(JSONValue.string("\u{E9}") != JSONValue.string("e\u{301}"))
    }

    /// Integrality is read from the literal, not from the rounded Double.
    @Test(arguments: [
        ("1", true), ("1.0", true), ("1.50e1", true), ("100e-2", true), ("0.000", true), ("-0.0e5", true),
        ("1e20", true), ("1.5", false), ("1e-1", false), ("1.0000000000000000001", false),
        ("4294967295.00000000001", false), ("12300e-2", true), ("12301e-2", false),
    ])
    func integrality(_ text: String, _ isInteger: Bool) throws {
        let number = try #require(try JSONValue.parse(text).numberValue)
        #expect(number.isInteger == isInteger)
    }

    @Test func keepsMemberOrder() throws {
        let object = try #require(try JSONValue.parse("{\"z\":1,\"a\":2,\"m\":3}").objectValue)
        #expect(object.keys == ["z", "a", "m"])
    }
}

@Suite struct JSONSerializerTests {
    @Test(arguments: [
        ("{ \"b\" : [1, 2.5, -3, true, false, null], \"a\" : {} }", "{\"b\":[1,2.5,-3,true,false,null],\"a\":{}}"),
        ("1.0", "1"), ("-0", "0"), ("1E2", "100"), ("0.1", "0.1"), ("1e300", "1e+300"), ("4294967295", "4294967295"),
        ("9007199254740993", "9007199254740992"),
        ("\"\\u0041\\u00e9\\ud83d\\ude00\"", "\"Aé😀\""),
        ("\"\\\"\\\\\\/\\b\\f\\n\\r\\t\\u0001\\u001f\\u007f\"", "\"\\\"\\\\/\\b\\f\\n\\r\\t\\u0001\\u001f\u{7f}\""),
        ("\"\\u2028\"", "\"\u{2028}\""),
    ])
    func compact(_ input: String, _ output: String) throws {
        let value = try JSONValue.parse(input)
        #expect(String(decoding: value.serialized(), as: UTF8.self) == output)
        #expect(try JSONValue.parse(value.serialized()) == value)
    }

    @Test func builtValues() {
        var object = JSONObject()
        object["type"] = "error"
        object["code"] = "rate_limited"
        object["retryAfter"] = .number(JSONNumber(60))
        object["ratio"] = .number(JSONNumber(0.25))
        object["nan"] = .number(JSONNumber(Double.nan))
        #expect(JSONValue.object(object).description == "{\"type\":\"error\",\"code\":\"rate_limited\",\"retryAfter\":60,\"ratio\":0.25,\"nan\":null}")
        object["code"] = nil
        #expect(object.keys == ["type", "retryAfter", "ratio", "nan"])
    }

    /// Every byte value inside a string survives a serialize → parse round trip.
    @Test func allCharactersRoundTrip() throws {
        var scalars = (0..<0x300).compactMap(Unicode.Scalar.init).map(Character.init)
        scalars += ["\u{FFFF}", "\u{10FFFF}", "😀", "\u{FEFF}"]
        let text = String(scalars)
        let value = JSONValue.array([.string(text), ["k\u{0}\"": .string(text)]])
        #expect(try JSONValue.parse(value.serialized()) == value)
    }
}
