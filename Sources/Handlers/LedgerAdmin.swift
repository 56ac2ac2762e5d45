import BadgeCore
import Crypto
import Ledger
import RequestAuth
import Storage

/// Operator views of a purchase's ledger and goodwill credits (`badge-service ledger …`).
public struct LedgerAdmin: Sendable {
    public let store: any BadgeStore
    public let clock: @Sendable () -> Timestamp
    public let newEntryId: @Sendable () -> String

    public init(store: any BadgeStore, clock: @escaping @Sendable () -> Timestamp,
                newEntryId: @escaping @Sendable () -> String = randomEntryId) {
        self.store = store
        self.clock = clock
        self.newEntryId = newEntryId
    }

    public enum Refusal: Error, Equatable, CustomStringConvertible {
        case notAPurchaseKey
        case unknownPurchase
        case invalid(String)

        public var description: String {
            switch self {
            case .notAPurchaseKey: return "that is not a purchase key (base64url of an Ed25519 public key, 60 characters)"
            case .unknownPurchase: return "no purchase has that key"
            case .invalid(let what): return what
            }
        }
    }

    /// The purchase and its rows, oldest first.
    public func show(_ purchaseKey: String) throws -> (PurchaseRecord, [LedgerEntry]) {
        let purchase = try find(purchaseKey)
        return (purchase, try store.read { try $0.ledger(purchaseId: purchase.id) })
    }

    /// Credits `months` as `support` (a lapse of what ran out comes first); returns the rows written.
    /// Issuance stays with issueBadge, the only source of credentials. On a paused purchase the
    /// credit ends the pause so far (it carries `wasPausedSince`) and the pause goes on from the
    /// credit's time: only issueBadge resumes (docs/protocol.md, Pause).
    public func creditSupport(_ purchaseKey: String, months: Int) throws -> [LedgerEntry] {
        guard (1...255).contains(months) else { throw Refusal.invalid("months must be 1...255") }
        let purchase = try find(purchaseKey)
        let now = clock()
        return try store.write { w in
            let rows = try w.ledger(purchaseId: purchase.id)
            let tip = rows.last ?? .emptyEntry(at: purchase.createdAt, badgeType: purchase.badgeType)
            let pausedSince = try w.pausedSince(purchaseId: purchase.id)
            let t = max(now, tip.createdAt)
            let added: [LedgerEntry]
            do {
                added = try tip.grant(months: months, credit: .support, at: t, badgeType: nil,
                                      purchaseKey: purchase.purchaseKey, pausedSince: pausedSince, newId: newEntryId)
            } catch {
                throw Refusal.invalid("cannot credit: \(error)")
            }
            try w.appendLedger(purchaseId: purchase.id, expectedCount: rows.count, entries: added)
            if pausedSince != nil { try w.setPause(purchaseId: purchase.id, since: t) }
            return added
        }
    }

    private func find(_ text: String) throws -> PurchaseRecord {
        guard let key = PurchaseKey.parse(text) else { throw Refusal.notAPurchaseKey }
        guard let purchase = try store.read({ try $0.purchase(key: key.purchaseKeyText) }) else { throw Refusal.unknownPurchase }
        return purchase
    }
}
