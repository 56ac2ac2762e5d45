import BadgeCore
import Handlers
import Locking
import Schema

/// A `SubscriptionStore` whose answers a test scripts per reference: each read answers what was
/// last scripted for it (a refusal when nothing was), and every read and confirmation is counted.
public final class ScriptedSubscriptionStore: SubscriptionStore, Sendable {
    public let name: String
    private struct Script {
        var answers: [String: Result<SubscriptionReading, SubscriptionRefusal>] = [:]
        var confirmRefusal: SubscriptionRefusal?
        var onConfirm: (@Sendable () -> Void)?
        var onRead: (@Sendable () -> Void)?
        var reads: [(reference: String, at: Timestamp)] = []
        var confirmed: [(reference: String, chargeId: String)] = []
    }
    private let script = LockedValueBox(Script())

    public init(name: String) { self.name = name }

    /// What every read of `reference` answers from now on.
    public func answer(_ reference: String, _ answer: Result<SubscriptionReading, SubscriptionRefusal>) {
        script.withLock { $0.answers[reference] = answer }
    }

    /// The refusal confirmations answer from now on (nil: they succeed).
    public func refuseConfirmations(_ refusal: SubscriptionRefusal?) {
        script.withLock { $0.confirmRefusal = refusal }
    }

    /// Runs on each confirmation from now on: what lands while the service waits for the store.
    public func onConfirm(_ action: (@Sendable () -> Void)?) {
        script.withLock { $0.onConfirm = action }
    }

    /// Runs `action` each time the store is read, once its answer is chosen (what happens while
    /// the service waits for the store); nil stops it.
    public func onRead(_ action: (@Sendable () -> Void)?) {
        script.withLock { $0.onRead = action }
    }

    /// The references read so far, in order.
    public var reads: [String] { script.withLock { $0.reads.map(\.reference) } }
    /// The charges confirmed so far, in order.
    public var confirmed: [String] { script.withLock { $0.confirmed.map(\.chargeId) } }

    public func read(reference: String, now: Timestamp) throws(SubscriptionRefusal) -> SubscriptionReading {
        let (answer, action) = script.withLock { s in
            s.reads.append((reference, now))
            return (s.answers[reference], s.onRead)
        }
        action?()
        switch answer {
        case .success(let reading)?: return reading
        case .failure(let refusal)?: throw refusal
        case nil: throw SubscriptionRefusal(.providerUnavailable(retryAfter: nil), "scripted: no answer for this reference")
        }
    }

    public func confirm(reference: String, charge: StoreCharge) throws(SubscriptionRefusal) {
        let (refusal, action) = script.withLock { s in
            if s.confirmRefusal == nil { s.confirmed.append((reference, charge.chargeId)) }
            return (s.confirmRefusal, s.onConfirm)
        }
        action?()
        if let refusal { throw refusal }
    }
}

extension SubscriptionReading {
    /// A reading whose latest charge is grantable.
    public static func charged(_ charge: StoreCharge, state: SubscriptionState = .renewing, revoked: Bool = false,
                               confirmed: Bool = true) -> SubscriptionReading {
        SubscriptionReading(state: state, latestChargeId: charge.chargeId, latestChargeRevoked: revoked,
                            charge: revoked ? .failure(SubscriptionRefusal(.paymentPending(retryAfter: SubscriptionRefusal.day), "revoked"))
                                            : .success(charge),
                            isConfirmed: confirmed)
    }

    /// A reading whose latest charge (if any) the first-charge rule refuses with `refusal`.
    public static func refused(_ refusal: SubscriptionRefusal, state: SubscriptionState, latestChargeId: String? = nil,
                               revoked: Bool = false) -> SubscriptionReading {
        SubscriptionReading(state: state, latestChargeId: latestChargeId, latestChargeRevoked: revoked, charge: .failure(refusal))
    }
}
