import BadgeCore
import JSON
import Testing
import TestSupport

/// Our base64url and base64 decoders beside Python's `base64` (Tests/Peers/differential_peer.py
/// `base64`): `b64decode(validate=True)` with the url alphabet (`altchars=b"-_"`) and with the
/// standard one, an unpadded input given its padding first (RFC 7515 §2 omits it; we accept
/// both). Differences written down in Tests/Fuzz/README.md (Differential):
///
/// - non-zero pad bits (`AB==`): Python keeps what the other bits say; RFC 4648 §3.5 lets a
///   decoder refuse them, and we do, so every text we accept is the one encoding of its bytes;
/// - `+` or `/` in base64url: Python maps the url alphabet onto the standard one and so accepts
///   both; RFC 4648 §5's alphabet has only `-` and `_` there;
/// - excess padding (`Zm9v=`, `AAAA==`): Python ignores `=` past a complete group, which RFC 4648
///   §3.3 allows ("MAY also be ignored"); we refuse any `=` that is not the group's padding.
///
/// Python's default decoders (no `validate`) discard characters outside the alphabet, which
/// RFC 4648 §3.3 says a decoder MUST refuse; they are counted, not compared.
@Suite(.timeLimit(.minutes(20))) struct Base64DifferentialTests {
    static func compare(_ input: [UInt8], _ verdict: JSONValue) -> Comparison {
        let text = String(decoding: input, as: UTF8.self)
        let unpadded = String(decoding: input.reversed().drop { $0 == UInt8(ascii: "=") }.reversed(), as: UTF8.self)
        var result = Comparison.agree
        for (url, key) in [(true, "url"), (false, "std")] {
            let ours = (url ? Base64URL.decode(text) : Base64URL.decodeStandard(text)).map(Hex.encode)
            let theirs = verdict[key]?.stringValue
            if ours == theirs {
                if ours == nil, verdict[key + "Lenient"]?.stringValue != nil, case .agree = result {
                    result = .documented("Python's default decoder accepts what validate=True refuses (RFC 4648 §3.3)")
                }
                continue
            }
            guard ours == nil, let theirs, let bytes = Hex.decode(theirs) else {
                return .disagree("\(key): ours \(ours ?? "refused"), Python's \(theirs ?? "refused")")
            }
            let padded = url ? Base64URL.encode(bytes) : Base64URL.encodeStandard(bytes)
            let canonical = String(padded.reversed().drop { $0 == "=" }.reversed())
            if text == padded || text == canonical {
                return .disagree("\(key): we refuse the canonical encoding of \(theirs)")
            } else if url, text.contains(where: { $0 == "+" || $0 == "/" }) {
                result = .documented("+ or / in base64url (RFC 4648 §5)")
            } else if canonical != unpadded {
                result = .documented("non-zero pad bits (RFC 4648 §3.5)")
            } else {
                result = .documented("excess padding (RFC 4648 §3.3: MAY be ignored)")
            }
        }
        return result
    }

    @Test func mutatedInputsAgreeWithPython() throws {
        let run = try DifferentialRun.run("base64", Self.compare)
        #expect(run.inputs == DifferentialRun.inputCount)
        #expect(run.disagreements == 0, "\(run.findingsDescription)")
    }

    @Test func documentedDifferencesAreExactlyThose() throws {
        let inputs = ["AB==", "a+b/", "AAEC AwQ=", "AAECAw", "AAECAw==", "Zm9v=", "AAAA="]
        let verdicts = try DifferentialRun.judge("base64", inputs.map { Array($0.utf8) })
        #expect(Self.compare(Array(inputs[0].utf8), verdicts[0]) == .documented("non-zero pad bits (RFC 4648 §3.5)"))
        #expect(Self.compare(Array(inputs[1].utf8), verdicts[1]) == .documented("+ or / in base64url (RFC 4648 §5)"))
        #expect(Self.compare(Array(inputs[2].utf8), verdicts[2])
                == .documented("Python's default decoder accepts what validate=True refuses (RFC 4648 §3.3)"))
        #expect(Self.compare(Array(inputs[3].utf8), verdicts[3]) == .agree)
        #expect(verdicts[4]["url"]?.stringValue == "00010203")
        #expect(Self.compare(Array(inputs[4].utf8), verdicts[4]) == .agree)
        #expect(Self.compare(Array(inputs[5].utf8), verdicts[5]) == .documented("excess padding (RFC 4648 §3.3: MAY be ignored)"))
        #expect(Self.compare(Array(inputs[6].utf8), verdicts[6]) == .documented("excess padding (RFC 4648 §3.3: MAY be ignored)"))
    }
}
