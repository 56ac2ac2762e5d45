import BadgeCore
import Testing

@Suite struct Base64URLTests {
    // RFC 4648 §10 vectors, in the URL alphabet.
    @Test(arguments: [("", ""), ("f", "Zg=="), ("fo", "Zm8="), ("foo", "Zm9v"), ("foob", "Zm9vYg=="),
                      ("fooba", "Zm9vYmE="), ("foobar", "Zm9vYmFy")])
    func rfc4648Vectors(_ plain: String, _ encoded: String) {
        #expect(Base64URL.encode(Array(plain.utf8)) == encoded)
        #expect(Base64URL.decode(encoded) == Array(plain.utf8))
        let unpadded = String(encoded.prefix { $0 != "=" })
        #expect(Base64URL.decode(unpadded) == Array(plain.utf8))
        #expect(Base64URL.encode(Array(plain.utf8), padded: false) == unpadded)
    }

    @Test func urlAlphabet() {
        #expect(Base64URL.encode([0xfb, 0xff]) == "-_8=")
        #expect(Base64URL.encodeStandard([0xfb, 0xff]) == "+/8=")
        #expect(Base64URL.decode("+/8=") == nil)
        #expect(Base64URL.decodeStandard("-_8=") == nil)
    }

    @Test(arguments: ["Zg=", "Zg===", "Z", "Zh==", "Zm9v=", "Zm 9v", "=Zm9"])
    func rejectsMalformed(_ text: String) {
        #expect(Base64URL.decode(text) == nil)
    }

    @Test func purchaseKeyShape() {
        let spki: [UInt8] = [0x30, 0x2a, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x03, 0x21, 0x00] + [UInt8](repeating: 7, count: 32)
        let text = Base64URL.encode(spki)
        #expect(text.count == 60)
        #expect(text.hasPrefix("MCowBQYDK2VwAyEA"))
        #expect(text.hasSuffix("="))
    }

    @Test func hex() {
        #expect(Hex.encode([0x00, 0xab, 0xff]) == "00abff")
        #expect(Hex.decode("00ABff") == [0x00, 0xab, 0xff])
        #expect(Hex.decode("0x0b") == [0x0b])
        #expect(Hex.decode("abc") == nil)
        #expect(Hex.decode("zz") == nil)
    }
}
