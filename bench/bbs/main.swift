import BadgeCore
import BBS
import Credentials
import Foundation

// Release-build benchmark of the BLS12-381/BBS code (never a timed test). Prints operations per
// second for BBS Sign/Verify over the four badge messages (Sign over the fixed-base tables next to
// the former variable-base path, timed in the same run) and microseconds for the primitives.

func seconds() -> Double { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }

/// Runs `body` repeatedly for about `budget` seconds (after one warm-up call); returns seconds per call.
func measure(_ budget: Double = 1.0, _ body: () -> Void) -> Double {
    body()
    var n = 0
    let start = seconds()
    var elapsed = 0.0
    repeat {
        body()
        n += 1
        elapsed = seconds() - start
    } while elapsed < budget
    return elapsed / Double(n)
}

/// Runs the bodies in turn, ten calls each per round, for about `budget` seconds in all (after
/// one warm-up call each); returns seconds per call of each.
func measureInterleaved(_ budget: Double, _ bodies: [() -> Void]) -> [Double] {
    for body in bodies { body() }
    var totals = [Double](repeating: 0, count: bodies.count)
    var calls = 0
    let end = seconds() + budget
    repeat {
        for (i, body) in bodies.enumerated() {
            let start = seconds()
            for _ in 0..<10 { body() }
            totals[i] += seconds() - start
        }
        calls += 10
    } while seconds() < end
    return totals.map { $0 / Double(calls) }
}

nonisolated(unsafe) var sink = 0
func keep(_ x: some Equatable) { if "\(type(of: x))".isEmpty { sink += 1 } }

let scalar = Fr(bigEndian: Array(repeating: 0x5a, count: 31) + [0x17])!
let g1 = G1Point.generator.multiplied(by: Fr(12345))
let g2 = G2Point.generator.multiplied(by: Fr(12345))

let sk = try! BBSSecretKey(bytes: Array(repeating: 0x11, count: 32))
let pk = sk.publicKey
let header = Array("SimpleX badges v1".utf8)
let messages: [[UInt8]] = [Array(repeating: 0x42, count: 32), Array("2026-04-14T00:00:00Z".utf8), Array("supporter".utf8), []]
let signature = try! BBS.sign(secretKey: sk, publicKey: pk, header: header, messages: messages)
precondition(BBS.verify(publicKey: pk, signature: signature, header: header, messages: messages))

var a = Fp(3), b = Fp(5)
let fpMul = measure(0.3) { for _ in 0..<1000 { a = a * b } } / 1000
keep(a)
let fpSquare = measure(0.3) { for _ in 0..<1000 { b = b.squared() } } / 1000
keep(b)

let g1Mul = measure { keep(g1.multiplied(by: scalar)) }
let g1MulVar = measure { keep(g1.multipliedVariableTime(by: scalar)) }
let g2Mul = measure { keep(g2.multiplied(by: scalar)) }
let pairing = measure { keep(Pairing.pairing(g1, g2)) }
precondition(try! BBS.signVariableBase(secretKey: sk, publicKey: pk, header: header, messages: messages) == signature)
// The three Signs in rounds of ten calls each, so that load from other processes falls on all alike.
let signs = measureInterleaved(6, [
    { keep(try! BBS.sign(secretKey: sk, publicKey: pk, header: header, messages: messages)) },
    { keep(try! BBS.sign(secretKey: sk, publicKey: pk, header: header, messages: messages, publicIndices: [1, 2, 3])) },
    { keep(try! BBS.signVariableBase(secretKey: sk, publicKey: pk, header: header, messages: messages)) },
])
let (sign, signPublicPart, signVariableBase) = (signs[0], signs[1], signs[2])
let fixedBaseTable = FixedBaseTable(g1)
let g1MulFixed = measure { keep(G1Point.multiScalarMultiplyFixedBase([fixedBaseTable], [scalar])) }
let issuer = try! BadgeCredentialSigner(keyIndex: 1, secretKey: IssuerSecretKey(bytes: Array(repeating: 0x11, count: 32)))
let expiry = Timestamp(seconds: 1_776_124_800)  // 2026-04-14T00:00:00Z
let credentialSign = measure(1) { keep(try! issuer.sign(masterKey: messages[0], expiry: expiry, badgeType: .supporter)) }
// The same on two threads at once (each 400 credentials): the shared caches must not serialize them.
let twoThreadCredentials = 800
let credentialSignTwoThreads: Double = {
    let start = seconds()
    DispatchQueue.concurrentPerform(iterations: 2) { _ in
        for _ in 0..<twoThreadCredentials / 2 { keep(try! issuer.sign(masterKey: messages[0], expiry: expiry, badgeType: .supporter)) }
    }
    return (seconds() - start) / Double(twoThreadCredentials)
}()
let verify = measure(2) { keep(BBS.verify(publicKey: pk, signature: signature, header: header, messages: messages)) }

