import JSON
import RequestAuth
import Testing
import TestSupport

/// Our RFC 8941 parser and serializer beside PyPI `http-sf` (Tests/Peers/differential_peer.py
/// `sf`): each input parsed as a Dictionary, a List and an Item (duplicate keys: the last wins,
/// §4.2.2), and serialized again; both must refuse the same inputs and write the same text.
/// Documented differences (Tests/Fuzz/README.md, Differential):
///
/// - `http-sf` implements RFC 9651, whose Date (`@…`) and Display String (`%"…"`) items RFC
///   8941 does not have; RFC 9421 (its `Signature-Input`/`Signature` definitions) takes its
///   structured fields from RFC 8941, so we refuse them;
/// - an empty List or Dictionary (an empty or all-space value): both parse it, and RFC 8941
///   §4.1 says such a field is not sent at all; `http-sf` raises when asked to serialize it,
///   ours returns the empty text (the verifier never serializes one);
/// - a byte sequence that is not the canonical base64 of its bytes: non-zero pad bits
///   (`:aGVsbG9=:`), or padding of the wrong length (`:AA=:`), which `http-sf` normalises. RFC 8941
///   §4.2.7 says parsers SHOULD NOT fail on non-zero pad bits; we do, on purpose
///   (`StructuredFieldsTests`): one text per signature and digest value, as every base64 the
///   service reads. Missing padding, which the RFC also names, we accept.
@Suite(.timeLimit(.minutes(20))) struct StructuredFieldDifferentialTests {
    static func compare(_ input: [UInt8], _ verdict: JSONValue) -> Comparison {
        let text = String(decoding: input, as: UTF8.self)
        let notes = Set(verdict["notes"]?.arrayValue?.compactMap(\.stringValue) ?? [])
        let ours: [(String, String?)] = [
            ("dictionary", (try? StructuredFieldParser.dictionary(text)).flatMap { try? StructuredFieldSerializer.dictionary($0) }),
            ("list", (try? StructuredFieldParser.list(text)).flatMap { try? StructuredFieldSerializer.list($0) }),
            ("item", (try? StructuredFieldParser.item(text)).flatMap { try? StructuredFieldSerializer.item($0) }),
        ]
        var result = Comparison.agree
        for (kind, mine) in ours {
            let theirs = verdict[kind]?.stringValue
            if mine == theirs { continue }
            if mine == "", theirs == nil, notes.contains(where: { $0.hasPrefix("ser-error") }) {
                result = .documented(Self.emptyField)
                continue
            }
            // The peer's answer under our restrictions: RFC 8941 items only, canonical base64.
            let restricted = { (name: String) in verdict[kind + name]?.stringValue }
            if mine == restricted("No9651") {
                result = .documented(Self.rfc9651)
            } else if mine == restricted("CanonicalBytes") {
                result = .documented(Self.canonicalBytes)
            } else if mine == restricted("Both") {
                result = .documented(Self.rfc9651 + "; " + Self.canonicalBytes)
            } else {
                return .disagree("\(kind): ours \(mine ?? "refused"), http-sf's \(theirs ?? "refused")")
            }
        }
        return result
    }

    static let rfc9651 = "RFC 9651 Date and Display String (RFC 9421 uses RFC 8941)"
    static let canonicalBytes = "a byte sequence not in canonical base64 (RFC 8941 §4.2.7: SHOULD NOT fail on non-zero pad bits)"
    static let emptyField = "an empty List or Dictionary serializes to nothing (RFC 8941 §4.1)"

    @Test func mutatedInputsAgreeWithHTTPSF() throws {
        let run = try DifferentialRun.run("sf", Self.compare)
        #expect(run.inputs == DifferentialRun.inputCount)
        #expect(run.disagreements == 0, "\(run.findingsDescription)")
    }

    @Test func documentedDifferencesAreExactlyThose() throws {
        let inputs = ["a=@1767225600", #"b=%"caf%c3%a9""#, #"sig1=("@method");created=1"#, "  ", "a=:aGVsbG9=:", "a=:AAAAAAAAAAAAAAAAAAAAAAA==:", "a=:aGVsbG8:"]
        let verdicts = try DifferentialRun.judge("sf", inputs.map { Array($0.utf8) })
        #expect(Self.compare(Array(inputs[0].utf8), verdicts[0]) == .documented(Self.rfc9651))
        #expect(Self.compare(Array(inputs[1].utf8), verdicts[1]) == .documented(Self.rfc9651))
        #expect(Self.compare(Array(inputs[2].utf8), verdicts[2]) == .agree)
        #expect(verdicts[2]["dictionary"]?.stringValue == #"sig1=("@method");created=1"#)
        #expect(Self.compare(Array(inputs[3].utf8), verdicts[3]) == .documented(Self.emptyField))
        #expect(Self.compare(Array(inputs[4].utf8), verdicts[4]) == .documented(Self.canonicalBytes))
        #expect(Self.compare(Array(inputs[5].utf8), verdicts[5]) == .documented(Self.canonicalBytes))
        #expect(Self.compare(Array(inputs[6].utf8), verdicts[6]) == .agree)
        // A difference the restrictions do not explain stays a finding.
        #expect(Self.compare(Array("a=1".utf8), verdicts[6]) != .agree)
    }
}
