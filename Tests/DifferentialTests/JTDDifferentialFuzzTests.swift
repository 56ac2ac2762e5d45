import BadgeCore
import JSON
import Schema
import Testing
import TestSupport

/// Our JTD validation of `/rpc` request envelopes beside PyPI `jtd` (Tests/Peers/
/// differential_peer.py `jtd`), on request bodies mutated byte by byte and member by member:
/// the same errors (instance and schema paths) for every body both JSON parsers read (a body
/// only one of them reads is the JSON comparison's business, and is counted as skipped).
///
/// The one documented difference is `jtd`'s timestamp check (`strict_rfc3339`), deviation 1 of
/// `SchemaTests/JTDDifferentialTests`: leap seconds, lower-case `t`/`z` and year 0000 are valid
/// RFC 3339 (§5.6) and we accept them; non-ASCII digits and a trailing newline are not, and we
/// refuse them (RFC 8927 §3.3.3 defers to RFC 3339).
@Suite(.timeLimit(.minutes(20))) struct JTDDifferentialFuzzTests {
    static let schema: JSONValue = try! JSONValue.parse(BadgeRPCSchema.text)

    static func compare(_ input: [UInt8], _ verdict: JSONValue) -> Comparison {
        let json = try? JSONParser().parse(input)
        guard verdict["json"] == .bool(true), let json else {
            return .documented(verdict["json"] == .bool(true) || json != nil ? "skipped: JSON to one parser only" : "skipped: not JSON")
        }
        if let exception = verdict["exception"]?.stringValue { return .disagree("jtd raised \(exception)") }
        var balance: [ValidationError: Int] = [:]
        for error in BadgeRPCSchema.shared.validateRequest(json) { balance[error, default: 0] += 1 }
        for error in verdict["errors"]?.arrayValue ?? [] {
            let paths = ["instancePath", "schemaPath"].map { error[$0]?.arrayValue?.compactMap(\.stringValue) ?? [] }
            balance[ValidationError(instancePath: paths[0], schemaPath: paths[1]), default: 0] -= 1
        }
        let differing = balance.filter { $0.value != 0 }.map(\.key)
        if differing.isEmpty { return .agree }
        if differing.allSatisfy({ isTimestampDeviation($0, in: json) }) {
            return .documented("timestamp spellings strict_rfc3339 judges otherwise (RFC 3339 §5.6)")
        }
        return .disagree("errors differ on " + differing.map { "\($0.instancePointer) (\($0.schemaPointer))" }.joined(separator: ", "))
    }

    /// An error at a `"type": "timestamp"` schema position whose instance is a string spelled in
    /// one of the ways RFC 3339 and `strict_rfc3339` judge differently.
    static func isTimestampDeviation(_ error: ValidationError, in instance: JSONValue) -> Bool {
        guard error.schemaPath.last == "type", value(at: error.schemaPath, in: schema) == .string("timestamp"),
              case .string(let text)? = value(at: error.instancePath, in: instance)
        else { return false }
        return text.contains(":60") || text.contains("t") || text.contains("z") || text.hasPrefix("0000")
            || text.hasSuffix("\n") || text.unicodeScalars.contains { !$0.isASCII }
    }

    static func value(at path: [String], in value: JSONValue) -> JSONValue? {
        var current = value
        for step in path {
            switch current {
            case .object(let o): guard let next = o[step] else { return nil }; current = next
            case .array(let a): guard let k = Int(step), a.indices.contains(k) else { return nil }; current = a[k]
            default: return nil
            }
        }
        return current
    }

    @Test func mutatedRequestsAgreeWithJTD() throws {
        let run = try DifferentialRun.run("jtd", Self.compare)
        #expect(run.inputs == DifferentialRun.inputCount)
        #expect(run.disagreements == 0, "\(run.findingsDescription)")
        // Most inputs must reach validation, or the comparison says little.
        let skipped = run.counts["skipped: JSON to one parser only", default: 0] + run.counts["skipped: not JSON", default: 0]
        #expect(skipped < run.inputs / 2)
    }
}
