/// Why a BBS operation refused its inputs.
public enum BBSError: Error, Equatable, Sendable {
    /// A secret key is not 32 bytes holding a scalar in [1, r-1].
    case invalidSecretKey
    /// KeyGen's key material is shorter than 32 bytes or its key_info longer than 65535.
    case invalidKeyMaterial
    /// The public key does not decode to a non-identity point of G2.
    case invalidPublicKey(PointDecodingError?)
    /// The signature is not 80 bytes of a non-identity G1 point and a scalar in [1, r-1].
    case invalidSignature
    /// The disclosed indexes are not strictly ascending, or one is outside the message list.
    case invalidDisclosedIndexes
    /// The random-scalar source returned the wrong number of scalars.
    case invalidRandomScalars
    /// SK + e ≡ 0 mod r (never happens with honest inputs, but must not crash).
    case degenerateSignature
}
