import BadgeCore
import Ledger
import Schema
import Storage

extension BadgeService {
    /// `issueBadge` for a purchase a store subscription funds (spec: issueBadge "Subscriptions").
    /// With no month due it answers as any issueBadge, without asking. Otherwise the store is asked
    /// at most once an hour (the requests in between answered from what it last read):
    /// - while the paid coverage runs, a subscription reported ended or the granted charge revoked
    ///   lapses what ran out and debits the rest as `refund` (no credential, `ended`); any other
    ///   answer, no answer included, issues the month due, and a new charge is only recorded;
    ///   (a store refusing the subscription as invalid has ended it);
    /// - once coverage has ended, a charge never granted that the first-charge rule allows is granted
    ///   at its period start (another badge type starting its own run) and the month due issued;
    ///   otherwise nothing is written and no credential answered; a store that does not answer is
    ///   provider_unavailable with the hour.
    /// A purchase its subscription moved away from answers `ended`, with no credential.
    ///
    /// On a purchase an earlier version paused the pass is the resume (docs/protocol.md, Pause,
    /// rule 9): it runs on the tip the pause leaves, its first row carries `wasPausedSince`, and
    /// the pause ends even when nothing is written.
    func issueSubscriptionBadge(purchase: PurchaseRecord, funding: SubscriptionFunding, balance: Balance,
                                now: Timestamp) throws -> RPCResponse {
        if funding.movedAwayAt != nil {
            let rows = try store.read { try $0.ledger(purchaseId: purchase.id) }
            return .badgeCredential(credential: nil, statement: statement(of: rows, asserting: balance.lastEntry).statement,
                                    receipt: nil, subscription: .ended)
        }
        let first = try store.read { r in try renewalSnapshot(r, purchase: purchase, funding: funding) }
        guard first.monthDue(at: now) else {
            return try conditionalWrite(read: { r in try renewalSnapshot(r, purchase: purchase, funding: funding) },
                                        decide: { s in try issueFromBalance(s, purchase: purchase, balance: balance,
                                                                            subscription: s.record.lastState, now: now) })
        }

        // What the store says: asked now when this hour's check is not taken, else its last read.
        let record = first.record
        var asked: Result<SubscriptionReading, SubscriptionRefusal>?
        var retryAfter = UInt32(SubscriptionWindow.seconds)
        if let left = try claimSubscriptionCheck(store: record.store, reference: record.reference, path: .renewal, now: now) {
            retryAfter = left
        } else if let adapter = subscriptionStore(named: record.store) {
            asked = readSubscription(adapter, reference: record.reference, now: now)
        } else {
            asked = .failure(SubscriptionRefusal(.providerUnavailable(retryAfter: nil), "no \(record.store) subscription reader is configured"))
        }

        return try conditionalWrite(read: { r in try renewalSnapshot(r, purchase: purchase, funding: funding) }, decide: { s in
            var reading: Result<SubscriptionReading, SubscriptionRefusal>
            if let asked {
                reading = asked
                // A store that calls the subscription itself invalid (Play's 410: expired too long ago
                // to read) has ended it: no later answer about it can differ.
                if case .failure(let refusal) = asked, case .receiptInvalid = refusal.kind {
                    reading = .success(SubscriptionReading(state: .ended, latestChargeId: s.record.latestChargeId,
                                                           latestChargeRevoked: false, charge: .failure(refusal)))
                }
            } else if let last = s.record.lastReading(charges: s.charges, now: now) {
                reading = .success(last)
            } else {
                reading = .failure(SubscriptionRefusal(.providerUnavailable(retryAfter: nil), "not read yet"))
            }
            let inCoverage = s.afterLapse(at: now).balanceMonths > 0
            switch reading {
            case .failure(let refusal):
                if inCoverage {
                    return try issueFromBalance(s, purchase: purchase, balance: balance, subscription: s.record.lastState, now: now)
                }
                switch refusal.kind {
                case .providerUnavailable, .internal:
                    throw BadgeServiceError(refusal, store: s.record.store, floor: retryAfter)
                case .paymentPending, .receiptInvalid, .testPurchase:
                    return try noGrant(s, balance: balance, subscription: s.record.lastState, note: nil, now: now)
                }
            case .success(let read):
                let fresh = self.isFresh(asked)
                if inCoverage {
                    if s.endsCoverage(read, at: now) {
                        return try endCoverage(s, purchase: purchase, balance: balance, reading: read, fresh: fresh, now: now)
                    }
                    return try issueFromBalance(s, purchase: purchase, balance: balance, subscription: read.state, now: now,
                                                note: fresh ? read : nil)
                }
                if case .success(let charge) = read.charge,
                   !s.charges.contains(where: { $0.chargeId == charge.chargeId && $0.grantedAt != nil }) {
                    return try grantRenewal(charge, s, purchase: purchase, balance: balance, reading: read, fresh: fresh,
                                            now: now)
                }
                return try noGrant(s, balance: balance, subscription: read.state, note: fresh ? read : nil, now: now)
            }
        })
    }

