import BadgeCore
import JSON
import Testing
import TestSupport

/// Our JSON parser beside Python's `json` (Tests/Peers/differential_peer.py `json`): the same
/// inputs accepted, and the same value read (numbers by their nearest `Double` and whether the
/// literal is an integer; strings by their UTF-8). Python accepts some texts we refuse, each
/// written down in Tests/Fuzz/README.md (Differential) with the RFC 8259 line that allows it:
///
/// - a repeated member name (§4: names SHOULD be unique; receivers' behaviour is unpredictable);
/// - nesting deeper than 64 (§9: an implementation may limit the depth of nesting);
/// - a `\u` escape of a lone surrogate (§8.2: such strings make behaviour unpredictable);
/// - a number beyond the `Double` range (§9: an implementation may limit the range of numbers);
/// - `NaN`, `Infinity`, `-Infinity` (§6: not permitted; Python's `json` extension).
@Suite(.timeLimit(.minutes(20))) struct JSONDifferentialTests {
    static func compare(_ input: [UInt8], _ verdict: JSONValue) -> Comparison {
        let notes = Set(verdict["notes"]?.arrayValue?.compactMap(\.stringValue) ?? [])
        let theirs = verdict["ok"] == .bool(true) ? verdict["canon"]?.stringValue : nil
        do throws(JSONParseError) {
            let value = try JSONParser().parse(input)
            guard let theirs else { return .disagree("we accept what Python refuses (\(verdict["why"]?.stringValue ?? "?"))") }
            return canonical(value) == theirs ? .agree : .disagree("different values: ours \(canonical(value)), Python's \(theirs)")
        } catch {
            guard theirs != nil else { return .agree }
            switch error.reason {
            case .duplicateKey where notes.contains("duplicate"): return .documented("duplicate member names (RFC 8259 §4)")
            case .tooDeep where notes.contains("depth>64"): return .documented("nesting deeper than 64 (RFC 8259 §9)")
            case .loneSurrogate where notes.contains("lone-surrogate"): return .documented("lone surrogate escapes (RFC 8259 §8.2)")
            case .numberOutOfRange where notes.contains("out-of-range"): return .documented("numbers beyond Double (RFC 8259 §9)")
            case .unexpectedByte, .invalidNumber:
                if notes.contains("nonfinite-constant") { return .documented("NaN and Infinity (RFC 8259 §6)") }
            default: break
            }
            return .disagree("we refuse what Python accepts: \(error)")
        }
    }

    /// The canonical text the peer prints too: N T F, D<bits of the Double, -0 as 0><i|f>,
    /// S<UTF-8 hex>;, [values], {key value …} in member order.
    static func canonical(_ value: JSONValue) -> String {
        switch value {
        case .null: return "N"
        case .bool(let b): return b ? "T" : "F"
        case .number(let n):
            let bits = String((n.value == 0 ? 0 : n.value).bitPattern, radix: 16)
            return "D" + String(repeating: "0", count: 16 - bits.count) + bits + (n.isInteger ? "i" : "f")
        case .string(let s): return "S" + Hex.encode(Array(s.utf8)) + ";"
        case .array(let a): return "[" + a.map(canonical).joined() + "]"
        case .object(let o): return "{" + o.map { canonical(.string($0.key)) + canonical($0.value) }.joined() + "}"
        }
    }

    @Test func mutatedInputsAgreeWithPython() throws {
        let run = try DifferentialRun.run("json", Self.compare)
        #expect(run.inputs == DifferentialRun.inputCount)
        #expect(run.disagreements == 0, "\(run.findingsDescription)")
    }

    /// Each documented difference, on an input that shows it: Python accepts, we refuse, and the
    /// comparison names the difference (so none of them can hide anything else).
    @Test func documentedDifferencesAreExactlyThose() throws {
        let cases: [(String, String)] = [
            (#"{"a":1,"a":2}"#, "duplicate member names (RFC 8259 §4)"),
            (String(repeating: "[", count: 65) + String(repeating: "]", count: 65), "nesting deeper than 64 (RFC 8259 §9)"),
            (#"["\ud800"]"#, "lone surrogate escapes (RFC 8259 §8.2)"),
            ("1e400", "numbers beyond Double (RFC 8259 §9)"),
            ("[NaN, -Infinity]", "NaN and Infinity (RFC 8259 §6)"),
        ]
        let verdicts = try DifferentialRun.judge("json", cases.map { Array($0.0.utf8) })
        for ((text, name), verdict) in zip(cases, verdicts) {
            #expect(verdict["ok"] == .bool(true), "Python refuses \(text)")
            #expect(Self.compare(Array(text.utf8), verdict) == .documented(name), "\(text)")
        }
        // And agreement is checked on values, not only on acceptance.
        let agreed = try DifferentialRun.judge("json", [Array(#"{"x":[1.5,"\u00e9",null,-0]}"#.utf8)])
        #expect(Self.compare(Array(#"{"x":[1.5,"\u00e9",null,-0]}"#.utf8), agreed[0]) == .agree)
        #expect(Self.compare(Array(#"{"x":[1.25,"\u00e9",null,-0]}"#.utf8), agreed[0]) != .agree)
    }
}
