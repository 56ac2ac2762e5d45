import BBS
import Glibc

// dudect-style timing test of the code that handles the issuer's secrets (Reparaz, Balasch and
// Verbauwhede, "Dude, is my code constant time?", 2017). For each operation, two classes of
// inputs — a fixed special value (0 or 1, where a branch on a digit would show) and fresh random
// values — are prepared in advance and measured in random interleaved order, so drift and other
// processes' load fall on both classes alike. Welch's t of the two timing distributions is
// printed, as dudect does, as the largest |t| over the raw samples and the samples cropped at
// the 99th and 90th percentiles; |t| > 4.5 is evidence of a leak. The control measures two classes
// drawn from the same distribution and shows the noise floor of the run.
//
// Usage: ct-bench [multiplications] [signs]   (default 150000 each; bench/ct/run pins one CPU).

let arguments = CommandLine.arguments.dropFirst().map { Int($0) }
guard arguments.allSatisfy({ $0 != nil && $0! >= 100 }), arguments.count <= 2 else {
    print("usage: ct-bench [multiplications ≥ 100] [signs ≥ 100]")
    exit(2)
}
let multiplications = arguments.first.flatMap { $0 } ?? 150_000
let signs = arguments.dropFirst().first.flatMap { $0 } ?? 150_000

func nanoseconds() -> UInt64 {
    var t = timespec()
    clock_gettime(CLOCK_MONOTONIC_RAW, &t)
    return UInt64(t.tv_sec) * 1_000_000_000 + UInt64(t.tv_nsec)
}

nonisolated(unsafe) var sink: UInt64 = 0

/// Welch's t of two samples.
func welch(_ a: [Double], _ b: [Double]) -> Double {
    func meanVariance(_ x: [Double]) -> (Double, Double) {
        let mean = x.reduce(0, +) / Double(x.count)
        let variance = x.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(x.count - 1)
        return (mean, variance)
    }
    let (ma, va) = meanVariance(a), (mb, vb) = meanVariance(b)
    return (ma - mb) / (va / Double(a.count) + vb / Double(b.count)).squareRoot()
}

/// Runs `samples` measurements; `prepare(class)` builds an input outside the timed region and
/// `operate` is timed. Returns the largest |t| over the crops, and the mean time.
func test<Input>(_ samples: Int, prepare: (Int) -> Input, operate: (Input) -> UInt64) -> (t: Double, microseconds: Double) {
    var generator = SystemRandomNumberGenerator()
    let classes = (0..<samples).map { _ in Int.random(in: 0...1, using: &generator) }
    // Inputs are prepared in batches so memory stays bounded for large sample counts.
    var times = [Double](repeating: 0, count: samples)
    let batch = 1024
    var start = 0
    while start < samples {
        let end = min(start + batch, samples)
        let inputs = (start..<end).map { prepare(classes[$0]) }
        for i in start..<end {
            let input = inputs[i - start]
            let t0 = nanoseconds()
            sink &+= operate(input)
            let t1 = nanoseconds()
            times[i] = Double(t1 - t0)
        }
        start = end
    }
    let sorted = times.sorted()
    var largest = 0.0
    for fraction in [1.0, 0.99, 0.90] {
        let limit = sorted[min(sorted.count - 1, Int(Double(sorted.count) * fraction))]
        var a = [Double](), b = [Double]()
        for (i, time) in times.enumerated() where time <= limit {
            if classes[i] == 0 { a.append(time) } else { b.append(time) }
        }
        if a.count > 1, b.count > 1 { largest = max(largest, abs(welch(a, b))) }
    }
    return (largest, times.reduce(0, +) / Double(samples) / 1000)
}

func randomScalar() -> Fr { BBS.randomScalars(count: 1)[0] }
func fold(_ bytes: [UInt8]) -> UInt64 { UInt64(bytes[0]) | UInt64(bytes[bytes.count - 1]) << 8 }

let g1 = G1Point.generator.multiplied(by: Fr(987_654_321))
let g2 = G2Point.generator.multiplied(by: Fr(123_456_789))
let msmPoints = BBS.generators(count: 5)
let header = Array("SimpleX badges v1".utf8)
let messages: [[UInt8]] = [Array(repeating: 0x42, count: 32), Array("2026-04-14T00:00:00Z".utf8), Array("supporter".utf8), []]
let keyOne = try! BBSSecretKey(bytes: Array(repeating: 0, count: 31) + [1])
let keyOnePublic = keyOne.publicKey
let randomKeys = (0..<64).map { _ in BBSSecretKey.generate() }
let randomKeysPublic = randomKeys.map(\.publicKey)

/// Reads the limbs a point's projective coordinates end with, so the work is not optimised away.
func fold(_ p: G1Point) -> UInt64 { p.isIdentity ? 1 : 0 }
func fold(_ p: G2Point) -> UInt64 { p.isIdentity ? 1 : 0 }

