import BadgeCore
import Ledger
import Schema

/// Every way a command can fail, with what a reader of the log needs. Mapped to the
/// protocol's error codes in one place, ``RPCResponse/init(_:)``.
public enum BadgeServiceError: Error, Equatable, CustomStringConvertible {
    /// The request breaks a rule of the protocol; `message` is sent to the client.
    case badRequest(String)
    /// The envelope's version is outside what this service speaks.
    case unsupportedVersion(Int)
    /// A command that needs a purchase record was signed by a key with none.
    case unknownPurchaseKey
    /// Unknown, malformed and revoked codes alike (docs/protocol.md, Errors).
    case codeInvalid
    /// Other keys took all of the code's uses.
    case codeUsed
    /// Past the code's redemption deadline.
    case codeExpired
    /// The funding exists but has not settled (an unpaid code).
    case paymentPending(retryAfter: UInt32?)
    /// The evidence can never verify (an invoice this service never made, or one closed unpaid).
    case receiptInvalid
    /// The payment was credited to, or belongs to, another purchase key.
    case receiptUsed
    /// The store vouched for a purchase that cost nothing (Apple's Sandbox).
    case testPurchase
    /// The subscription moved from a key whose credential is still valid.
    case transferLimited
    /// Catalog refusals of getBadgeInvoice (Pricing).
    case pricing(PricingRefusal)
    /// A payment provider was not reached or failed; the next attempt may work.
    case providerUnavailable(retryAfter: UInt32, detail: String)
    /// No verifier for that store or provider is configured here.
    case providerNotConfigured(String)
    /// Too many requests in flight; retry shortly.
    case overloaded(retryAfter: UInt32)
    /// This path's Play subscription checks for the minute are used; retry when it ends.
    case playChecksUsed(retryAfter: UInt32)
    /// Another process held the database's write lock past the busy timeout; retry shortly.
    case databaseBusy(retryAfter: UInt32)
    /// This service's own failure; `detail` is logged, never sent.
    case `internal`(detail: String)

    public var description: String {
        switch self {
        case .badRequest(let m): return "bad request: \(m)"
        case .unsupportedVersion(let v): return "unsupported version \(v)"
        case .unknownPurchaseKey: return "unknown purchase key"
        case .codeInvalid: return "code invalid"
        case .codeUsed: return "code used"
        case .codeExpired: return "code expired"
        case .paymentPending: return "payment pending"
        case .receiptInvalid: return "receipt invalid"
        case .receiptUsed: return "receipt used"
        case .testPurchase: return "test purchase"
        case .transferLimited: return "transfer limited"
        case .pricing(let refusal): return "pricing: \(refusal)"
        case .providerUnavailable(_, let detail): return "provider unavailable: \(detail)"
        case .providerNotConfigured(let p): return "\(p) not configured"
        case .overloaded: return "overloaded"
        case .playChecksUsed: return "Play subscription checks for this minute used"
        case .databaseBusy: return "database busy"
        case .internal(let detail): return "internal: \(detail)"
        }
    }
}

extension BadgeServiceError {
    /// A store's verdict as a command's failure: the one place a class becomes an error of the
    /// badge paths. `retryAfter` is the store's wait (an hour or a day for `payment_pending`);
    /// `detail` goes to the log, never to the client.
    init(_ verdict: StoreVerdict, retryAfter: UInt32?, detail: String) {
        switch verdict {
        case .receiptInvalid: self = .receiptInvalid
        case .testPurchase: self = .testPurchase
        case .paymentPending: self = .paymentPending(retryAfter: retryAfter ?? StoreVerdict.hour)
        case .providerUnavailable: self = .providerUnavailable(retryAfter: retryAfter ?? BadgeService.providerRetrySeconds, detail: detail)
        case .internal: self = .internal(detail: detail)
        }
    }
}

extension RPCResponse {
    /// The protocol's answer to `error`: its code, a message where one helps, and the
    /// `retryAfter` of the transient codes.
    public init(_ error: BadgeServiceError) {
        switch error {
        case .badRequest(let message): self = .failure(.badRequest, message: message)
        case .unsupportedVersion(let v):
            self = .failure(.unsupportedVersion, message: "version \(v) is not supported; this service speaks \(BadgeService.supportedVersions)")
        case .unknownPurchaseKey: self = .failure(.unknownPurchaseKey)
        case .codeInvalid: self = .failure(.codeInvalid)
        case .codeUsed: self = .failure(.codeUsed)
        case .codeExpired: self = .failure(.codeExpired)
        case .paymentPending(let after): self = .failure(.paymentPending, retryAfter: after ?? ErrorCode.paymentPending.defaultRetryAfter)
        case .receiptInvalid: self = .failure(.receiptInvalid)
        case .receiptUsed: self = .failure(.receiptUsed)
        case .testPurchase: self = .failure(.testPurchase)
        case .transferLimited: self = .failure(.transferLimited)
        case .pricing(let refusal):
            switch refusal {
            case .productUnavailable: self = .failure(.productUnavailable)
            case .unknownOfferId: self = .failure(.unknownOfferId)
            case .offerDisabled: self = .failure(.offerDisabled)
            case .offerMismatch: self = .failure(.offerMismatch)
            }
        case .providerUnavailable(let after, _): self = .failure(.providerUnavailable, retryAfter: after)
        case .providerNotConfigured(let provider):
            self = .failure(.providerNotConfigured, message: "this deployment has no \(provider) verifier")
        case .overloaded(let after): self = .failure(.rateLimited, message: "the service is busy", retryAfter: after)
        case .playChecksUsed(let after):
            self = .failure(.rateLimited, message: "this minute's Google Play subscription checks are used", retryAfter: after)
        // rate_limited is the one transient code about this service itself (payment_pending is
        // about funding, provider_unavailable about a store): nothing was written, retry later.
        case .databaseBusy(let after): self = .failure(.rateLimited, message: "the database is busy", retryAfter: after)
        case .internal: self = .failure(.internal)
        }
    }
}
