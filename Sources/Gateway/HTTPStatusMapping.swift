import Handlers
import HTTPServer
import RequestAuth
import Schema

/// HTTP status of each RPC answer (README "HTTP status"). The body always says the same
/// as the status, so clients that read only the body lose nothing.
extension ErrorCode {
    public var httpStatus: Int {
        switch self {
        case .badRequest, .unsupportedVersion: 400
        case .unknownPurchaseKey, .unknownOfferId, .productUnavailable: 404
        case .paymentPending, .codeUsed, .receiptUsed, .transferLimited, .offerMismatch: 409
        case .offerDisabled, .codeExpired: 410
        case .codeInvalid, .receiptInvalid, .testPurchase, .paymentNotEntitled: 422
        case .rateLimited: 429
        case .internal: 500
        case .providerNotConfigured: 501
        case .providerUnavailable: 503
        // The service only sends codes it knows (a test walks them all); sending another is its own bug.
        default: 500
        }
    }
}

/// Every authentication failure is 401 (docs/protocol.md, Authentication), whatever the client got wrong.
extension RequestAuthFailure {
    public var httpStatus: Int { 401 }
}

extension RPCOutcome {
    /// 401 for an RPC-level authentication refusal, the error code's status, or 200.
    public var httpStatus: Int {
        if unauthenticated { return 401 }
        return response.errorCode?.httpStatus ?? 200
    }
}
