import BadgeCore
import BBS

/// Signs badge credentials with one issuer key. Immutable and `Sendable`: call it from any
/// number of threads at once.
public struct BadgeCredentialSigner: Sendable {
    /// The index (1 … 8) clients know this key by.
    public let keyIndex: Int
    public let secretKey: IssuerSecretKey

    public init(keyIndex: Int, secretKey: IssuerSecretKey) throws(CredentialError) {
        guard IssuerKeyring.indexRange.contains(keyIndex) else { throw .invalidKeyIndex(keyIndex) }
        self.keyIndex = keyIndex
        self.secretKey = secretKey
    }

    public var publicKey: IssuerPublicKey { secretKey.publicKey }

    /// A credential for `masterKey` (32 bytes) of `badgeType`, expiring at the whole second `expiry`.
    public func sign(masterKey: [UInt8], expiry: Timestamp, badgeType: BadgeType) throws(CredentialError) -> BadgeCredential {
        guard masterKey.count == 32 else { throw .invalidMasterKey(byteCount: masterKey.count) }
        guard expiry.nanoseconds == 0 else { throw .expiryNotWholeSecond(RFC3339.format(expiry)) }
        let messages = BadgeCredential.messages(masterKey: masterKey, expiry: expiry, badgeType: badgeType, extra: "")
        let signature: [UInt8]
        do {
            signature = try BBS.sign(secretKey: secretKey.key, publicKey: secretKey.publicKey.key,
                                     header: BadgeCredential.header, messages: messages,
                                     publicIndices: BadgeCredential.publicMessageIndices)
        } catch {
            throw .signingFailed("\(error)")
        }
        return BadgeCredential(keyIndex: keyIndex, masterKey: masterKey, signature: signature,
                               badgeType: badgeType, expiry: expiry, extra: "")
    }
}
