// Compressed point encoding of the pairing-friendly-curves draft / Zcash: the x coordinate
// big-endian (for G2: x.c1 then x.c0) with three flags in the top bits of the first byte:
// 0x80 compressed, 0x40 point at infinity, 0x20 "y is the lexicographically larger root".
// Decoding accepts only the compressed form and checks everything a verifier must.

/// Why bytes are not a valid compressed G1 or G2 point.
public enum PointDecodingError: Error, Equatable, Sendable {
    /// The input is not 48 (G1) or 96 (G2) bytes long.
    case wrongLength(expected: Int, actual: Int)
    /// The compression flag (0x80 of the first byte) is not set.
    case notCompressed
    /// The infinity flag is set but other bits (sort flag or coordinate bytes) are not zero.
    case invalidInfinity
    /// A coordinate is not a canonical field element (its value is ≥ p).
    case nonCanonicalCoordinate
    /// No point on the curve has this x coordinate.
    case notOnCurve
    /// The point is on the curve but outside the prime-order subgroup.
    case notInSubgroup
}

private enum Flag {
    static let compressed: UInt8 = 0x80
    static let infinity: UInt8 = 0x40
    static let sort: UInt8 = 0x20
}

/// Splits the flags off a compressed encoding and handles the identity; returns the x bytes
/// (flags cleared) or nil for a valid identity encoding.
private func coordinateBytes(_ bytes: [UInt8], length: Int) throws(PointDecodingError) -> (x: [UInt8], sort: Bool)? {
    guard bytes.count == length else { throw .wrongLength(expected: length, actual: bytes.count) }
    let flags = bytes[0]
    guard flags & Flag.compressed != 0 else { throw .notCompressed }
    var x = bytes
    x[0] &= 0x1f
    if flags & Flag.infinity != 0 {
        guard flags & Flag.sort == 0, x.allSatisfy({ $0 == 0 }) else { throw .invalidInfinity }
        return nil
    }
    return (x, flags & Flag.sort != 0)
}

private func infinityEncoding(length: Int) -> [UInt8] {
    [Flag.compressed | Flag.infinity] + [UInt8](repeating: 0, count: length - 1)
}

extension G1Point {
    /// Byte length of a compressed G1 point.
    package static let compressedByteCount = 48

    /// The 48-byte compressed encoding.
    package var compressed: [UInt8] {
        guard let (x, y) = affine else { return infinityEncoding(length: 48) }
        var out = x.bigEndianBytes
        out[0] |= Flag.compressed | (y.isLexicographicallyLargest ? Flag.sort : 0)
        return out
    }

    /// Decodes a compressed point, checking flags, canonical x, curve equation and subgroup.
    package init(compressed bytes: some Collection<UInt8>) throws(PointDecodingError) {
        guard let (xBytes, sort) = try coordinateBytes(Array(bytes), length: 48) else {
            self = .identity
            return
        }
        guard let x = Fp(bigEndian: xBytes) else { throw .nonCanonicalCoordinate }
        guard var y = (x.squared() * x + G1Point.b).squareRoot() else { throw .notOnCurve }
        if y.isLexicographicallyLargest != sort { y = -y }
        let point = G1Point(affineX: x, y: y)
        guard point.isInSubgroup else { throw .notInSubgroup }
        self = point
    }
}

extension G2Point {
    /// Byte length of a compressed G2 point.
    package static let compressedByteCount = 96

    /// The 96-byte compressed encoding (x.c1 first).
    package var compressed: [UInt8] {
        guard let (x, y) = affine else { return infinityEncoding(length: 96) }
        var out = x.c1.bigEndianBytes + x.c0.bigEndianBytes
        out[0] |= Flag.compressed | (y.isLexicographicallyLargest ? Flag.sort : 0)
        return out
    }

    /// Decodes a compressed point, checking flags, canonical coordinates, curve equation and subgroup.
    package init(compressed bytes: some Collection<UInt8>) throws(PointDecodingError) {
        guard let (xBytes, sort) = try coordinateBytes(Array(bytes), length: 96) else {
            self = .identity
            return
        }
        guard let x1 = Fp(bigEndian: xBytes[0..<48]), let x0 = Fp(bigEndian: xBytes[48..<96]) else {
            throw .nonCanonicalCoordinate
        }
        let x = Fp2(x0, x1)
        guard var y = (x.squared() * x + G2Point.b).squareRoot() else { throw .notOnCurve }
        if y.isLexicographicallyLargest != sort { y = -y }
        let point = G2Point(affineX: x, y: y)
        guard point.isInSubgroup else { throw .notInSubgroup }
        self = point
    }

    /// Whether Q lies in G2: ψ(Q) = [x]Q (Scott, eprint 2021/1130 §4; proof in 2022/352),
    /// one multiplication by the 64-bit |x| instead of one by r. Variable time: points are public.
    package var isInSubgroup: Bool {
        psi() == -multipliedVariableTime(byInteger: [Pairing.absX])
    }

    /// ψ = untwist ∘ Frobenius ∘ twist: (X : Y : Z) ↦ (X̄·cx : Ȳ·cy : Z̄), cx = ξ^-((p-1)/3), cy = ξ^-((p-1)/2).
    func psi() -> G2Point {
        G2Point(x: x.conjugate() * G2Point.psiX, y: y.conjugate() * G2Point.psiY, z: z.conjugate())
    }

    static let psiX = Fp2(.zero, Fp(hex: "1a0111ea397fe699ec02408663d4de85aa0d857d89759ad4897d29650fb85f9b409427eb4f49fffd8bfd00000000aaad"))
    static let psiY = Fp2(Fp(hex: "135203e60180a68ee2e9c448d77a2cd91c3dedd930b1cf60ef396489f61eb45e304466cf3e67fa0af1ee7b04121bdea2"),
                          Fp(hex: "06af0e0437ff400b6831e36d6bd17ffe48395dabc2d3435e77f76e17009241c5ee67992f72ec05f4c81084fbede3cc09"))
}
