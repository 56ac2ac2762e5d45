import BadgeCore
import Crypto
import Handlers
import Locking

/// Signs with a keyed hash instead of BBS (the BBS issuer is tested on its own and end to end):
/// deterministic, fast, and it counts signatures; `failing` makes it refuse.
public final class CountingIssuer: CredentialIssuing, Sendable {
    private let signed = LockedValueBox(0)
    private let refusing = LockedValueBox(false)

    public init() {}

    /// While true, every signature is refused with ``Refused``.
    public var failing: Bool {
        get { refusing.withLock { $0 } }
        set { refusing.withLock { $0 = newValue } }
    }

    /// Credentials signed so far.
    public var count: Int { signed.withLock { $0 } }
    public var readiness: Readiness { .ready }

    public struct Refused: Error {}

    public func issue(masterKey: [UInt8], badgeType: BadgeType, expiry: Timestamp) throws -> BadgeCredential {
        if failing { throw Refused() }
        signed.withLock { $0 += 1 }
        let digest = SHA256.hash(masterKey + Array("\(badgeType)|\(expiry)".utf8))
        return BadgeCredential(keyIndex: 1, masterKey: masterKey, signature: digest + digest + Array(digest.prefix(16)),
                               badgeType: badgeType, expiry: expiry)
    }
}