func us(_ s: Double) -> String { String(format: "%.1f", s * 1e6) }
print("bbs-bench (release, one core)")
print("Fp multiplication:            \(String(format: "%.1f", fpMul * 1e9)) ns")
print("Fp squaring:                  \(String(format: "%.1f", fpSquare * 1e9)) ns")
print("G1 scalar mult (const time):  \(us(g1Mul)) µs")
print("G1 scalar mult (var time):    \(us(g1MulVar)) µs")
print("G1 fixed-base mult (c. t.):   \(us(g1MulFixed)) µs")
print("G2 scalar mult (const time):  \(us(g2Mul)) µs")
print("pairing:                      \(us(pairing)) µs")
print("BBS Sign (4 messages):        \(String(format: "%.0f", 1 / sign)) per second (\(us(sign)) µs)  fixed-base tables")
print("  messages 2-4 public:        \(String(format: "%.0f", 1 / signPublicPart)) per second (\(us(signPublicPart)) µs)  cached public part and its table, as the badge signs")
print("  variable-base reference:    \(String(format: "%.0f", 1 / signVariableBase)) per second (\(us(signVariableBase)) µs)  same bytes, former path")
print("BadgeCredentialSigner.sign:   \(String(format: "%.0f", 1 / credentialSign)) per second (\(us(credentialSign)) µs)")
print("  on two threads:             \(String(format: "%.0f", 1 / credentialSignTwoThreads)) per second (all cores, not pinned)")
print("BBS Verify (4 messages):      \(String(format: "%.0f", 1 / verify)) per second (\(us(verify)) µs)")

// blst through pyblst, timed in the same run, when the peers' Python has it.
let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
let python = ProcessInfo.processInfo.environment["BADGE_PEERS_PYTHON"] ?? root.appendingPathComponent(".venv-peers/bin/python").path
if let blst = runPython(python, script: root.appendingPathComponent("bench/bbs/blst_timing.py").path) {
    let fields = Dictionary(uniqueKeysWithValues: blst.split(separator: " ").compactMap { pair -> (String, Double)? in
        let kv = pair.split(separator: "=")
        guard kv.count == 2, let v = Double(kv[1]) else { return nil }
        return (String(kv[0]), v)
    })
    print("blst (pyblst 0.3.15, same run):")
    for (name, key, ours) in [("G1 scalar mult", "g1_mul_us", g1Mul), ("G2 scalar mult", "g2_mul_us", g2Mul), ("pairing", "pairing_us", pairing)] {
        guard let theirs = fields[key] else { continue }
        print("  \(name.padding(toLength: 16, withPad: " ", startingAt: 0)) blst \(String(format: "%7.1f", theirs)) µs   ours \(String(format: "%7.1f", ours * 1e6)) µs   ours/blst \(String(format: "%.2f", ours * 1e6 / theirs))")
    }
} else {
    print("pyblst not importable with \(python): no blst comparison (run scripts/peers-venv)")
}

/// Runs a Python script and returns its trimmed stdout, or nil when Python or pyblst is missing.
func runPython(_ python: String, script: String) -> String? {
    guard FileManager.default.isExecutableFile(atPath: python) else { return nil }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: python)
    process.arguments = [script]
    let out = Pipe()
    process.standardOutput = out
    process.standardError = FileHandle.nullDevice
    guard (try? process.run()) != nil else { return nil }
    let data = out.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else { return nil }
    return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
}
