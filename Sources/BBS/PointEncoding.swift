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
    public static let compressedByteCount = 48

    /// The 48-byte compressed encoding.
    public var compressed: [UInt8] {
        guard let (x, y) = affine else { return infinityEncoding(length: 48) }
        var out = x.bigEndianBytes
        out[0] |= Flag.compressed | (y.isLexicographicallyLargest ? Flag.sort : 0)
        return out
    }

    /// Decodes a compressed point, checking flags, canonical x, curve equation and subgroup.
    public init(compressed bytes: some Collection<UInt8>) throws(PointDecodingError) {
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

    /// Whether [r]P is the identity, i.e. P lies in G1 (variable time: points are public).
    public var isInSubgroup: Bool {
        multipliedVariableTime(byInteger: Fr.modulusLimbs).isIdentity
    }
}

extension G2Point {
    /// Byte length of a compressed G2 point.
    public static let compressedByteCount = 96

    /// The 96-byte compressed encoding (x.c1 first).
    public var compressed: [UInt8] {
        guard let (x, y) = affine else { return infinityEncoding(length: 96) }
        var out = x.c1.bigEndianBytes + x.c0.bigEndianBytes
        out[0] |= Flag.compressed | (y.isLexicographicallyLargest ? Flag.sort : 0)
        return out
    }

    /// Decodes a compressed point, checking flags, canonical coordinates, curve equation and subgroup.
    public init(compressed bytes: some Collection<UInt8>) throws(PointDecodingError) {
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

    /// Whether [r]Q is the identity, i.e. Q lies in G2 (variable time: points are public).
    public var isInSubgroup: Bool {
        multipliedVariableTime(byInteger: Fr.modulusLimbs).isIdentity
    }
}
