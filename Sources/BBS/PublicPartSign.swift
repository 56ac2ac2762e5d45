import Foundation

// Sign when most messages are public. A = [inv]·B with B = C + Σ_secret H_i·msg_i, where
// C = P1 + Q_1·domain + Σ_public H_i·msg_i depends only on public data (the public key, the
// header, the public messages), so C is computed once by the variable-time MSM and cached;
// each Sign then pays one constant-time variable-base multiplication [inv]·C and one
// fixed-base term [msg_i·inv]·H_i per secret message, instead of a fixed-base term per base.

extension BBS {
    /// Sign with the messages at `publicIndices` known to be public (the badge's expiry, type
    /// and extra): their part of B is cached per (public key, header, public messages). Same bytes as `sign`.
    public static func sign(secretKey: BBSSecretKey, publicKey: BBSPublicKey, header: [UInt8],
                            messages: [[UInt8]], publicIndices: Set<Int>) throws(BBSError) -> [UInt8] {
        let secretIndices = messages.indices.filter { !publicIndices.contains($0) }
        // Past the fixed-base tables' bound the generic path is the one that exists.
        guard let allTables = FixedBaseTables.shared.tables(count: messages.count + 2) else {
            return try sign(secretKey: secretKey, publicKey: publicKey, header: header, messages: messages)
        }
        let part = PublicPartCache.shared.part(publicKey: publicKey, header: header, messages: messages, secretIndices: secretIndices)

        // The message scalars in order: the cached public ones, the secret ones hashed now.
        var scalars = [Fr]()
        scalars.reserveCapacity(messages.count)
        defer { wipe(elements: &scalars) }
        scalars.append(contentsOf: part.publicScalars)
        for i in secretIndices { scalars[i] = hashToScalar(messages[i], dst: mapMessageDST) }

        var eInput = [UInt8]()
        eInput.reserveCapacity(Fr.byteCount * (scalars.count + 2))
        defer { wipe(&eInput) }
        secretKey.scalar.appendBigEndian(to: &eInput)
        for s in scalars { s.appendBigEndian(to: &eInput) }
        part.domain.appendBigEndian(to: &eInput)
        let e = hashToScalar(eInput, dst: hashToScalarDST)

        var skPlusE = secretKey.scalar + e
        defer { wipe(value: &skPlusE) }
        guard !skPlusE.isZero else { throw .degenerateSignature }
        var inverse = skPlusE.inverse()
        defer { wipe(value: &inverse) }
        var coefficients = [Fr]()
        coefficients.reserveCapacity(secretIndices.count)
        defer { wipe(elements: &coefficients) }
        for i in secretIndices { coefficients.append(scalars[i] * inverse) }
        let secretPart = G1Point.multiScalarMultiplyFixedBase(secretIndices.map { allTables[$0 + 2] }, coefficients)
        let a = part.c.multiplied(by: inverse) + secretPart
        return a.compressed + e.bigEndianBytes
    }
}

/// The public part of B for one (public key, header, public messages), with what Sign hashes.
struct PublicPart: Sendable {
    /// P1 + Q_1·domain + Σ_public H_i·msg_i.
    let c: G1Point
    let domain: Fr
    /// The message scalars with the public ones filled in and zero at the secret indices.
    let publicScalars: [Fr]
}

/// Public parts computed so far, shared by all threads. Bounded: when full it starts over, so
/// a stream of distinct public messages costs one variable-time MSM each, as without the cache.
final class PublicPartCache: @unchecked Sendable {
    static let shared = PublicPartCache()
    static let capacity = 1024
    private let lock = NSLock()
    private var parts = [[UInt8]: PublicPart]()  // guarded by lock

    func part(publicKey: BBSPublicKey, header: [UInt8], messages: [[UInt8]], secretIndices: [Int]) -> PublicPart {
        // The key: every public input, each length-prefixed; a secret message contributes only its index.
        var key = publicKey.bytes + i2osp(UInt64(header.count), 8) + header + i2osp(UInt64(messages.count), 8)
        for (i, m) in messages.enumerated() {
            if secretIndices.contains(i) {
                key += [0]
            } else {
                key += [1] + i2osp(UInt64(m.count), 8) + m
            }
        }
        lock.lock()
        let cached = parts[key]
        lock.unlock()
        if let cached { return cached }

        let gens = BBS.cachedGenerators(count: messages.count + 1)
        let domain = BBS.calculateDomain(publicKey: publicKey.bytes, generators: gens[...], header: header)
        var scalars = [Fr](repeating: .zero, count: messages.count)
        var points = [gens[0].point], coefficients = [domain]
        for i in messages.indices where !secretIndices.contains(i) {
            scalars[i] = BBS.hashToScalar(messages[i], dst: BBS.mapMessageDST)
            points.append(gens[i + 1].point)
            coefficients.append(scalars[i])
        }
        let part = PublicPart(c: BBS.p1 + G1Point.multiScalarMultiplyVariableTime(points, coefficients),
                              domain: domain, publicScalars: scalars)
        lock.lock()
        if parts.count >= Self.capacity { parts.removeAll(keepingCapacity: true) }
        parts[key] = part
        lock.unlock()
        return part
    }
}
