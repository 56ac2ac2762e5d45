import RequestAuth
import Testing

// RFC 8941 §4.2 grammar edge cases (parsing) and §4.1 canonical output (serialisation).
@Suite struct StructuredFieldsTests {
    @Test(arguments: [
        ("42", SFBareItem.integer(42)),
        ("-42", .integer(-42)),
        ("-0", .integer(0)),
        ("007", .integer(7)),
        ("999999999999999", .integer(999_999_999_999_999)),
        ("-999999999999999", .integer(-999_999_999_999_999)),
        ("1.5", .decimal(SFDecimal(thousandths: 1500))),
        ("-1.25", .decimal(SFDecimal(thousandths: -1250))),
        ("123456789012.123", .decimal(SFDecimal(thousandths: 123_456_789_012_123))),
        ("\"foo\"", .string("foo")),
        ("\"\"", .string("")),
        (#""say \"hi\" \\ bye""#, .string(#"say "hi" \ bye"#)),
        ("foo", .token("foo")),
        ("*foo", .token("*foo")),
        ("Foo123/456:x!#$%&'*+-.^_`|~", .token("Foo123/456:x!#$%&'*+-.^_`|~")),
        (":aGVsbG8=:", .byteSequence(Array("hello".utf8))),
        (":aGVsbG8:", .byteSequence(Array("hello".utf8))),  // padding may be absent (§4.2.7)
        ("::", .byteSequence([])),
        ("?1", .boolean(true)),
        ("?0", .boolean(false)),
        ("  42  ", .integer(42)),  // leading and trailing SP are discarded at top level
    ])
    func parsesBareItems(text: String, expected: SFBareItem) throws {
        let item = try StructuredFieldParser.item(text)
        #expect(item.bareItem == expected)
        #expect(item.parameters.isEmpty)
    }

    @Test(arguments: [
        "", " ", "\t42",  // empty item, top-level tab
        "1234567890123456", "-1234567890123456",  // more than 15 digits
        "1234567890123.0", "1.1234", "1.", ".1", "--1", "-", "-a", "1..2", "1.2.3",
        "\"unterminated", "\"tab\there\"", "\"bad \\n escape\"", "\"é\"", "\"a\" \"b\"",
        "1foo", "é", "(1 2", "(1,2)", "a b",
        ":aGVsbG8=", ":aGV$bG8=:", ":aGVsbG8==:", ":aGVsbG9=:",  // unterminated, bad char, bad padding, non-zero pad bits
        "?", "?2", "?true",
        "1 ;a", "1;", "1;A=1", "1;1a", "1;a=",
    ])
    func rejectsMalformedItems(text: String) {
        #expect(throws: StructuredFieldError.self) { try StructuredFieldParser.item(text) }
    }

    @Test func parsesParametersInOrder() throws {
        let item = try StructuredFieldParser.item("abc;a=1;b=?0;c;d=\"x\";  e=:AQ==:;f=1.5")
        #expect(item.bareItem == .token("abc"))
        #expect(item.parameters.keys == ["a", "b", "c", "d", "e", "f"])
        #expect(item.parameters["c"] == .boolean(true))
        #expect(item.parameters["e"] == .byteSequence([1]))
        #expect(try StructuredFieldSerializer.item(item) == "abc;a=1;b=?0;c;d=\"x\";e=:AQ==:;f=1.5")
    }

    @Test func duplicateParameterLastWinsInFirstPosition() throws {
        let item = try StructuredFieldParser.item("1;x=1;y=2;x=3")
        #expect(item.parameters.keys == ["x", "y"])
        #expect(item.parameters["x"] == .integer(3))
        #expect(throws: StructuredFieldError.duplicateKey("x")) {
            try StructuredFieldParser.item("1;x=1;y=2;x=3", duplicates: .reject)
        }
    }

