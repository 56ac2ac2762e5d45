import Handlers
import Schema

/// HTTP status of each RPC answer (README "HTTP status"). The body always says the same
/// as the status, so clients that read only the body lose nothing.
public enum HTTPStatusMapping {
    public static func status(for outcome: RPCOutcome) -> Int {
        if outcome.unauthenticated { return 401 }
        guard let code = outcome.response.errorCode else { return 200 }
        return status(for: code)
    }

    public static func status(for code: ErrorCode) -> Int {
        switch code {
        case .badRequest, .unsupportedVersion: return 400
        case .unknownPurchaseKey, .unknownOfferId, .productUnavailable: return 404
        case .paymentPending, .codeUsed, .receiptUsed, .transferLimited, .offerMismatch: return 409
        case .offerDisabled, .codeExpired: return 410
        case .codeInvalid, .receiptInvalid, .testPurchase, .paymentNotEntitled: return 422
        case .rateLimited: return 429
        case .internal: return 500
        case .providerNotConfigured: return 501
        case .providerUnavailable: return 503
        default: return 400
        }
    }
}
