import Crypto

/// A BBS secret key: a scalar in [1, r-1]. A class so that its storage can be wiped when the
/// last reference goes; the heap buffers Sign and SkToPk derive from it are wiped too, while
/// register and stack copies are beyond Swift's control.
/// `@unchecked Sendable`: `storage` is a var only so `deinit` can wipe it; nothing else writes it.
public final class BBSSecretKey: @unchecked Sendable {
    // Written only in init and deinit, so concurrent readers are safe.
    private var storage: Fr

    /// Validates 32 big-endian bytes as a scalar in [1, r-1].
    public init(bytes: [UInt8]) throws(BBSError) {
        guard let s = Fr(bigEndian: bytes), !s.isZero else { throw .invalidSecretKey }
        storage = s
    }

    init(scalar: Fr) {
        storage = scalar
    }

    deinit {
        wipe(value: &storage)
    }

    /// KeyGen(key_material, key_info, key_dst) of the draft (§3.4.1).
    public static func keyGen(keyMaterial: [UInt8], keyInfo: [UInt8] = [],
                              keyDST: [UInt8] = BBS.defaultKeyDST) throws(BBSError) -> BBSSecretKey {
        guard keyMaterial.count >= 32, keyInfo.count <= 65535 else { throw .invalidKeyMaterial }
        // key_material ‖ I2OSP(len(key_info), 2) ‖ key_info, in a buffer of its final size.
        var input = [UInt8]()
        input.reserveCapacity(keyMaterial.count + 2 + keyInfo.count)
        defer { wipe(&input) }
        input.append(contentsOf: keyMaterial)
        input.append(contentsOf: i2osp(UInt64(keyInfo.count), 2))
        input.append(contentsOf: keyInfo)
        let sk = BBS.hashToScalar(input, dst: keyDST)
        guard !sk.isZero else { throw .invalidKeyMaterial }
        return BBSSecretKey(scalar: sk)
    }

    /// A fresh key from 32 bytes of the system CSPRNG (KeyGen with the default DST).
    public static func generate() -> BBSSecretKey {
        var material = SecureRandom.bytes(32)
        defer { wipe(&material) }
        // 32 bytes of key material always satisfy KeyGen; a zero scalar has probability 2^-255.
        return try! keyGen(keyMaterial: material)
    }

    var scalar: Fr { storage }

    /// I2OSP(SK, 32). The caller owns (and should wipe) the copy.
    public var bytes: [UInt8] { storage.bigEndianBytes }

    /// SkToPk: W = BP2·SK, by constant-time scalar multiplication.
    public var publicKey: BBSPublicKey {
        let w = G2Point.generator.multiplied(by: storage)
        return BBSPublicKey(point: w, bytes: w.compressed)
    }
}

/// A BBS public key: a non-identity point of G2 with its 96-byte compressed encoding.
public struct BBSPublicKey: Sendable, Equatable {
    package let point: G2Point
    public let bytes: [UInt8]

    init(point: G2Point, bytes: [UInt8]) {
        self.point = point
        self.bytes = bytes
    }

    /// Decodes (and fully validates: flags, canonical, on curve, subgroup, not identity) 96 bytes.
    public init(bytes: [UInt8]) throws(BBSError) {
        let w: G2Point
        do { w = try G2Point(compressed: bytes) } catch { throw .invalidPublicKey(error) }
        guard !w.isIdentity else { throw .invalidPublicKey(nil) }
        self.init(point: w, bytes: bytes)
    }

    public static func == (a: BBSPublicKey, b: BBSPublicKey) -> Bool { a.bytes == b.bytes }
}
