import BadgeCore
import Crypto
import Ledger
import TestSupport
import Testing

@Suite struct BadgeCodeTests {
    static let canonicalVector = "SB0C0QSXAQW1N1VSAR00Y3"

    /// docs/protocol.md, Redemption codes: the upstream vector; the hash input is the ASCII canonical form.
    @Test(arguments: ["SB-0C0QS-XAQW1-N1VSA-R00Y3", "SB-OC0QS-XAQWI-N1VSA-ROOY3", "sb-0c0qs-xaqw1-n1vsa-r00y3",
                      "sb-oc0qs-xaqwi-n1vsa-rooy3", "SB0C0QSXAQW1N1VSAR00Y3", " sb 0c0qs xaqwl n1vsa r00y3 ",
                      "SB—0C0QS…XAQW1/N1VSA.R00Y3\n"])
    func vector(_ typed: String) throws {
        let code = try #require(BadgeCode(parsing: typed))
        #expect(code.canonical == Self.canonicalVector)
        #expect(BadgeCode.canonical(typed) == Self.canonicalVector)
        #expect(code.display == "SB-0C0QS-XAQW1-N1VSA-R00Y3")
        #expect(code.hashInput == Array(Self.canonicalVector.utf8))
        #expect(Hex.encode(SHA256.hash(code.hashInput))
                == "d3a26ab7764ae2beacb3f2e9bbbe1286dfb63b17b1b7da65c39549f61f700efe")
    }

    @Test(arguments: [
        "",
        "SB",
        "SB-0C0QS-XAQW1-N1VSA-R00Y",  // 19 body characters
        "SB-0C0QS-XAQW1-N1VSA-R00Y33",  // 21
        "SXB-0C0QS-XAQW1-N1VSA-R00Y3",  // the old prefix
        "BS-0C0QS-XAQW1-N1VSA-R00Y3",
        "0C0QS-XAQW1-N1VSA-R00Y3SB",
        "SB-0C0QS-XAQW1-N1VSA-R00Y4",  // check character
        "SB-UC0QS-XAQW1-N1VSA-R00Y3",  // U is not in the alphabet
        "SB-0C0QS-XAQW1-N1VSA-R00Yé",  // a letter, kept by the filter, outside the alphabet
        "SB-0C0QS-XAQW1-N1VSA-R00Y٣",  // Arabic-Indic three: a number, but not an ASCII digit
        "SB-0C0QS-XAQW1-N1VSA-R00Yß",
    ])
    func rejects(_ typed: String) {
        #expect(BadgeCode(parsing: typed) == nil)
    }

    @Test func generationTakesEachByteMod32() throws {
        let bytes: [UInt8] = [0, 32, 255, 31, 64, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14]
        let code = try #require(BadgeCode(randomBytes: bytes))
        #expect(code.values.prefix(19).elementsEqual(bytes.map { $0 % 32 }))
        #expect(code.canonical.hasPrefix("SB00ZZ0123"))
        #expect(code.canonical.count == 22 && code.display.count == 26 && code.display.hasPrefix("SB-"))
        #expect(BadgeCode(randomBytes: [UInt8](repeating: 0, count: 18)) == nil)
        #expect(BadgeCode(randomBytes: [UInt8](repeating: 0, count: 20)) == nil)
        #expect(BadgeCode(randomBytes: [UInt8](repeating: 0, count: 19))?.canonical == "SB" + String(repeating: "0", count: 20))
    }

    @Test func roundTrip() throws {
        var rng = SplitMix64(seed: 0xC0DE)
        for _ in 0..<2000 {
            let bytes = (0..<19).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
            let code = try #require(BadgeCode(randomBytes: bytes))
            #expect(BadgeCode(parsing: code.display) == code)
            #expect(BadgeCode(parsing: code.canonical) == code)
            #expect(BadgeCode(parsing: code.display.lowercased()) == code)
        }
    }

    /// Luhn mod N with even N detects every single-character substitution: doubling folded to
    /// base N (2v, or 2v − N + 1) permutes 0 ..< N, so changing one value always changes the sum mod N.
    @Test func everySingleSubstitutionIsRejected() throws {
        var rng = SplitMix64(seed: 0x5B5)
        var codes = [try #require(BadgeCode(parsing: Self.canonicalVector))]
        for _ in 0..<30 { codes.append(try #require(BadgeCode(randomBytes: (0..<19).map { _ in UInt8(rng.int(0...255)) }))) }
        for code in codes {
            let body = Array(code.canonical.dropFirst(2))
            for position in body.indices {
                for replacement in BadgeCode.alphabet where replacement != body[position] {
                    var changed = body
                    changed[position] = replacement
                    #expect(BadgeCode(parsing: "SB" + String(changed)) == nil, "\(code) at \(position) → \(replacement)")
                }
            }
        }
    }

    /// Luhn mod 32 detects every adjacent transposition of distinct values except 0 ↔ 31
    /// ("0" ↔ "Z"), its analogue of decimal Luhn's 09 ↔ 90: v and its folded double differ by
    /// v mod 32 below 16 and by v − 31 from 16, which coincide only for 0 and 31. The check
    /// character takes part with factor 1, so transpositions with it follow the same rule.
    @Test func adjacentTranspositionsAreRejectedExcept0AndZ() throws {
        var rng = SplitMix64(seed: 0x7A5)
        var missed = 0
        for position in 0..<(BadgeCode.bodyLength - 1) {
            for a in 0..<32 {
                for b in 0..<32 where a != b {
                    // A valid code whose body holds a, b at position, position + 1.
                    var payload = (0..<19).map { _ in UInt8(rng.int(0...31)) }
                    var values = payload + [0]
                    values[position] = UInt8(a)
                    values[position + 1] = UInt8(b)
                    if position + 1 < 19 {
                        payload = Array(values.prefix(19))
                        values[19] = BadgeCode.checkValue(payload: payload)
                    } else {
                        // b is the check character: search the payload's first value to make it so.
                        var found = false
                        for first in 0..<32 where !found && position != 0 {
                            values[0] = UInt8(first)
                            found = BadgeCode.checkValue(payload: values.prefix(19)) == UInt8(b)
                        }
                        guard found else { continue }
                    }
                    let text = "SB" + String(values.map { BadgeCode.alphabet[Int($0)] })
                    try #require(BadgeCode(parsing: text) != nil, "constructed \(text)")
                    values.swapAt(position, position + 1)
                    let swapped = "SB" + String(values.map { BadgeCode.alphabet[Int($0)] })
                    let accepted = BadgeCode(parsing: swapped) != nil
                    let undetectable = Set([a, b]) == [0, 31]
                    #expect(accepted == undetectable, "\(text) ↔ \(swapped)")
                    if accepted { missed += 1 }
                }
            }
        }
        #expect(missed == 2 * 19)  // exactly the 0/Z pairs, both orders, at every position
    }

    @Test func checkValueOfTheVector() {
        let payload = Array(Self.canonicalVector.dropFirst(2).prefix(19)).map { c in
            UInt8(BadgeCode.alphabet.firstIndex(of: c)!)
        }
        #expect(BadgeCode.alphabet[Int(BadgeCode.checkValue(payload: payload))] == "3")
    }
}
