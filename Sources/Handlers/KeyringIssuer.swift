import BadgeCore
import Credentials
import Locking

/// Issues credentials with the service's issuer keyring (the active key signs). A reload
/// replaces the keyring whole; a signature in progress finishes with the keyring it started with.
public final class KeyringIssuer: CredentialIssuing {
    private let current: LockedValueBox<IssuerKeyring>

    public init(keyring: IssuerKeyring) { current = LockedValueBox(keyring) }

    /// The keyring in use.
    public var keyring: IssuerKeyring { current.withLock { $0 } }

    /// Signs every later credential with `keyring`'s active key.
    public func replace(with keyring: IssuerKeyring) { current.withLock { $0 = keyring } }

    public func issue(masterKey: [UInt8], badgeType: BadgeType, expiry: Timestamp) throws -> BadgeCredential {
        try keyring.sign(masterKey: masterKey, expiry: expiry, badgeType: badgeType)
    }

    /// A keyring is only made from keys that check out, and the active one can sign.
    public var readiness: Readiness { .ready }
}
