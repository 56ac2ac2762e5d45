import BadgeCore
import Crypto

/// Ledger entry ids: base64url of 16 random bytes, as upstream makes them.
public let randomEntryId: @Sendable () -> String = { Base64URL.encode(SecureRandom.bytes(16)) }
