import BadgeCore
import Foundation
import JSON
import TestSupport

/// What one input showed when our parser and the peer's judged it.
enum Comparison: Equatable {
    /// The same answer.
    case agree
    /// A difference written down in Tests/Fuzz/README.md (Differential) with the RFC line that
    /// decides it; the name says which.
    case documented(String)
    /// Anything else: a finding.
    case disagree(String)
}

/// A differential run: `Tests/Peers/differential_peer.py KIND` generates inputs from the fuzz
/// corpora and judges each with an independent implementation; each input is then judged here
/// and compared. The normal suite runs a few thousand inputs from a fixed seed
/// (deterministic: the same inputs every run); `scripts/fuzz --differential` runs many more
/// (`BADGE_DIFFERENTIAL_INPUTS`, `BADGE_DIFFERENTIAL_SEED`) for the figures in Tests/Fuzz/README.md.
struct DifferentialRun {
    let kind: String
    private(set) var inputs = 0
    private(set) var counts: [String: Int] = [:]
    /// The first disagreements, with their inputs (hex), for the failure message.
    private(set) var findings: [(input: String, why: String)] = []
    private(set) var disagreements = 0

    static var inputCount: Int {
        ProcessInfo.processInfo.environment["BADGE_DIFFERENTIAL_INPUTS"].flatMap(Int.init) ?? 3000
    }

    static var seed: Int {
        ProcessInfo.processInfo.environment["BADGE_DIFFERENTIAL_SEED"].flatMap(Int.init) ?? 36
    }

    /// Peer batches: bounded output per peer process, whatever the count.
    static let batchSize = 20_000

    /// Runs `inputCount` inputs of `kind` through `compare`.
    static func run(_ kind: String, _ compare: ([UInt8], JSONValue) -> Comparison) throws -> DifferentialRun {
        var run = DifferentialRun(kind: kind)
        var batch = 0
        while run.inputs < inputCount {
            let count = min(batchSize, inputCount - run.inputs)
            let out = try PeerPython.run(script: "differential_peer.py",
                                         arguments: [kind, String(seed &* 1_000_003 &+ batch), String(count)])
            for line in out.split(separator: UInt8(ascii: "\n")) {
                guard let tab = line.firstIndex(of: UInt8(ascii: "\t")),
                      let input = Hex.decode(String(decoding: line[..<tab], as: UTF8.self)),
                      let verdict = try? JSONValue.parse(Array(line[(tab + 1)...]))
                else { throw UnreadablePeerLine(line: String(decoding: line.prefix(200), as: UTF8.self)) }
                run.record(Hex.encode(input), compare(input, verdict))
            }
            batch += 1
        }
        run.report()
        return run
    }

    /// Judges inputs given by hand (hex), for the tests that pin each documented difference.
    static func judge(_ kind: String, _ inputs: [[UInt8]]) throws -> [JSONValue] {
        let out = try PeerPython.run(script: "differential_peer.py", arguments: [kind, "judge"],
                                     input: Data(inputs.map { Hex.encode($0) + "\n" }.joined().utf8))
        return try out.split(separator: UInt8(ascii: "\n")).map { try JSONValue.parse(Array($0)) }
    }

    mutating func record(_ input: String, _ comparison: Comparison) {
        inputs += 1
        switch comparison {
        case .agree: counts["agree", default: 0] += 1
        case .documented(let name): counts[name, default: 0] += 1
        case .disagree(let why):
            disagreements += 1
            if findings.count < 10 { findings.append((input, why)) }
        }
    }

    /// One line per outcome, printed and kept in `.build/differential/<kind>.txt` for the README's figures.
    func report() {
        var lines = ["\(kind): \(inputs) inputs (seed \(Self.seed)), \(disagreements) disagreements"]
        lines += counts.sorted { $0.key < $1.key }.map { "  \($0.key): \($0.value)" }
        lines += findings.map { "  finding: \($0.why) on \($0.input.prefix(400))" }
        let text = lines.joined(separator: "\n") + "\n"
        print(text, terminator: "")
        let directory = Repository.root.appendingPathComponent(".build/differential")
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try? Data(text.utf8).write(to: directory.appendingPathComponent("\(kind).txt"))
    }

    /// The failure message: every disagreement kept, with its input.
    var findingsDescription: String {
        findings.map { "\($0.why) on input \($0.input.prefix(400))" }.joined(separator: "\n")
    }
}

/// The peer printed a line that is not `<hex> TAB <JSON>`.
struct UnreadablePeerLine: Error, CustomStringConvertible {
    let line: String
    var description: String { "unreadable peer line: \(line)" }
}
