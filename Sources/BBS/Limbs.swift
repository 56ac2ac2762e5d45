import CConstantTime

// Word-level helpers for the multi-precision arithmetic of Fp and Fr.
// All of them are branch-free: carries and borrows travel as 0/1 words computed with UInt128
// arithmetic, which LLVM lowers to add/adc and mul chains. (With overflow flags and `o ? 1 : 0`,
// LLVM turned some carry propagation into conditional jumps, which would leak timing; the
// UInt128 form was also the fastest measured.) Masks that select by a secret index go through
// `ct_opaque_u64`, an empty assembly statement the optimiser cannot look into.

/// a + b + carry (carry 0 or 1) as (sum, carry out).
@inline(__always)
func addWithCarry(_ a: UInt64, _ b: UInt64, _ carry: UInt64) -> (UInt64, UInt64) {
    let s = UInt128(a) &+ UInt128(b) &+ UInt128(carry)
    return (UInt64(truncatingIfNeeded: s), UInt64(truncatingIfNeeded: s >> 64))
}

/// a - b - borrow (borrow 0 or 1) as (difference, borrow out).
@inline(__always)
func subtractWithBorrow(_ a: UInt64, _ b: UInt64, _ borrow: UInt64) -> (UInt64, UInt64) {
    let d = UInt128(a) &- UInt128(b) &- UInt128(borrow)
    return (UInt64(truncatingIfNeeded: d), UInt64(truncatingIfNeeded: d >> 64) & 1)
}

/// a·b + c as (high, low); never overflows 128 bits.
@inline(__always)
func multiplyAdd(_ a: UInt64, _ b: UInt64, _ c: UInt64) -> (hi: UInt64, lo: UInt64) {
    let (h, l) = a.multipliedFullWidth(by: b)
    let (s, carry) = addWithCarry(l, c, 0)
    return (h &+ carry, s)
}

/// a·b + c + d as (high, low); never overflows 128 bits.
@inline(__always)
func multiplyAdd(_ a: UInt64, _ b: UInt64, _ c: UInt64, _ d: UInt64) -> (hi: UInt64, lo: UInt64) {
    let (h, l) = a.multipliedFullWidth(by: b)
    let (s1, carry1) = addWithCarry(l, c, 0)
    let (s2, carry2) = addWithCarry(s1, d, 0)
    return (h &+ carry1 &+ carry2, s2)
}

/// All ones when `x` is zero, else zero; no branch.
@inline(__always)
func wordZeroMask(_ x: UInt64) -> UInt64 {
    ((x | (0 &- x)) >> 63) &- 1
}

/// All ones when a == b, else zero; no branch. The mask goes through an optimisation barrier:
/// when LLVM could see that it is all ones or all zeros, it turned the masked table selection
/// of G1 back into a jump on `i == digit` (DisassemblyCheckTests guards against that).
@inline(__always)
func equalMask(_ a: UInt64, _ b: UInt64) -> UInt64 {
    ct_opaque_u64(wordZeroMask(a ^ b))
}

/// Big-endian bytes → little-endian 64-bit limbs; `bytes.count` must be 8·n.
func limbsFromBigEndian(_ bytes: some Collection<UInt8>, count n: Int) -> [UInt64] {
    let b = Array(bytes)
    precondition(b.count == 8 * n)
    var limbs = [UInt64](repeating: 0, count: n)
    for i in 0..<n {
        var w: UInt64 = 0
        for j in 0..<8 { w = w << 8 | UInt64(b[8 * (n - 1 - i) + j]) }
        limbs[i] = w
    }
    return limbs
}

/// Little-endian 64-bit limbs → big-endian bytes.
func bytesFromLimbs(_ limbs: [UInt64]) -> [UInt8] {
    var out = [UInt8]()
    out.reserveCapacity(8 * limbs.count)
    for w in limbs.reversed() {
        for j in (0..<8).reversed() { out.append(UInt8(truncatingIfNeeded: w >> (8 * UInt64(j)))) }
    }
    return out
}

/// Whether little-endian `limbs` < `modulus` (same length); constant time.
func isLessThan(_ limbs: [UInt64], _ modulus: [UInt64]) -> Bool {
    var borrow: UInt64 = 0
    for i in 0..<limbs.count { (_, borrow) = subtractWithBorrow(limbs[i], modulus[i], borrow) }
    return borrow == 1
}
