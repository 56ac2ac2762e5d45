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
        // The purchase, its funding and the first snapshot in one read transaction: a cached
        // answer (the commonest request) then costs one transaction.
        guard let (purchase, funding, first) = try store.read({ try Self.issueRead($0, key: key, balance: balance) }) else {
            return try store.read { try Self.invoiceOnlyAnswer(key, in: $0) }
        }
        if let funding {
            return try issueSubscriptionBadge(purchase: purchase, funding: funding, balance: balance, now: now)
        }
        return try conditionalWrite(first: first, read: { r in try IssueSnapshot(r, purchase: purchase, asserting: balance) },
                                    decide: { snapshot in
            try issuePass(purchase: purchase, snapshot: snapshot, plan: issuePlan(purchase: purchase, snapshot: snapshot, now: now),
                          balance: balance, now: now)
        })
    }

    /// `issueBadge` when it writes nothing and signs nothing: the credential of the period still
    /// running (or none), read without waiting. Nil when the pass would sign, write or ask a
    /// store (a subscription), or the store cannot read without waiting: ``issueBadge(key:balance:now:)``
    /// answers then.
    func issuedBadgeWithoutWaiting(key: Ed25519PublicKey, balance: Balance, now: Timestamp) throws -> RPCResponse? {
        guard let read = try store.readWithoutWaiting({ try Self.issueRead($0, key: key, balance: balance) }) else { return nil }
        guard let (purchase, funding, first) = read else { return try store.readWithoutWaiting { try Self.invoiceOnlyAnswer(key, in: $0) } }
        guard funding == nil, let snapshot = first else { return nil }
        let plan = issuePlan(purchase: purchase, snapshot: snapshot, now: now)
        guard plan.issued == nil, !Self.writes(plan, snapshot) else { return nil }
        return try issuePass(purchase: purchase, snapshot: snapshot, plan: plan, balance: balance, now: now).answer
    }

    /// The purchase, its subscription funding, and without one the first snapshot, in the caller's
    /// read transaction; nil when the key holds no purchase.
    private static func issueRead(_ r: any StoreReader, key: Ed25519PublicKey,
                                  balance: Balance) throws -> (PurchaseRecord, SubscriptionFunding?, IssueSnapshot?)? {
        guard let view = try r.issueView(purchaseKey: key.purchaseKeyText, asserting: balance.lastEntry.entryId,
                                         completeHistoryLimit: Statement.completeHistoryLimit) else { return nil }
        if let funding = view.funding { return (view.purchase, funding, nil) }
        guard let tail = view.tail else { throw StorageError.corrupt("the issue view of purchase \(view.purchase.id) has no ledger") }
        return (view.purchase, nil, IssueSnapshot(tail: tail, latest: view.latestIssuance, pausedSince: view.pausedSince))
    }

    /// The answer to `issueBadge` or `pauseBadge` from a key that holds no purchase: one whose only
    /// record is an invoice (spec, Identity: getBadgeInvoice makes the record) holds no months yet,
    /// so no credential and an empty statement; any other is unknown_purchase_key.
    static func invoiceOnlyAnswer(_ key: Ed25519PublicKey, in r: any StoreReader) throws -> RPCResponse {
        guard try !r.invoices(purchaseKey: key.purchaseKeyText).isEmpty else { throw BadgeServiceError.unknownPurchaseKey }
        return .badgeCredential(credential: nil, statement: Statement(entries: []), receipt: nil, subscription: nil)
    }

    /// What `snapshot` calls for now: the lapse that heals the ledger, the month due.
    private func issuePlan(purchase: PurchaseRecord, snapshot: IssueSnapshot, now: Timestamp) -> LedgerPlan {
        let tip = snapshot.tail.tip ?? .emptyEntry(at: purchase.createdAt, badgeType: purchase.badgeType)
        // Issuing on a paused badge resumes it (docs/protocol.md, Pause).
        return planIssue(from: tip, at: now, pausedSince: snapshot.pausedSince, newId: newEntryId)
    }

    /// Whether carrying out `plan` writes: rows to append, or a pause to end.
    private static func writes(_ plan: LedgerPlan, _ snapshot: IssueSnapshot) -> Bool {
        !plan.rows.isEmpty || snapshot.pausedSince != nil
    }

    /// One pass of `issueBadge`: signs the month `plan` issues, answers, and stages the write.
    private func issuePass(purchase: PurchaseRecord, snapshot: IssueSnapshot, plan: LedgerPlan, balance: Balance,
                           now: Timestamp) throws -> StagedAnswer<RPCResponse> {
        var credential: BadgeCredential?
        if let period = plan.issued {
            // A disputed payment's months are not issued until the dispute closes; the period
            // already issued stays valid, as a refund leaves it (docs/protocol.md, Refunds and disputes).
            if try store.read({ try isHeld(purchaseId: purchase.id, in: $0) }) {
                throw BadgeServiceError.paymentPending(retryAfter: Self.disputeRetrySeconds)
            }
            credential = try sign(masterKey: purchase.masterKey, period: period)
        } else if let latest = snapshot.latest, isPeriodCurrent(periodEnd: latest.periodEnd, at: now) {
            credential = latest.credential(masterKey: purchase.masterKey)
        }
        let answer = statement(of: snapshot.tail.appending(plan.rows), asserting: balance.lastEntry)
        let response = RPCResponse.badgeCredential(credential: credential, statement: answer.statement, receipt: nil,
                                                   subscription: nil)
        guard Self.writes(plan, snapshot) else { return .answer(response) }
        return .answer(response) { w in
            try w.endPause(purchaseId: purchase.id, expected: snapshot.pausedSince)
            try w.appendLedger(purchaseId: purchase.id, expectedCount: snapshot.tail.count, entries: plan.rows)
            if let period = plan.issued, let credential {
                // A dispute opened since the read holds it too.
                if try self.isHeld(purchaseId: purchase.id, in: w) {
                    throw BadgeServiceError.paymentPending(retryAfter: Self.disputeRetrySeconds)
                }
                try w.insertIssuance(IssuanceRecord(period: period, purchaseId: purchase.id, credential: credential))
            }
        }
    }
}

/// What one pass of `issueBadge` reads: the ledger from the asserted entry, the latest
/// issuance, and the pause in force.
private struct IssueSnapshot {
    let tail: LedgerTail
    let latest: IssuanceRecord?
    let pausedSince: Timestamp?

    init(tail: LedgerTail, latest: IssuanceRecord?, pausedSince: Timestamp?) {
        self.tail = tail
        self.latest = latest
        self.pausedSince = pausedSince
    }

    /// Read in `r`'s transaction, for the purchase's ledger from the entry `balance` asserts.
    init(_ r: any StoreReader, purchase: PurchaseRecord, asserting balance: Balance) throws {
        tail = try r.ledgerTail(purchaseId: purchase.id, asserting: balance.lastEntry.entryId,
                                completeHistoryLimit: Statement.completeHistoryLimit)
        latest = try r.latestIssuance(purchaseId: purchase.id)
        pausedSince = try r.pausedSince(purchaseId: purchase.id)
    }
}
