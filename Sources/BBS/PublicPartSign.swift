import Foundation
import Locking

// Sign when most messages are public. A = [inv]·B with B = C + Σ_secret H_i·msg_i, where
// C = P1 + Q_1·domain + Σ_public H_i·msg_i depends only on public data (the public key, the
// header, the public messages), so C is computed once by the variable-time MSM and cached;
// each Sign then pays one constant-time variable-base multiplication [inv]·C and one
// fixed-base term [msg_i·inv]·H_i per secret message, instead of a fixed-base term per base.
// A public part used often (a due month signs many credentials with the same expiry and type)
// gets a fixed-base table of its own, so [inv]·C becomes one more fixed-base term.

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

        let (e, secretInverse) = try signingScalars(secretKey: secretKey, scalars: scalars, domain: part.domain)
        var inverse = secretInverse
        defer { wipe(value: &inverse) }
        var coefficients = [Fr]()
        coefficients.reserveCapacity(secretIndices.count + 1)
        defer { wipe(elements: &coefficients) }
        for i in secretIndices { coefficients.append(scalars[i] * inverse) }
        let secretTables = secretIndices.map { allTables[$0 + 2] }
        let a: G1Point
        if let table = part.table {
            coefficients.append(inverse)
            a = G1Point.multiScalarMultiplyFixedBase(secretTables + [table], coefficients)
        } else {
            a = part.c.multiplied(by: inverse) + G1Point.multiScalarMultiplyFixedBase(secretTables, coefficients)
        }
        return a.compressed + e.bigEndianBytes
    }
}

extension BBS {
    /// Whether the cached public part for these inputs has its own fixed-base table (for tests).
    package static func publicPartHasTable(publicKey: BBSPublicKey, header: [UInt8], messages: [[UInt8]],
                                           publicIndices: Set<Int>) -> Bool {
        PublicPartCache.shared.hasTable(publicKey: publicKey, header: header, messages: messages,
                                        secretIndices: messages.indices.filter { !publicIndices.contains($0) })
    }
}

/// The public part of B for one (public key, header, public messages), with what Sign hashes.
struct PublicPart: Sendable {
    /// P1 + Q_1·domain + Σ_public H_i·msg_i.
    let c: G1Point
    let domain: Fr
    /// The message scalars with the public ones filled in and zero at the secret indices.
    let publicScalars: [Fr]
    /// C's fixed-base table, once the part has been used `PublicPartCache.tableAfterUses` times.
    var table: FixedBaseTable?
    var uses = 1
    var buildingTable = false
}

/// Public parts computed so far, shared by all threads. Bounded: when full it starts over, so
/// a stream of distinct public messages costs one variable-time MSM each, as without the cache;
/// at most `maxTables` parts hold a table (1.4 MiB), each built only after `tableAfterUses`
/// uses, so parts used once or twice never pay its 1,024 additions.
final class PublicPartCache: Sendable {
    static let shared = PublicPartCache()
    static let capacity = 1024
    static let maxTables = 16
    static let tableAfterUses = 8
    private let cache = LockedValueBox([[UInt8]: PublicPart]())

    func hasTable(publicKey: BBSPublicKey, header: [UInt8], messages: [[UInt8]], secretIndices: [Int]) -> Bool {
        let key = Self.key(publicKey: publicKey, header: header, messages: messages, secretIndices: secretIndices)
        return cache.withLock { $0[key]?.table != nil }
    }

    /// Every public input, each length-prefixed; a secret message contributes only its index.
    static func key(publicKey: BBSPublicKey, header: [UInt8], messages: [[UInt8]], secretIndices: [Int]) -> [UInt8] {
        var key = publicKey.bytes + i2osp(UInt64(header.count), 8) + header + i2osp(UInt64(messages.count), 8)
        for (i, m) in messages.enumerated() {
            if secretIndices.contains(i) {
                key += [0]
            } else {
                key += [1] + i2osp(UInt64(m.count), 8) + m
            }
        }
        return key
    }

    func part(publicKey: BBSPublicKey, header: [UInt8], messages: [[UInt8]], secretIndices: [Int]) -> PublicPart {
        let key = Self.key(publicKey: publicKey, header: header, messages: messages, secretIndices: secretIndices)
        let found = cache.withLock { parts -> (part: PublicPart, buildTable: Bool)? in
            guard var cached = parts[key] else { return nil }
            cached.uses += 1
            let build = cached.uses == Self.tableAfterUses && !cached.c.isIdentity
                && parts.values.count(where: { $0.table != nil || $0.buildingTable }) < Self.maxTables
            cached.buildingTable = build
            parts[key] = cached
            return (cached, build)
        }
        if let (cached, build) = found {
            if build {
                // Outside the lock: other threads keep signing by the variable-base path meanwhile.
                let table = FixedBaseTable(cached.c)
                cache.withLock { parts in
                    parts[key]?.table = table  // unless the cache started over meanwhile
                    parts[key]?.buildingTable = false
                }
            }
            return cached
        }

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
        cache.withLock { parts in
            if parts.count >= Self.capacity { parts.removeAll(keepingCapacity: true) }
            parts[key] = part
        }
        return part
    }
}
