import Crypto

// BBS proofs of knowledge of a signature with selective disclosure (draft -06 … -09, §3.7–3.8,
// CoreProofGen/CoreProofVerify). ProofGen runs on the holder's side with secret blinding
// scalars, so its multiplications use the constant-time path; ProofVerify handles public data.

/// Produces `count` uniformly random scalars: the source of ProofGen's blinding factors.
public typealias RandomScalarSource = (_ count: Int) throws -> [Fr]

extension BBS {
    /// calculate_random_scalars: OS2IP(48 random bytes) mod r, from the system CSPRNG.
    public static func randomScalars(count: Int) -> [Fr] {
        (0..<count).map { _ in
            var bytes = SecureRandom.bytes(expandLength)
            defer { wipe(&bytes) }
            return Fr(reducing: bytes)
        }
    }

    /// The fixtures' mocked calculate_random_scalars: expand_message_xmd(seed, dst, 48·count) cut into scalars.
    package static func seededRandomScalars(seed: [UInt8], dst: [UInt8], count: Int) throws(ExpandMessageError) -> [Fr] {
        let v = try ExpandMessageXMD.expand(seed, dst: dst, length: expandLength * count)
        return (0..<count).map { Fr(reducing: Array(v[expandLength * $0..<expandLength * ($0 + 1)])) }
    }

    /// Byte length of a proof with `undisclosed` hidden messages: 3 points, 4 + U scalars.
    public static func proofByteCount(undisclosed: Int) -> Int { 3 * 48 + (4 + undisclosed) * 32 }

    /// ProofGen(PK, signature, header, ph, messages, disclosed_indexes): a proof revealing only
    /// messages[i] for i in `disclosedIndexes` (0-based, strictly ascending).
    public static func proofGen(publicKey: BBSPublicKey, signature: [UInt8], header: [UInt8],
                                presentationHeader: [UInt8], messages: [[UInt8]], disclosedIndexes: [Int],
                                randomScalars source: RandomScalarSource = { BBS.randomScalars(count: $0) }) throws -> [UInt8] {
        guard let (a, e) = decodeSignature(signature) else { throw BBSError.invalidSignature }
        let l = messages.count
        guard isStrictlyAscending(disclosedIndexes, below: l) else { throw BBSError.invalidDisclosedIndexes }
        let disclosed = Set(disclosedIndexes)
        let undisclosedIndexes = (0..<l).filter { !disclosed.contains($0) }
        let u = undisclosedIndexes.count
        let scalars = messagesToScalars(messages)

        let random = try source(5 + u)
        guard random.count == 5 + u else { throw BBSError.invalidRandomScalars }
        let (r1, r2, eTilde, r1Tilde, r3Tilde) = (random[0], random[1], random[2], random[3], random[4])
        let mTilde = Array(random[5...])

        // ProofInit
        let gens = cachedGenerators(count: l + 1)
        let domain = calculateDomain(publicKey: publicKey.bytes, generators: gens[...], header: header)
        let b = computeB(generators: gens, domain: domain, scalars: scalars, constantTime: true)
        let d = b.multiplied(by: r2)
        let aBar = a.multiplied(by: r1 * r2)
        let bBar = d.multiplied(by: r1) - aBar.multiplied(by: e)
        let t1 = aBar.multiplied(by: eTilde) + d.multiplied(by: r1Tilde)
        let t2 = G1Point.multiScalarMultiply([d] + undisclosedIndexes.map { gens[$0 + 1].point }, [r3Tilde] + mTilde)

        let challenge = proofChallenge(aBar: aBar, bBar: bBar, d: d, t1: t1, t2: t2, domain: domain,
                                       disclosedIndexes: disclosedIndexes,
                                       disclosedScalars: disclosedIndexes.map { scalars[$0] },
                                       presentationHeader: presentationHeader)

        // ProofFinalize
        let r3 = r2.inverse()
        var out = aBar.compressed + bBar.compressed + d.compressed
        out += (eTilde + e * challenge).bigEndianBytes
        out += (r1Tilde - r1 * challenge).bigEndianBytes
        out += (r3Tilde - r3 * challenge).bigEndianBytes
        for (j, index) in undisclosedIndexes.enumerated() { out += (mTilde[j] + scalars[index] * challenge).bigEndianBytes }
        out += challenge.bigEndianBytes
        return out
    }

