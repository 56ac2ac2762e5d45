import JSON
import Testing

@Suite struct JSONLayoutTests {
    let value: JSONValue = ["a": 1, "b": ["x", "y\n"], "c": [:], "d": [], "e": ["f": nil, "g": true]]

    @Test func compactHasNoWhitespace() {
        #expect(value.text() == #"{"a":1,"b":["x","y\n"],"c":{},"d":[],"e":{"f":null,"g":true}}"#)
    }

    @Test func spacedIsOneLineWithASpaceAfterEachSeparator() {
        #expect(value.text(.spaced) == #"{"a": 1, "b": ["x", "y\n"], "c": {}, "d": [], "e": {"f": null, "g": true}}"#)
    }

    @Test func indentedPutsEachMemberOnItsOwnLine() {
        #expect(value.text(.indented) == """
            {
              "a": 1,
              "b": [
                "x",
                "y\\n"
              ],
              "c": {},
              "d": [],
              "e": {
                "f": null,
                "g": true
              }
            }
            """)
    }

    @Test(arguments: [JSONLayout.compact, .spaced, .indented])
    func everyLayoutParsesBackToTheSameValue(_ layout: JSONLayout) throws {
        #expect(try JSONValue.parse(value.serialized(layout)) == value)
        #expect(try JSONValue.parse(JSONValue.string("\u{1}é\"").serialized(layout)) == .string("\u{1}é\""))
    }
}

@Suite struct JSONObjectReaderTests {
    let document: JSONValue = ["n": 300, "s": "text", "inner": ["list": [1, "two"]]]

    @Test func readsTypedMembers() throws {
        let o = try JSONObjectReader(document)
        #expect(try o.int("n", in: 0...1000) == 300)
        #expect(try o.string("s") == "text")
        #expect(try o.optionalString("absent") == nil)
        #expect(try o.nested("inner").path == ["inner"])
    }

    @Test func failuresNameTheInstancePath() throws {
        let o = try JSONObjectReader(document)
        #expect(throws: JSONDecodingError(instancePath: ["n"], reason: "expected an integer in 0...255")) { try o.int("n", in: 0...255) }
        #expect(throws: JSONDecodingError(instancePath: ["s"], reason: "expected an integer, found string")) { try o.uint32("s") }
        #expect(throws: JSONDecodingError(instancePath: [], reason: "missing member \"absent\"")) { try o.string("absent") }
        #expect(throws: JSONDecodingError(instancePath: ["s"], reason: "expected an object, found string")) { try o.nested("s") }
        #expect(throws: JSONDecodingError(instancePath: ["inner"], reason: "missing member \"x\"")) { try o.nested("inner").string("x") }
        #expect(JSONDecodingError(instancePath: ["inner", "list", "1"], reason: "r").description == "/inner/list/1: r")
    }
}
