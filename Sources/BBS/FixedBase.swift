import Foundation
import Locking

// Fixed-base multiplication in G1 for BBS Sign: every base of A = [(SK + e)^-1]·B is a public,
// fixed point (P1, Q_1, H_i), so A = Σ [s_j]G_j with secret s_j, from precomputed tables.
// Each table holds, for each of the 64 four-bit windows j of a scalar, the affine points
// d·16^j·G for d = 1 … 15. A term then costs 64 mixed additions and no doubling, where the
// variable-base path pays 132 doublings and a table per call. Constant time as the
// variable-base scan: each window's entry is chosen by scanning all 15 with masks, and a zero
// digit is absorbed by a masked select of the sum instead of a skipped addition.

/// A non-identity G1 point in affine coordinates (a table entry: two thirds of a projective one).
struct G1Affine: Sendable {
    var x: Fp
    var y: Fp

    @inline(__always)
    static func select(_ a: G1Affine, _ b: G1Affine, _ mask: UInt64) -> G1Affine {
        G1Affine(x: Fp.select(a.x, b.x, mask), y: Fp.select(a.y, b.y, mask))
    }
}

extension G1Point {
    /// Complete mixed addition P + Q with Q affine and not the identity (Renes–Costello–Batina
    /// Algorithm 8, a = 0): Algorithm 7 with Z_Q = 1, 11 multiplications; any P, P = ±Q included.
    @inline(__always)
    static func + (p: G1Point, q: G1Affine) -> G1Point {
        let t0 = p.x * q.x
        let t1 = p.y * q.y
        var t3 = (q.x + q.y) * (p.x + p.y)
        t3 = t3 - (t0 + t1)
        let t4 = q.y * p.z + p.y
        let y3 = q.x * p.z + p.x
        return additionTail(xx: t0, yy: t1, zz: p.z, t3: t3, t4: t4, y3: y3)
    }
}

/// The fixed-base table of one G1 point G: d·16^j·G for the 64 windows j and d = 1 … 15, affine,
/// window-major (960 entries, 90 KiB). Public data: G is a public generator.
package struct FixedBaseTable: Sendable {
    static let windows = 64
    static let entriesPerWindow = 15
    let entries: [G1Affine]

    /// Builds the table (1,024 additions and one field inversion); G must not be the identity.
    package init(_ g: G1Point) {
        precondition(!g.isIdentity, "a fixed-base table needs a non-identity base")
        var projective = [G1Point]()
        projective.reserveCapacity(Self.windows * Self.entriesPerWindow)
        var base = g  // 16^j·G
        for _ in 0..<Self.windows {
            var multiple = base
            for _ in 0..<Self.entriesPerWindow {
                projective.append(multiple)
                multiple = multiple + base
            }
            base = multiple  // 16·16^j·G
        }
        // No entry is the identity (d·2^(4j) is never a multiple of the odd prime r > 15), so
        // every Z is invertible: Montgomery's trick, one inversion for all of them.
        var prefix = [Fp]()
        prefix.reserveCapacity(projective.count)
        var running = Fp.one
        for p in projective {
            prefix.append(running)
            running = running * p.z
        }
        var inverse = running.inverse()
        var affine = [G1Affine](repeating: G1Affine(x: .zero, y: .zero), count: projective.count)
        for i in (0..<projective.count).reversed() {
            let zInverse = inverse * prefix[i]
            inverse = inverse * projective[i].z
            affine[i] = G1Affine(x: projective[i].x * zInverse, y: projective[i].y * zInverse)
        }
        entries = affine
    }
}

extension G1Point {
    /// Σ [k_i]G_i in constant time (for secret scalars) over the fixed-base tables of the G_i:
    /// per term and window one mixed addition of an entry chosen by a full masked scan.
    package static func multiScalarMultiplyFixedBase(_ tables: [FixedBaseTable], _ scalars: [Fr]) -> G1Point {
        precondition(tables.count == scalars.count)
        var limbs = [UInt64](repeating: 0, count: 4 * scalars.count)
        defer { wipe(elements: &limbs) }
        for (n, s) in scalars.enumerated() {
            (limbs[4 * n], limbs[4 * n + 1], limbs[4 * n + 2], limbs[4 * n + 3]) = s.plainLimbs
        }
        var acc = G1Point.identity
        for (n, table) in tables.enumerated() {
            table.entries.withUnsafeBufferPointer { entries in
                for window in 0..<FixedBaseTable.windows {
                    let d = (limbs[4 * n + window / 16] >> UInt64(4 * (window % 16))) & 15
                    let row = FixedBaseTable.entriesPerWindow * window
                    // Entry i holds digit i + 1; digit 0 leaves entry 0 chosen and the sum discarded.
                    var chosen = entries[row]
                    for i in 1..<FixedBaseTable.entriesPerWindow {
                        chosen = G1Affine.select(chosen, entries[row + i], equalMask(UInt64(i + 1), d))
                    }
                    acc = G1Point.select(acc + chosen, acc, equalMask(0, d))
                }
            }
        }
        return acc
    }
}

/// The fixed-base tables of Sign's bases P1, Q_1, H_1 … H_L, built on first use and shared by
/// all threads. Bounded: only the first `maxBases` bases get tables (at most 1.8 MiB); Sign
/// with more messages takes the variable-base path.
final class FixedBaseTables: Sendable {
    static let shared = FixedBaseTables()
    static let maxBases = 20
    private let built = LockedValueBox([FixedBaseTable]())

    /// The tables of P1 followed by the first `count - 1` generators, or nil past `maxBases`.
    func tables(count: Int) -> [FixedBaseTable]? {
        guard count <= Self.maxBases else { return nil }
        return built.withLock { tables in
            if tables.count < count {
                let bases = [BBS.p1] + BBS.generators(count: count - 1)
                for base in bases[tables.count...] { tables.append(FixedBaseTable(base)) }
            }
            return Array(tables.prefix(count))
        }
    }
}