    @Test func parsesDictionary() throws {
        let dict = try StructuredFieldParser.dictionary(" a=1,b=(1 \"x\";p);q=?0, c,\td;k=v ,*e=:AA==: ")
        #expect(dict.keys == ["a", "b", "c", "d", "*e"])
        #expect(dict["a"] == .item(SFItem(.integer(1))))
        #expect(dict["b"] == .innerList(SFInnerList(
            [SFItem(.integer(1)), SFItem(.string("x"), parameters: SFParameters([("p", .boolean(true))]))],
            parameters: SFParameters([("q", .boolean(false))]))))
        #expect(dict["c"] == .item(SFItem(.boolean(true))))
        #expect(dict["d"] == .item(SFItem(.boolean(true), parameters: SFParameters([("k", .token("v"))]))))
        #expect(try StructuredFieldSerializer.dictionary(dict) == "a=1, b=(1 \"x\";p);q=?0, c, d;k=v, *e=:AA==:")
    }

    @Test func duplicateDictionaryKeyLastWinsInFirstPosition() throws {
        let dict = try StructuredFieldParser.dictionary("a=1, b=2, a=3")
        #expect(dict.keys == ["a", "b"])
        #expect(dict["a"] == .item(SFItem(.integer(3))))
        #expect(throws: StructuredFieldError.duplicateKey("a")) {
            try StructuredFieldParser.dictionary("a=1, b=2, a=3", duplicates: .reject)
        }
    }

    @Test func removingAMemberKeepsLookupsRight() throws {
        var dict = try StructuredFieldParser.dictionary("a=1, b=2, c=3")
        dict["a"] = nil
        #expect(dict.keys == ["b", "c"])
        #expect(dict["c"] == .item(SFItem(.integer(3))))
        dict["a"] = .item(SFItem(.integer(4)))
        #expect(dict.keys == ["b", "c", "a"])
        #expect(dict == (try StructuredFieldParser.dictionary("b=2, c=3, a=4")))
        var params = SFParameters([("x", .integer(1)), ("y", .integer(2))])
        params["x"] = nil
        #expect(params["y"] == .integer(2) && params.keys == ["y"])
    }

    @Test func emptyDictionaryAndList() throws {
        #expect(try StructuredFieldParser.dictionary("").count == 0)
        #expect(try StructuredFieldParser.list("   ").isEmpty)
    }

    @Test(arguments: [
        "a=1,", "a=1, ", "a=1,,b=2", ",a=1", "A=1", "1a=1", "a=1 b=2", "a=1;", "a=", "a=(1 2", "a=)",
        "a=1,\u{0}b=2", "é=1", "a =1", "a= 1", "\ta=1",
    ])
    func rejectsMalformedDictionaries(text: String) {
        #expect(throws: StructuredFieldError.self) { try StructuredFieldParser.dictionary(text) }
    }

    @Test func parsesInnerListWhitespace() throws {
        let list = try StructuredFieldParser.list("( 1  2 ), (), (\"a\");x=1")
        #expect(list.count == 3)
        #expect(list[0] == .innerList(SFInnerList([SFItem(.integer(1)), SFItem(.integer(2))])))
        #expect(list[1] == .innerList(SFInnerList([])))
        #expect(try StructuredFieldSerializer.list(list) == "(1 2), (), (\"a\");x=1")
    }

    @Test(arguments: ["1,", "1,,2", "(1)(2)", "(1 2)x", "1 2", "(1\t2)"])
    func rejectsMalformedLists(text: String) {
        #expect(throws: StructuredFieldError.self) { try StructuredFieldParser.list(text) }
    }

    @Test(arguments: [
        (SFDecimal(thousandths: 1500), "1.5"),
        (SFDecimal(thousandths: -1250), "-1.25"),
        (SFDecimal(thousandths: 0), "0.0"),
        (SFDecimal(thousandths: 7), "0.007"),
        (SFDecimal(thousandths: 2000), "2.0"),
    ])
    func serialisesDecimals(value: SFDecimal, text: String) throws {
        #expect(try StructuredFieldSerializer.bareItem(.decimal(value)) == text)
    }

    @Test func serialisationRefusesWhatTheGrammarCannotCarry() {
        #expect(throws: StructuredFieldError.unserialisable) { try StructuredFieldSerializer.bareItem(.integer(1_000_000_000_000_000)) }
        #expect(throws: StructuredFieldError.unserialisable) { try StructuredFieldSerializer.bareItem(.string("é")) }
        #expect(throws: StructuredFieldError.unserialisable) { try StructuredFieldSerializer.bareItem(.string("a\nb")) }
        #expect(throws: StructuredFieldError.unserialisable) { try StructuredFieldSerializer.bareItem(.token("1a")) }
        #expect(throws: StructuredFieldError.unserialisable) { try StructuredFieldSerializer.bareItem(.token("a b")) }
        #expect(throws: StructuredFieldError.unserialisable) { try StructuredFieldSerializer.key("Upper") }
        #expect(throws: StructuredFieldError.unserialisable) { try StructuredFieldSerializer.key("") }
    }

    @Test func stringEscapesRoundTrip() throws {
        let text = #""a\"b\\c""#
        let item = try StructuredFieldParser.item(text)
        #expect(try StructuredFieldSerializer.item(item) == text)
    }

    @Test func booleanTrueMembersSerialiseBare() throws {
        let dict = try StructuredFieldParser.dictionary("a=?1, b=?1;x, c=?0")
        #expect(try StructuredFieldSerializer.dictionary(dict) == "a, b;x, c=?0")
    }
}
