import BBS
import Foundation
import TestSupport
import Testing

@Suite struct ExpandMessageTests {
    /// RFC 9380 K.1 (38-byte DST) and K.2 (256-byte DST, exercising the oversize-DST rule).
    @Test(arguments: ["h2c/expand_message_xmd_SHA256_38.json", "h2c/expand_message_xmd_SHA256_256.json"])
    func rfc9380Vectors(file: String) throws {
        let suite = try referenceJSON(file)
        let dst = try Array(field(suite, "DST", String.self).utf8)
        let tests = try field(suite, "tests", [[String: String]].self)
        #expect(tests.count == 10)
        for t in tests {
            let length = Int(t["len_in_bytes"]!.dropFirst(2), radix: 16)!
            let out = try ExpandMessageXMD.expand(Array(t["msg"]!.utf8), dst: dst, length: length)
            #expect(hexString(out) == t["uniform_bytes"]!, "msg \(t["msg"]!.prefix(20)) len \(length)")
        }
    }

    @Test func refusesOversizedOutput() {
        #expect(throws: ExpandMessageError.outputTooLong(255 * 32 + 1)) {
            try ExpandMessageXMD.expand([], dst: Array("d".utf8), length: 255 * 32 + 1)
        }
    }
}

@Suite struct HashToG1Tests {
    /// RFC 9380 J.9.1: u values, both mapped points Q0/Q1 and the final P for five messages.
    @Test func rfc9380Vectors() throws {
        let suite = try referenceJSON("h2c/BLS12381G1_XMD-SHA-256_SSWU_RO_.json")
        let dst = try Array(field(suite, "dst", String.self).utf8)
        let vectors = try field(suite, "vectors", [[String: Any]].self)
        #expect(vectors.count == 5)
        for v in vectors {
            let msg = try Array(field(v, "msg", String.self).utf8)
            let u = try field(v, "u", [String].self)
            let (u0, u1) = HashToG1.hashToField(msg, dst: dst)
            #expect(u0 == fp(u[0]) && u1 == fp(u[1]))
            for (point, name) in [(HashToG1.mapToCurve(u0), "Q0"), (HashToG1.mapToCurve(u1), "Q1"),
                                  (HashToG1.hash(msg, dst: dst), "P")] {
                let expected = try field(v, name, [String: String].self)
                let affine = try #require(point.affine)
                #expect(affine.x == fp(expected["x"]!) && affine.y == fp(expected["y"]!), "\(name) of \(msg.count)-byte message")
            }
        }
    }
}