print("bench/ct: dudect-style timing, fixed vs random inputs in random order, Welch's |t| (> 4.5: leak)")
print("samples: \(multiplications) per multiplication test, \(signs) Signs")
func report(_ name: String, _ result: (t: Double, microseconds: Double)) {
    let padded = name.padding(toLength: 44, withPad: " ", startingAt: 0)
    print("\(padded) |t| = \(String(format: "%6.2f", result.t))   (\(String(format: "%.1f", result.microseconds)) µs/op)")
}

report("control: G1 mult, random vs random scalars", test(multiplications, prepare: { _ in randomScalar() }) { fold(g1.multiplied(by: $0)) })
report("G1 mult: scalar 1 vs random", test(multiplications, prepare: { $0 == 0 ? Fr.one : randomScalar() }) { fold(g1.multiplied(by: $0)) })
report("G1 mult: scalar 0 vs random", test(multiplications, prepare: { $0 == 0 ? Fr.zero : randomScalar() }) { fold(g1.multiplied(by: $0)) })
report("G1 5-term MSM: scalars 1 vs random", test(multiplications, prepare: { $0 == 0 ? [Fr](repeating: .one, count: 5) : BBS.randomScalars(count: 5) }) {
    fold(G1Point.multiScalarMultiply(msmPoints, $0))
})
let msmTables = msmPoints.map { FixedBaseTable($0) }
report("G1 5-term fixed-base: scalars 0 vs random", test(multiplications, prepare: { $0 == 0 ? [Fr](repeating: .zero, count: 5) : BBS.randomScalars(count: 5) }) {
    fold(G1Point.multiScalarMultiplyFixedBase(msmTables, $0))
})
report("G1 5-term fixed-base: scalars 1 vs random", test(multiplications, prepare: { $0 == 0 ? [Fr](repeating: .one, count: 5) : BBS.randomScalars(count: 5) }) {
    fold(G1Point.multiScalarMultiplyFixedBase(msmTables, $0))
})
report("Fr inversion: 1 vs random", test(multiplications, prepare: { $0 == 0 ? Fr.one : randomScalar() }) { $0.inverse().isZero ? 1 : 0 })
report("G2 mult: scalar 1 vs random", test(multiplications, prepare: { $0 == 0 ? Fr.one : randomScalar() }) { fold(g2.multiplied(by: $0)) })
/// SK = 1 (class 0) or one of the random keys (class 1), with its public key.
func signingKey(_ c: Int) -> (BBSSecretKey, BBSPublicKey) {
    if c == 0 { return (keyOne, keyOnePublic) }
    let i = Int.random(in: 0..<randomKeys.count)
    return (randomKeys[i], randomKeysPublic[i])
}
report("Sign (fixed-base): SK = 1 vs random SK", test(signs, prepare: signingKey) {
    fold(try! BBS.sign(secretKey: $0.0, publicKey: $0.1, header: header, messages: messages))
})
// The badge's Sign caches work per public key and public messages (public data), and a table in
// use by one key stays warmer in the CPU cache than eight tables in turn: so its rows keep the
// public part the same in both classes (a master key 0 vs random under one key), or compare two
// fixed keys whose public parts both have their tables (SK = 1 vs another key).
let badgeKey = randomKeys[0], badgeKeyPublic = randomKeysPublic[0]
for (key, pub) in [(badgeKey, badgeKeyPublic), (keyOne, keyOnePublic)] {
    for _ in 0..<10 { _ = try! BBS.sign(secretKey: key, publicKey: pub, header: header, messages: messages, publicIndices: [1, 2, 3]) }
}
report("badge Sign: master key 0 vs random", test(signs, prepare: { c -> [[UInt8]] in
    [c == 0 ? [UInt8](repeating: 0, count: 32) : BBS.randomScalars(count: 1)[0].bigEndianBytes] + messages.dropFirst()
}) {
    fold(try! BBS.sign(secretKey: badgeKey, publicKey: badgeKeyPublic, header: header, messages: $0, publicIndices: [1, 2, 3]))
})
report("badge Sign: SK = 1 vs another fixed SK", test(signs, prepare: { c -> (BBSSecretKey, BBSPublicKey) in
    c == 0 ? (keyOne, keyOnePublic) : (badgeKey, badgeKeyPublic)
}) {
    fold(try! BBS.sign(secretKey: $0.0, publicKey: $0.1, header: header, messages: messages, publicIndices: [1, 2, 3]))
})
report("Sign (variable-base ref.): SK = 1 vs random", test(signs, prepare: signingKey) {
    fold(try! BBS.signVariableBase(secretKey: $0.0, publicKey: $0.1, header: header, messages: messages))
})
if sink == 42 { print("") }