    /// The month due from the balance, or the credential of the period still running (none once
    /// the coverage was refunded); a fresh read of the store is recorded with its new charge.
    private func issueFromBalance(_ s: RenewalSnapshot, purchase: PurchaseRecord, balance: Balance,
                                  subscription: SubscriptionState, now: Timestamp,
                                  note reading: SubscriptionReading? = nil) throws -> StagedAnswer<RPCResponse> {
        let plan = planIssue(from: s.tip, at: now, pausedSince: s.pausedSince, newId: newEntryId)
        var credential: BadgeCredential?
        if let period = plan.issued {
            credential = try sign(masterKey: purchase.masterKey, period: period)
        } else if s.tip.entryType != .debit(.refund), let latest = s.latest, isPeriodCurrent(periodEnd: latest.periodEnd, at: now) {
            credential = latest.credential(masterKey: purchase.masterKey)
        }
        let response = RPCResponse.badgeCredential(credential: credential,
                                                   statement: statement(of: s.rows + plan.rows, asserting: balance.lastEntry).statement,
                                                   receipt: nil, subscription: subscription)
        guard !plan.rows.isEmpty || reading != nil || s.pausedSince != nil else { return .answer(response) }
        return .answer(response) { w in
            try w.endPause(purchaseId: purchase.id, expected: s.pausedSince)
            try w.appendLedger(purchaseId: purchase.id, expectedCount: s.rows.count, entries: plan.rows)
            if let period = plan.issued, let credential {
                try w.insertIssuance(IssuanceRecord(period: period, purchaseId: purchase.id, credential: credential))
            }
            if let reading { try self.noteRead(reading, of: s.record.id, at: now, in: w) }
        }
    }

    /// The store ended the subscription, or revoked the charge it was granted for, while coverage
    /// runs: a lapse of what ran out, the rest debited `refund`, no credential.
    private func endCoverage(_ s: RenewalSnapshot, purchase: PurchaseRecord, balance: Balance, reading: SubscriptionReading,
                             fresh: Bool, now: Timestamp) throws -> StagedAnswer<RPCResponse> {
        let rows = try s.coverageEnding(at: now, newId: newEntryId)
        let response = RPCResponse.badgeCredential(credential: nil,
                                                   statement: statement(of: s.rows + rows, asserting: balance.lastEntry).statement,
                                                   receipt: nil, subscription: .ended)
        return .answer(response) { w in
            try w.endPause(purchaseId: purchase.id, expected: s.pausedSince)
            try w.appendLedger(purchaseId: purchase.id, expectedCount: s.rows.count, entries: rows)
            if fresh { try self.noteRead(reading, of: s.record.id, at: now, in: w) }
        }
    }

    /// Once coverage has ended: a charge never granted credited at its period start (or the
    /// ledger's last row when later) and the month due issued.
    private func grantRenewal(_ charge: StoreCharge, _ s: RenewalSnapshot, purchase: PurchaseRecord, balance: Balance,
                              reading: SubscriptionReading, fresh: Bool, now: Timestamp) throws -> StagedAnswer<RPCResponse> {
        let plan: LedgerPlan
        do {
            plan = try planCharge(from: s.tip, months: charge.months, chargeId: charge.chargeId, badgeType: charge.badgeType,
                                  periodStart: charge.periodStart, purchaseKey: purchase.purchaseKey, now: now,
                                  pausedSince: s.pausedSince, newId: newEntryId)
        } catch LedgerError.periodStartAfterNow {
            // Its period has not started: nothing is granted before it does.
            return try noGrant(s, balance: balance, subscription: reading.state, note: fresh ? reading : nil, now: now)
        } catch {
            throw BadgeServiceError.internal(detail: "planning a subscription charge: \(error)")
        }
        var credential: BadgeCredential?
        if let period = plan.issued { credential = try sign(masterKey: purchase.masterKey, period: period) }
        let response = RPCResponse.badgeCredential(credential: credential,
                                                   statement: statement(of: s.rows + plan.rows, asserting: balance.lastEntry).statement,
                                                   receipt: nil, subscription: reading.state)
        return .answer(response) { w in
            try w.endPause(purchaseId: purchase.id, expected: s.pausedSince)
            try w.appendLedger(purchaseId: purchase.id, expectedCount: s.rows.count, entries: plan.rows)
            if let period = plan.issued, let credential {
                try w.insertIssuance(IssuanceRecord(period: period, purchaseId: purchase.id, credential: credential))
            }
            guard var record = try w.subscription(id: s.record.id), record.purchaseId == purchase.id else {
                throw StorageError.conflict(constraint: "subscription moved during a renewal check")
            }
            try self.grantCharge(charge, of: &record, to: purchase.id, reading: fresh ? reading : nil, at: now, in: w)
            if charge.badgeType != purchase.badgeType { try w.setPurchaseBadgeType(purchaseId: purchase.id, charge.badgeType) }
        }
    }

