import BadgeCore
import Crypto
import JSON

/// A verified Stripe event, as much of it as settlement needs.
public struct StripeEvent: Hashable, Sendable {
    /// `evt_…`: deliveries are at least once, so settlement dedupes on it.
    public var id: String
    public var settlement: StripeSettlement

    public init(id: String, settlement: StripeSettlement) {
        self.id = id
        self.settlement = settlement
    }
}

/// What a Stripe event means for an invoice.
public enum StripeSettlement: Hashable, Sendable {
    /// `checkout.session.completed` with `payment_status = paid`, or
    /// `checkout.session.async_payment_succeeded`: the session was paid.
    case paid(sessionId: String, clientReferenceId: String?, amountTotal: Int?, currency: String?, paymentIntent: String?)
    /// `checkout.session.expired`: the session closed unpaid.
    case expired(sessionId: String, clientReferenceId: String?)
    /// `checkout.session.async_payment_failed`: the delayed payment of a completed session
    /// failed. The session is over (Stripe sends no `expired` after it), so it will never be paid.
    case paymentFailed(sessionId: String, clientReferenceId: String?)
    /// `charge.refunded`: `fully` when the whole charge was refunded, else `amountRefunded`
    /// (cumulative over the charge's refunds) of `amount`.
    case refunded(paymentIntent: String, fully: Bool, amountRefunded: Int?, amount: Int?)
    /// `charge.dispute.created` (`status` nil) or `charge.dispute.closed` (`won`, `lost`,
    /// `warning_closed`): a dispute of the charge of `paymentIntent`.
    case disputed(paymentIntent: String, disputeId: String, closedStatus: String?)
    /// Any other event, or a completed session not paid yet: acknowledged, nothing changes.
    case other(type: String)
}

/// Verifies `Stripe-Signature` as stripe-python 16.1.0 does: `t` and every `v1`
/// from the comma-separated header (the first `t` wins), HMAC-SHA256 over `"<t>.<body>"` keyed
/// by the whole `whsec_…` secret, any `v1` matching in constant time, and `t` no older than the
/// tolerance (a future `t` passes, as in the library).
public struct StripeWebhook: Sendable {
    let secret: [UInt8]
    public let toleranceSeconds: Int64

    public static let defaultToleranceSeconds: Int64 = 300

    public init(secret: String, toleranceSeconds: Int64 = defaultToleranceSeconds) {
        self.secret = Array(secret.utf8)
        self.toleranceSeconds = toleranceSeconds
    }

    /// Checks the signature of `body`, then reads the event.
    public func event(body: [UInt8], signatureHeader: String?, now: Timestamp) throws(WebhookRefusal) -> StripeEvent {
        try verify(body: body, signatureHeader: signatureHeader, now: now)
        return try Self.parse(body)
    }

    public func verify(body: [UInt8], signatureHeader: String?, now: Timestamp) throws(WebhookRefusal) {
        guard let header = signatureHeader else { throw .missingSignature }
        var timestamp: Int64?
        var signatures: [[UInt8]] = []
        for item in header.split(separator: ",", omittingEmptySubsequences: false) {
            let parts = item.split(separator: "=", maxSplits: 2, omittingEmptySubsequences: false)
            guard parts.count >= 2 else {
                if parts.first == "t" { throw .malformedSignature }
                continue
            }
            if parts[0] == "t", timestamp == nil {
                guard let t = Self.integer(parts[1]) else { throw .malformedSignature }
                timestamp = t
            } else if parts[0] == "v1" {
                // A v1 that is not hex can never match; keep it so the count stays honest.
                signatures.append(Hex.decode(String(parts[1])) ?? [])
            }
        }
        guard let t = timestamp else { throw .malformedSignature }
        guard !signatures.isEmpty else { throw .malformedSignature }
        let expected = HMACSHA256.authenticate(Array("\(t).".utf8) + body, key: secret)
        var matched = false
        for candidate in signatures where constantTimeEquals(expected, candidate) { matched = true }
        guard matched else { throw .signatureMismatch }
        if toleranceSeconds > 0, t < now.seconds - toleranceSeconds { throw .stale }
    }

    static func integer(_ text: Substring) -> Int64? {
        guard !text.isEmpty, text.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        return Int64(text)
    }

    /// Reads the event envelope and the settlement it carries.
    public static func parse(_ body: [UInt8]) throws(WebhookRefusal) -> StripeEvent {
        guard let json = try? JSONParser().parse(body), json.objectValue != nil else { throw .malformedEvent("not a JSON object") }
        guard let id = json["id"]?.stringValue, !id.isEmpty else { throw .malformedEvent("no id") }
        guard let type = json["type"]?.stringValue else { throw .malformedEvent("no type") }
        let object = json["data"]?["object"]
        func session() throws(WebhookRefusal) -> String {
            guard let s = object?["id"]?.stringValue, !s.isEmpty else { throw .malformedEvent("no session id") }
            return s
        }
        let settlement: StripeSettlement
        switch type {
        case "checkout.session.completed", "checkout.session.async_payment_succeeded":
            guard object?["payment_status"]?.stringValue == "paid" else {
                settlement = .other(type: type)
                break
            }
            settlement = .paid(sessionId: try session(), clientReferenceId: object?["client_reference_id"]?.stringValue,
                               amountTotal: object?["amount_total"]?.numberValue?.exactInt,
                               currency: object?["currency"]?.stringValue,
                               paymentIntent: object?["payment_intent"]?.stringValue)
        case "checkout.session.expired":
            settlement = .expired(sessionId: try session(), clientReferenceId: object?["client_reference_id"]?.stringValue)
        case "checkout.session.async_payment_failed":
            settlement = .paymentFailed(sessionId: try session(), clientReferenceId: object?["client_reference_id"]?.stringValue)
        case "charge.refunded":
            guard let intent = object?["payment_intent"]?.stringValue else { throw .malformedEvent("no payment_intent") }
            let fully: Bool
            if case .bool(let b)? = object?["refunded"] { fully = b } else { fully = false }
            settlement = .refunded(paymentIntent: intent, fully: fully, amountRefunded: object?["amount_refunded"]?.numberValue?.exactInt,
                                   amount: object?["amount"]?.numberValue?.exactInt)
        case "charge.dispute.created", "charge.dispute.closed":
            guard let intent = object?["payment_intent"]?.stringValue, !intent.isEmpty else { throw .malformedEvent("no payment_intent") }
            guard let dispute = object?["id"]?.stringValue, !dispute.isEmpty else { throw .malformedEvent("no dispute id") }
            let closed = type == "charge.dispute.closed"
            guard !closed || object?["status"]?.stringValue != nil else { throw .malformedEvent("a closed dispute without status") }
            settlement = .disputed(paymentIntent: intent, disputeId: dispute, closedStatus: closed ? object?["status"]?.stringValue : nil)
        default:
            settlement = .other(type: type)
        }
        return StripeEvent(id: id, settlement: settlement)
    }
}
