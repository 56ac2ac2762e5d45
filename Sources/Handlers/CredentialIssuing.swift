import BadgeCore

/// Signs badge credentials: the seam between the handlers and the issuer keys, so handler
/// tests can count signatures or fail them.
public protocol CredentialIssuing: Sendable {
    /// A credential over `masterKey`, `badgeType` and `expiry` with the active issuer key.
    func issue(masterKey: [UInt8], badgeType: BadgeType, expiry: Timestamp) throws -> BadgeCredential
    /// Whether the issuer keys are loaded and usable, or why not (for /readyz).
    var readiness: Readiness { get }
}
