import BadgeCore
import Crypto
import Ledger
import Schema
import Storage

extension BadgeService {
    /// `pauseBadge`: suspends issuance and lapse from the request's time (docs/protocol.md,
    /// Pause). The ledger is healed first (a `lapse` of what ran out before the pause), the pause
    /// is recorded, and the answer is the statement with the current credential, if one has not
    /// expired (the schema: absent only when there is "no current credential for pause"): nothing
    /// is issued while paused, and the credential the client holds stays valid until its expiry.
    /// A repeat while paused writes nothing and answers the same; `issueBadge` resumes.
    ///
    /// A purchase a store subscription funds is not paused (rule 9; model 2.13, "prepaid only"):
    /// the store keeps charging, so months held here would run out of step with its periods and
    /// an ordinary end of the subscription would take them back. One its subscription moved away
    /// from is answered `ended`: it holds nothing.
    func pauseBadge(key: Ed25519PublicKey, now: Timestamp) throws -> RPCResponse {
        guard let purchase = try store.read({ try $0.purchase(key: key.purchaseKeyText) }) else {
            return try store.read { try Self.invoiceOnlyAnswer(key, in: $0) }
        }
        let funding = try store.read { try $0.subscriptionFunding(purchaseId: purchase.id) }
        if let funding {
            guard funding.movedAwayAt != nil else {
                throw BadgeServiceError.badRequest("a store subscription is paused or cancelled in the store, not here")
            }
            let rows = try store.read { try $0.ledger(purchaseId: purchase.id) }
            return .badgeCredential(credential: nil, statement: Statement(entries: rows), receipt: nil, subscription: .ended)
        }
        return try conditionalWrite(read: { r in
            (rows: try r.ledger(purchaseId: purchase.id), pausedSince: try r.pausedSince(purchaseId: purchase.id),
             subscription: try funding.flatMap { try r.subscription(id: $0.subscriptionId)?.lastState },
             latest: try r.latestIssuance(purchaseId: purchase.id))
        }, decide: { snapshot in
            let rows = snapshot.rows
            let current = snapshot.latest.flatMap { $0.expiry > now ? $0.credential(masterKey: purchase.masterKey) : nil }
            let paused = RPCResponse.badgeCredential(credential: current, statement: Statement(entries: rows), receipt: nil,
                                                     subscription: snapshot.subscription)
            if snapshot.pausedSince != nil { return .answer(paused) }
            let tip = rows.last ?? .emptyEntry(at: purchase.createdAt, badgeType: purchase.badgeType)
            let plan = planPause(from: tip, at: now, newId: newEntryId)
            let response = RPCResponse.badgeCredential(credential: current, statement: Statement(entries: rows + plan.rows),
                                                       receipt: nil, subscription: snapshot.subscription)
            return .answer(response) { w in
                guard try w.pausedSince(purchaseId: purchase.id) == nil else {
                    throw StorageError.conflict(constraint: "pause raced")
                }
                // Conditional on the tip even when nothing is appended: a row landing meanwhile
                // would date the pause before it.
                try w.appendLedger(purchaseId: purchase.id, expectedCount: rows.count, entries: plan.rows)
                try w.setPause(purchaseId: purchase.id, since: plan.since)
            }
        })
    }
}