    /// Nothing granted: no ledger row, no new credential, the state the store reported (recorded
    /// with its charge when it was just read). A pause ends, with nothing to record.
    private func noGrant(_ s: RenewalSnapshot, balance: Balance, subscription: SubscriptionState,
                         note reading: SubscriptionReading?, now: Timestamp) throws -> StagedAnswer<RPCResponse> {
        let response = RPCResponse.badgeCredential(credential: nil,
                                                   statement: statement(of: s.rows, asserting: balance.lastEntry).statement,
                                                   receipt: nil, subscription: subscription)
        guard reading != nil || s.pausedSince != nil else { return .answer(response) }
        return .answer(response) { w in
            try w.endPause(purchaseId: s.purchaseId, expected: s.pausedSince)
            if let reading { try self.noteRead(reading, of: s.record.id, at: now, in: w) }
        }
    }

    /// Whether the store answered this request (a reading to record), rather than the last read answering.
    private func isFresh(_ asked: Result<SubscriptionReading, SubscriptionRefusal>?) -> Bool {
        switch asked {
        case .success?: true
        case .failure(let refusal)?: if case .receiptInvalid = refusal.kind { true } else { false }
        case nil: false
        }
    }

    /// Records a read of the store: its state and latest charge, and that charge when grantable.
    func noteRead(_ reading: SubscriptionReading, of subscriptionId: Int64, at now: Timestamp, in w: any StoreWriter) throws {
        guard var record = try w.subscription(id: subscriptionId) else { throw StorageError.corrupt("subscription vanished") }
        if case .success(let charge) = reading.charge {
            _ = try w.recordSubscriptionCharge(SubscriptionChargeRecord(charge, subscriptionId: subscriptionId, seenAt: now))
        }
        record.note(reading, at: now)
        try w.updateSubscription(record)
    }

    func renewalSnapshot(_ r: any StoreReader, purchase: PurchaseRecord, funding: SubscriptionFunding) throws -> RenewalSnapshot {
        guard let record = try r.subscription(id: funding.subscriptionId) else {
            throw BadgeServiceError.internal(detail: "purchase \(purchase.id) is funded by a subscription with no record")
        }
        let rows = try r.ledger(purchaseId: purchase.id)
        return RenewalSnapshot(purchaseId: purchase.id, rows: rows,
                               tip: rows.last ?? .emptyEntry(at: purchase.createdAt, badgeType: purchase.badgeType),
                               pausedSince: try r.pausedSince(purchaseId: purchase.id),
                               latest: try r.latestIssuance(purchaseId: purchase.id), record: record,
                               charges: try r.subscriptionCharges(subscriptionId: record.id))
    }
}

/// One read of a subscription purchase: its ledger, pause, latest issuance, subscription and charges.
struct RenewalSnapshot {
    let purchaseId: Int64
    let rows: [LedgerEntry]
    let tip: LedgerEntry
    /// When the purchase was paused, if it is: a pass at `now` resumes it.
    let pausedSince: Timestamp?
    let latest: IssuanceRecord?
    let record: SubscriptionRecord
    let charges: [SubscriptionChargeRecord]

    /// The tip once a pass at `now` resumed it and lapsed the months that ran out (not written:
    /// only what a pass plans). While paused nothing ran out: the held months restart at `now`.
    func afterLapse(at now: Timestamp) -> LedgerEntry {
        LedgerPass(from: tip, at: now, pausedSince: pausedSince, newId: { "" }).last
    }

    /// The renewal check's rule while paid coverage runs at `now`: the store ended the
    /// subscription, or revoked the charge the coverage was granted for, ends it at once
    /// (a store notification applies the same rule, ``BadgeLedgerRefunds``).
    func endsCoverage(_ read: SubscriptionReading, at now: Timestamp) -> Bool {
        guard afterLapse(at: now).balanceMonths > 0 else { return false }
        let revokedGrant = read.latestChargeRevoked && read.latestChargeId != nil && read.latestChargeId == record.grantedChargeId
        return read.state == .ended || revokedGrant
    }

    /// What ending the coverage writes: a lapse of what ran out, the rest debited `refund`.
    func coverageEnding(at now: Timestamp, newId: () -> String) throws -> [LedgerEntry] {
        do { return try planEnding(from: tip, debit: .refund, at: now, pausedSince: pausedSince, newId: newId) } catch {
            throw BadgeServiceError.internal(detail: "planning a subscription refund: \(error)")
        }
    }

    /// Whether a month is due: the next unissued month has begun, funded by the balance or, once
    /// coverage has ended, by a charge the store may report.
    func monthDue(at now: Timestamp) -> Bool { afterLapse(at: now).balanceStartTs <= now }
}
