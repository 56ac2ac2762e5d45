import Foundation
import Locking

// BBS ciphersuite BLS12-381-SHA-256 (draft-irtf-cfrg-bbs-signatures -06 … -09): the constant
// strings, hash_to_scalar, messages_to_scalars, create_generators and calculate_domain.

/// BBS signatures over BLS12-381 with SHA-256 (ciphersuite `BBS_BLS12381G1_XMD:SHA-256_SSWU_RO_`).
public enum BBS {
    package static let ciphersuiteID = Array("BBS_BLS12381G1_XMD:SHA-256_SSWU_RO_".utf8)
    /// api_id of the BBS Signatures Interface: ciphersuite_id ‖ "H2G_HM2S_".
    package static let apiID = ciphersuiteID + Array("H2G_HM2S_".utf8)
    /// DST for e, the domain and the proof challenge.
    package static let hashToScalarDST = apiID + Array("H2S_".utf8)
    /// DST of messages_to_scalars.
    package static let mapMessageDST = apiID + Array("MAP_MSG_TO_SCALAR_AS_HASH_".utf8)
    /// The draft's default KeyGen DST (the fixtures pass api_id ‖ "KEYGEN_DST_" explicitly).
    public static let defaultKeyDST = ciphersuiteID + Array("KEYGEN_DST_".utf8)

    /// expand_len: bytes of expanded output per scalar.
    static let expandLength = 48
    public static let secretKeyByteCount = 32
    public static let publicKeyByteCount = 96
    public static let signatureByteCount = 80

    /// hash_to_scalar: OS2IP(expand_message_xmd(msg, dst, 48)) mod r.
    package static func hashToScalar(_ message: some Collection<UInt8>, dst: some Collection<UInt8>) -> Fr {
        // 48 bytes is always within expand_message_xmd's limits. Wiped: for KeyGen they give SK.
        var uniform = try! ExpandMessageXMD.expand(message, dst: dst, length: expandLength)
        defer { wipe(&uniform) }
        return Fr(reducing: uniform)
    }

    /// messages_to_scalars: each message hashed with the map-to-scalar DST.
    package static func messagesToScalars(_ messages: [[UInt8]]) -> [Fr] {
        messages.map { hashToScalar($0, dst: mapMessageDST) }
    }

    /// The base point P1 (create_generators with the "BP_" seed, count 1).
    package static let p1: G1Point = deriveGenerators(
        seed: ciphersuiteID + Array("H2G_HM2S_BP_MESSAGE_GENERATOR_SEED".utf8),
        seedDST: ciphersuiteID + Array("H2G_HM2S_SIG_GENERATOR_SEED_".utf8),
        generatorDST: ciphersuiteID + Array("H2G_HM2S_SIG_GENERATOR_DST_".utf8),
        count: 1)[0]

    /// create_generators(count, api_id): Q_1 followed by H_1 … H_(count-1). Cached: the sequence
    /// for a larger count extends the one for a smaller count.
    package static func generators(count: Int) -> [G1Point] {
        GeneratorCache.shared.generators(count: count).map(\.point)
    }

    static func cachedGenerators(count: Int) -> [CachedGenerator] {
        GeneratorCache.shared.generators(count: count)
    }

    /// The generator recursion of create_generators.
    static func deriveGenerators(seed: [UInt8], seedDST: [UInt8], generatorDST: [UInt8], count: Int) -> [G1Point] {
        guard count > 0 else { return [] }
        var v = try! ExpandMessageXMD.expand(seed, dst: seedDST, length: expandLength)
        var out = [G1Point]()
        for i in 1...count {
            v = try! ExpandMessageXMD.expand(v + i2osp(UInt64(i), 8), dst: seedDST, length: expandLength)
            out.append(HashToG1.hash(v, dst: generatorDST))
        }
        return out
    }

    /// calculate_domain(PK, Q_1, (H_1…H_L), header, api_id).
    static func calculateDomain(publicKey: [UInt8], generators: ArraySlice<CachedGenerator>, header: [UInt8]) -> Fr {
        var input = publicKey
        input += i2osp(UInt64(generators.count - 1), 8)
        for g in generators { input += g.compressed }
        input += apiID
        input += i2osp(UInt64(header.count), 8)
        input += header
        return hashToScalar(input, dst: hashToScalarDST)
    }

    /// calculate_domain for `messageCount` messages, from the public key bytes and header.
    package static func calculateDomain(publicKey: [UInt8], header: [UInt8], messageCount: Int) -> Fr {
        calculateDomain(publicKey: publicKey, generators: cachedGenerators(count: messageCount + 1)[...], header: header)
    }

    /// B = P1 + Q_1·domain + Σ H_i·msg_i. Constant time when signing: the message scalars are
    /// hashes of the client's master key and badge data, which deserve the care of secrets;
    /// variable time when verifying, where the brief and the draft treat them as public.
    static func computeB(generators: [CachedGenerator], domain: Fr, scalars: [Fr], constantTime: Bool = false) -> G1Point {
        let points = Array(generators.map(\.point).prefix(scalars.count + 1))
        var all = [Fr]()
        all.reserveCapacity(scalars.count + 1)
        all.append(domain)
        all.append(contentsOf: scalars)
        defer { wipe(elements: &all) }
        let sum = constantTime ? G1Point.multiScalarMultiply(points, all)
                               : G1Point.multiScalarMultiplyVariableTime(points, all)
        return p1 + sum
    }

    /// B for the given messages (the signature's trace value), for tests and diagnostics.
    package static func computeB(publicKey: [UInt8], header: [UInt8], messages: [[UInt8]]) -> G1Point {
        let gens = cachedGenerators(count: messages.count + 1)
        let domain = calculateDomain(publicKey: publicKey, generators: gens[...], header: header)
        return computeB(generators: gens, domain: domain, scalars: messagesToScalars(messages))
    }
}

/// I2OSP(value, length) for length ≤ 8.
func i2osp(_ value: UInt64, _ length: Int) -> [UInt8] {
    (0..<length).reversed().map { UInt8(truncatingIfNeeded: value >> (8 * UInt64($0))) }
}

/// A generator with its compressed form, which calculate_domain hashes.
struct CachedGenerator: Sendable {
    let point: G1Point
    let compressed: [UInt8]
}

/// The message generators computed so far, shared by all threads.
final class GeneratorCache: Sendable {
    static let shared = GeneratorCache()
    private let cache = LockedValueBox([CachedGenerator]())

    func generators(count: Int) -> [CachedGenerator] {
        cache.withLock { cached in
            if cached.count < count {
                let points = BBS.deriveGenerators(
                    seed: BBS.apiID + Array("MESSAGE_GENERATOR_SEED".utf8),
                    seedDST: BBS.apiID + Array("SIG_GENERATOR_SEED_".utf8),
                    generatorDST: BBS.apiID + Array("SIG_GENERATOR_DST_".utf8),
                    count: count)
                cached = points.map { CachedGenerator(point: $0, compressed: $0.compressed) }
            }
            return Array(cached.prefix(count))
        }
    }
}
