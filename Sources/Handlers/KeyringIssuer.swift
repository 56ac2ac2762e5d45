import BadgeCore
import Credentials
import Schema

/// Issues credentials with the service's issuer keyring (the active key signs).
public struct KeyringIssuer: CredentialIssuing {
    public let keyring: IssuerKeyring

    public init(keyring: IssuerKeyring) { self.keyring = keyring }

    public func issue(masterKey: [UInt8], badgeType: BadgeType, expiry: Timestamp) throws -> CredentialWire {
        let c = try keyring.sign(masterKey: masterKey, expiry: expiry, badgeType: badgeType)
        return CredentialWire(badgeKeyIdx: c.keyIndex, masterKey: c.masterKey, signature: c.signature,
                              badgeType: c.badgeType, badgeExpiry: c.expiry, badgeExtra: c.extra)
    }

    public var isReady: Bool { true }
}
