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
        let purchase = try knownPurchase(key)
        for _ in 0..<3 {
            let (rows, latest) = try store.read { r in
                (try r.ledger(purchaseId: purchase.id), try r.latestIssuance(purchaseId: purchase.id))
            }
            let tip = rows.last ?? .emptyEntry(at: purchase.createdAt, badgeType: purchase.badgeType)
            let plan = planIssue(from: tip, at: now, newId: newEntryId)
            var credential: CredentialWire?
            if let period = plan.issued {
                credential = try sign(masterKey: purchase.masterKey, period: period)
            } else if let latest, isPeriodCurrent(periodEnd: latest.periodEnd, at: now) {
                credential = latest.credential(masterKey: purchase.masterKey)
            }
            if !plan.rows.isEmpty {
                do {
                    try store.write { w in
                        try w.appendLedger(purchaseId: purchase.id, expectedCount: rows.count, entries: plan.rows)
                        if let period = plan.issued, let credential {
                            try w.insertIssuance(IssuanceRecord(period: period, purchaseId: purchase.id, credential: credential))
                        }
                    }
                } catch StorageError.conflict {
                    continue  // another request moved the tip: re-run the pass on what it wrote
                }
            }
            let answer = statement(of: rows + plan.rows, asserting: balance.lastEntry)
            return .badgeCredential(credential: credential, statement: answer.statement, receipt: nil, subscription: nil)
        }
        throw BadgeServiceError.internal(detail: "the ledger tip kept moving")
    }
}
