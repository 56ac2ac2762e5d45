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

    /// Every length up to 3 groups and a half round-trips, padded or not, in both alphabets; a
    /// byte outside the alphabet anywhere, or a flipped trailing bit, is refused.
    @Test func roundTripsAndRefusesEveryByteOutsideTheAlphabet() {
        var generator = SystemRandomNumberGenerator()
        let url = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
        for length in 0...14 {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let padded = Base64URL.encode(bytes), unpadded = Base64URL.encode(bytes, padded: false)
            #expect(Base64URL.decode(padded) == bytes && Base64URL.decode(unpadded) == bytes, "\(bytes)")
            #expect(Base64URL.decodeStandard(Base64URL.encodeStandard(bytes)) == bytes, "\(bytes)")
            var text = Array(unpadded.utf8)
            guard !text.isEmpty else { continue }
            for position in [0, text.count / 2, text.count - 1] {
                let kept = text[position]
                // (`=` last is padding, which makes another valid text: rejectsMalformed covers padding.)
                for c in UInt8(0)...255 where !url.contains(c) && !(c == 0x3D && position == text.count - 1) {
                    text[position] = c
                    #expect(Base64URL.decode(String(decoding: text, as: UTF8.self)) == nil, "\(c) at \(position) of \(unpadded)")
                }
                text[position] = kept
            }
            // The last character of a partial group carries bits past the data: they must be zero.
            if length % 3 != 0 {
                let last = text.count - 1
                let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
                let value = alphabet.firstIndex(of: text[last])!
                text[last] = alphabet[value ^ 1]
                #expect(Base64URL.decode(String(decoding: text, as: UTF8.self)) == nil, "trailing bit of \(unpadded)")
            }
        }
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
