import BadgeCore
import Crypto
import Testing

@Suite struct DigestTests {
    @Test func sha256Vectors() {
        #expect(Hex.encode(SHA256.hash([UInt8]())) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(Hex.encode(SHA256.hash(Array("abc".utf8))) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }

    @Test func incrementalEqualsOneShot() {
        var h = SHA256()
        h.update(Array("ab".utf8))
        let copy = h
        h.update(Array("c".utf8))
        #expect(h.finalize() == SHA256.hash(Array("abc".utf8)))
        #expect(copy.finalize() == SHA256.hash(Array("ab".utf8)))
    }

    @Test func badgeCodeHashVector() {
        // docs/protocol.md, Redemption codes
        #expect(Hex.encode(SHA256.hash(Array("SB0C0QSXAQW1N1VSAR00Y3".utf8)))
                == "d3a26ab7764ae2beacb3f2e9bbbe1286dfb63b17b1b7da65c39549f61f700efe")
    }

    @Test func sha512Vector() {
        #expect(Hex.encode(SHA512.hash(Array("abc".utf8))).hasPrefix("ddaf35a193617aba"))
    }

    // RFC 4231 test case 2
    @Test func hmacSHA256() {
        let mac = HMACSHA256.authenticate(Array("what do ya want for nothing?".utf8), key: Array("Jefe".utf8))
        #expect(Hex.encode(mac) == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
    }

    @Test func constantTimeCompare() {
        #expect(constantTimeEquals([1, 2, 3], [1, 2, 3]))
        #expect(!constantTimeEquals([1, 2, 3], [1, 2, 4]))
        #expect(!constantTimeEquals([1, 2], [1, 2, 3]))
    }

    @Test func randomBytesDiffer() {
        let a = SecureRandom.bytes(32), b = SecureRandom.bytes(32)
        #expect(a.count == 32)
        #expect(a != b)
    }
}
