import BadgeCore
import Crypto
import Ledger
import Schema
import Storage

extension BadgeService {
    /// `issueBadge`: heals the ledger with a lapse of what ran out, issues the month due from
    /// the balance, or answers the credential of the period still running; an exhausted
    /// balance gets no credential and a statement that shows why (spec `issueBadge`).
    ///
    /// The credential is signed first; rows and issuance are written in one transaction only
    /// if the ledger's tip has not moved (a conditional append), else the pass is re-run.
    func issueBadge(key: Ed25519PublicKey, balance: Balance, now: Timestamp) throws -> RPCResponse {
        func snapshot(_ r: any StoreReader, _ purchase: PurchaseRecord) throws -> IssueSnapshot {
            IssueSnapshot(tail: try r.ledgerTail(purchaseId: purchase.id, asserting: balance.lastEntry.entryId,
                                                 completeHistoryLimit: Statement.completeHistoryLimit),
                          latest: try r.latestIssuance(purchaseId: purchase.id),
                          pausedSince: try r.pausedSince(purchaseId: purchase.id))
        }
        // The purchase, its funding and the first snapshot in one read transaction: a cached
        // answer (the commonest request) then costs one transaction.
        let (purchase, funding, first) = try store.read { r -> (PurchaseRecord, SubscriptionFunding?, IssueSnapshot?) in
            guard let purchase = try r.purchase(key: key.purchaseKeyText) else { throw BadgeServiceError.unknownPurchaseKey }
            if let funding = try r.subscriptionFunding(purchaseId: purchase.id) { return (purchase, funding, nil) }
            return (purchase, nil, try snapshot(r, purchase))
        }
        if let funding {
            return try issueSubscriptionBadge(purchase: purchase, funding: funding, balance: balance, now: now)
        }
        return try conditionalWrite(first: first, read: { r in try snapshot(r, purchase) }, decide: { snapshot in
            let tip = snapshot.tail.tip ?? .emptyEntry(at: purchase.createdAt, badgeType: purchase.badgeType)
            // Issuing on a paused badge resumes it (docs/protocol.md, Pause).
            let plan = planIssue(from: tip, at: now, pausedSince: snapshot.pausedSince, newId: newEntryId)
            var credential: BadgeCredential?
            if let period = plan.issued {
                credential = try sign(masterKey: purchase.masterKey, period: period)
            } else if let latest = snapshot.latest, isPeriodCurrent(periodEnd: latest.periodEnd, at: now) {
                credential = latest.credential(masterKey: purchase.masterKey)
            }
            let answer = statement(of: snapshot.tail.appending(plan.rows), asserting: balance.lastEntry)
            let response = RPCResponse.badgeCredential(credential: credential, statement: answer.statement, receipt: nil,
                                                       subscription: nil)
            guard !plan.rows.isEmpty || snapshot.pausedSince != nil else { return .answer(response) }
            return .answer(response) { w in
                try w.endPause(purchaseId: purchase.id, expected: snapshot.pausedSince)
                try w.appendLedger(purchaseId: purchase.id, expectedCount: snapshot.tail.count, entries: plan.rows)
                if let period = plan.issued, let credential {
                    try w.insertIssuance(IssuanceRecord(period: period, purchaseId: purchase.id, credential: credential))
                }
            }
        })
    }
}

/// What one pass of `issueBadge` reads: the ledger from the asserted entry, the latest
/// issuance, and the pause in force.
private struct IssueSnapshot {
    let tail: LedgerTail
    let latest: IssuanceRecord?
    let pausedSince: Timestamp?
}
