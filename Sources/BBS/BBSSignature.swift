
// BBS Sign and Verify (draft-irtf-cfrg-bbs-signatures -06 … -09, §3.5, §3.6, CoreSign/CoreVerify).
// Secret data in Sign: SK, e, (SK + e)^-1 and the message scalars (hashes of the client's master
// key). SK + e and the Fermat inverse are fixed sequences of Fr operations. Sign never forms B:
// A = [(SK + e)^-1]·B = [inv]·P1 + [domain·inv]·Q_1 + Σ [msg_i·inv]·H_i, all bases fixed, so A
// is one constant-time fixed-base multi-scalar multiplication over precomputed tables.
// `signVariableBase` keeps the former path (B by the constant-time MSM, then a constant-time
// variable-base multiplication) as the reference; Verify uses the variable-time MSM.

extension BBS {
    /// Sign(SK, PK, header, messages): the 80-byte signature A ‖ e.
    public static func sign(secretKey: BBSSecretKey, publicKey: BBSPublicKey,
                            header: [UInt8], messages: [[UInt8]]) throws(BBSError) -> [UInt8] {
        try sign(secretKey: secretKey, publicKey: publicKey, header: header, messages: messages, fixedBase: true)
    }

    /// Sign by the former path, B then [(SK + e)^-1]·B by the variable-base multiplication: the
    /// same bytes as `sign`, slower; the reference for tests and bench/bbs.
    package static func signVariableBase(secretKey: BBSSecretKey, publicKey: BBSPublicKey,
                                         header: [UInt8], messages: [[UInt8]]) throws(BBSError) -> [UInt8] {
        try sign(secretKey: secretKey, publicKey: publicKey, header: header, messages: messages, fixedBase: false)
    }

    private static func sign(secretKey: BBSSecretKey, publicKey: BBSPublicKey, header: [UInt8],
                             messages: [[UInt8]], fixedBase: Bool) throws(BBSError) -> [UInt8] {
        let gens = cachedGenerators(count: messages.count + 1)
        var scalars = messagesToScalars(messages)
        defer { wipe(elements: &scalars) }
        let domain = calculateDomain(publicKey: publicKey.bytes, generators: gens[...], header: header)

        let (e, secretInverse) = try signingScalars(secretKey: secretKey, scalars: scalars, domain: domain)
        var inverse = secretInverse
        defer { wipe(value: &inverse) }
        let a: G1Point
        if fixedBase, let tables = FixedBaseTables.shared.tables(count: scalars.count + 2) {
            // The coefficients of P1, Q_1, H_1 … H_L, in a buffer of its final size.
            var coefficients = [Fr]()
            coefficients.reserveCapacity(scalars.count + 2)
            defer { wipe(elements: &coefficients) }
            coefficients.append(inverse)
            coefficients.append(domain * inverse)
            for s in scalars { coefficients.append(s * inverse) }
            a = G1Point.multiScalarMultiplyFixedBase(tables, coefficients)
        } else {
            a = computeB(generators: gens, domain: domain, scalars: scalars, constantTime: true).multiplied(by: inverse)
        }
        return a.compressed + e.bigEndianBytes
    }

    /// e = hash_to_scalar(SK ‖ msg_1 ‖ … ‖ msg_L ‖ domain) and (SK + e)^-1, which the caller
    /// wipes once A is formed. Both Signs share it: the same e makes the same bytes.
    static func signingScalars(secretKey: BBSSecretKey, scalars: [Fr], domain: Fr) throws(BBSError) -> (e: Fr, inverse: Fr) {
        // The input in a buffer of its final size (no reallocation leaves SK behind).
        var eInput = [UInt8]()
        eInput.reserveCapacity(Fr.byteCount * (scalars.count + 2))
        defer { wipe(&eInput) }
        secretKey.scalar.appendBigEndian(to: &eInput)
        for s in scalars { s.appendBigEndian(to: &eInput) }
        domain.appendBigEndian(to: &eInput)
        let e = hashToScalar(eInput, dst: hashToScalarDST)

        var skPlusE = secretKey.scalar + e
        defer { wipe(value: &skPlusE) }
        guard !skPlusE.isZero else { throw .degenerateSignature }
        return (e, skPlusE.inverse())
    }

    /// Verify(PK, signature, header, messages).
    public static func verify(publicKey: BBSPublicKey, signature: [UInt8],
                              header: [UInt8], messages: [[UInt8]]) -> Bool {
        guard let (a, e) = decodeSignature(signature) else { return false }
        let gens = cachedGenerators(count: messages.count + 1)
        let domain = calculateDomain(publicKey: publicKey.bytes, generators: gens[...], header: header)
        let b = computeB(generators: gens, domain: domain, scalars: messagesToScalars(messages))
        // e(A, W) · e(A·e - B, BP2) = 1  (the -09 form; the same check as -06's).
        return Pairing.isProductOne([(a, publicKey.point), (a.multipliedVariableTime(by: e) - b, .generator)])
    }

    /// Verify with the public key as bytes; an invalid key verifies nothing.
    public static func verify(publicKey: [UInt8], signature: [UInt8], header: [UInt8], messages: [[UInt8]]) -> Bool {
        guard let pk = try? BBSPublicKey(bytes: publicKey) else { return false }
        return verify(publicKey: pk, signature: signature, header: header, messages: messages)
    }

    /// octets_to_signature: A a non-identity G1 point, e in [1, r-1].
    static func decodeSignature(_ bytes: [UInt8]) -> (G1Point, Fr)? {
        guard bytes.count == signatureByteCount,
              let a = try? G1Point(compressed: bytes[0..<48]), !a.isIdentity,
              let e = Fr(bigEndian: bytes[48..<80]), !e.isZero else { return nil }
        return (a, e)
    }
}