    /// ProofVerify(PK, proof, header, ph, disclosed_messages, disclosed_indexes): the total
    /// message count follows from the proof length (L = U + R).
    public static func proofVerify(publicKey: BBSPublicKey, proof: [UInt8], header: [UInt8], presentationHeader: [UInt8],
                                   disclosedMessages: [[UInt8]], disclosedIndexes: [Int]) -> Bool {
        let floor = proofByteCount(undisclosed: 0)
        guard proof.count >= floor, (proof.count - floor) % 32 == 0 else { return false }
        let u = (proof.count - floor) / 32
        let r = disclosedIndexes.count
        let l = u + r
        guard disclosedMessages.count == r, isStrictlyAscending(disclosedIndexes, below: l) else { return false }

        // octets_to_proof: three non-identity subgroup points, then 4 + U scalars in [1, r-1].
        var points = [G1Point]()
        for i in 0..<3 {
            guard let p = try? G1Point(compressed: proof[48 * i..<48 * (i + 1)]), !p.isIdentity else { return false }
            points.append(p)
        }
        var proofScalars = [Fr]()
        for i in 0..<(4 + u) {
            let start = floor - 4 * 32 + 32 * i
            guard let s = Fr(bigEndian: proof[start..<start + 32]), !s.isZero else { return false }
            proofScalars.append(s)
        }
        let (aBar, bBar, d) = (points[0], points[1], points[2])
        let (eHat, r1Hat, r3Hat) = (proofScalars[0], proofScalars[1], proofScalars[2])
        let mHat = Array(proofScalars[3..<(3 + u)])
        let c = proofScalars[3 + u]

        // ProofVerifyInit
        let disclosed = Set(disclosedIndexes)
        let undisclosedIndexes = (0..<l).filter { !disclosed.contains($0) }
        let scalars = messagesToScalars(disclosedMessages)
        let gens = cachedGenerators(count: l + 1)
        let domain = calculateDomain(publicKey: publicKey.bytes, generators: gens[...], header: header)
        let t1 = G1Point.multiScalarMultiplyVariableTime([bBar, aBar, d], [c, eHat, r1Hat])
        let bv = p1 + G1Point.multiScalarMultiplyVariableTime([gens[0].point] + disclosedIndexes.map { gens[$0 + 1].point },
                                                            [domain] + scalars)
        let t2 = G1Point.multiScalarMultiplyVariableTime([bv, d] + undisclosedIndexes.map { gens[$0 + 1].point },
                                                       [c, r3Hat] + mHat)

        let challenge = proofChallenge(aBar: aBar, bBar: bBar, d: d, t1: t1, t2: t2, domain: domain,
                                       disclosedIndexes: disclosedIndexes, disclosedScalars: scalars,
                                       presentationHeader: presentationHeader)
        guard challenge == c else { return false }
        return Pairing.isProductOne([(aBar, publicKey.point), (bBar, -G2Point.generator)])
    }

    /// ProofChallengeCalculate: hash of (R, i1, msg_i1, …, Abar, Bbar, D, T1, T2, domain) ‖ I2OSP(|ph|, 8) ‖ ph.
    static func proofChallenge(aBar: G1Point, bBar: G1Point, d: G1Point, t1: G1Point, t2: G1Point, domain: Fr,
                               disclosedIndexes: [Int], disclosedScalars: [Fr], presentationHeader: [UInt8]) -> Fr {
        var input = i2osp(UInt64(disclosedIndexes.count), 8)
        for (i, s) in zip(disclosedIndexes, disclosedScalars) { input += i2osp(UInt64(i), 8) + s.bigEndianBytes }
        for p in [aBar, bBar, d, t1, t2] { input += p.compressed }
        input += domain.bigEndianBytes
        input += i2osp(UInt64(presentationHeader.count), 8) + presentationHeader
        return hashToScalar(input, dst: hashToScalarDST)
    }

    private static func isStrictlyAscending(_ indexes: [Int], below limit: Int) -> Bool {
        var previous = -1
        for i in indexes {
            guard i > previous, i < limit else { return false }
            previous = i
        }
        return true
    }
}
