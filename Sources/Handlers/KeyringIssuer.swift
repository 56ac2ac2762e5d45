import BadgeCore
import Credentials

/// Issues credentials with the service's issuer keyring (the active key signs).
public struct KeyringIssuer: CredentialIssuing {
    public let keyring: IssuerKeyring

    public init(keyring: IssuerKeyring) { self.keyring = keyring }

    public func issue(masterKey: [UInt8], badgeType: BadgeType, expiry: Timestamp) throws -> BadgeCredential {
        try keyring.sign(masterKey: masterKey, expiry: expiry, badgeType: badgeType)
    }

    /// A keyring is only made from keys that check out, and the active one can sign.
    public var readiness: Readiness { .ready }
}
