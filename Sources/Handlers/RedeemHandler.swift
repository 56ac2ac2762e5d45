import BadgeCore
import Crypto
import Ledger
import Schema
import Storage

extension BadgeService {
    /// `redeemBadgeCode`: records the purchase with its master key, credits the code's months
    /// and issues the first month, in one round trip (docs/protocol.md, redeemBadgeCode).
    ///
    /// The credential is signed before anything is written; the purchase, its two ledger rows,
    /// the issuance and the redemption are then written in one transaction that re-checks
    /// everything it read, so concurrent identical requests credit once and the others replay.
    func redeemBadgeCode(key: Ed25519PublicKey, masterKey: [UInt8], code text: String, now: Timestamp) throws -> RPCResponse {
        let purchaseKey = key.purchaseKeyText
        // Malformed codes are hashed and looked up like well-formed ones, so the three kinds
        // of code_invalid cost the same work and cannot be told apart.
        let canonical = BadgeCode(parsing: text)?.canonical
        let hash = SHA256.hash(Array((canonical ?? "malformed:" + text).utf8))

        return try conditionalWrite(read: { r in
            (purchase: try r.purchase(key: purchaseKey), code: try r.code(hash: hash), redeemedBy: try r.redemptions(codeHash: hash))
        }, decide: { snapshot in
            guard canonical != nil, let code = snapshot.code else { throw BadgeServiceError.codeInvalid }
            // A repeat by the key that redeemed it writes nothing and answers from the record,
            // before anything the code became since (revoked, expired, used up) is judged: its
            // months were credited, and a lost answer must stay retryable.
            if let purchase = snapshot.purchase, snapshot.redeemedBy.contains(purchase.id) {
                return .answer(try replay(purchase))
            }
            guard code.revokedAt == nil else { throw BadgeServiceError.codeInvalid }
            guard code.payment != .unpaid else { throw BadgeServiceError.paymentPending(retryAfter: nil) }
            if snapshot.purchase != nil {
                throw BadgeServiceError.badRequest("this purchase key already holds a badge; redeem under a fresh key")
            }
            guard snapshot.redeemedBy.count < code.maxUses else { throw BadgeServiceError.codeUsed }
            if let expires = code.expiresAt, expires <= now { throw BadgeServiceError.codeExpired }

            let plan: LedgerPlan
            do {
                plan = try planFirstFunding(months: code.months, credit: .code, badgeType: code.badgeType, now: now,
                                            newId: newEntryId)
            } catch {
                throw BadgeServiceError.internal(detail: "planning the code grant: \(error)")
            }
            guard let period = plan.issued else { throw BadgeServiceError.internal(detail: "first funding issued nothing") }
            let credential = try sign(masterKey: masterKey, period: period)
            let response = RPCResponse.badgeCredential(credential: credential, statement: Statement(entries: plan.rows),
                                                       receipt: nil, subscription: nil)
            // On a conflict the next pass reads again: the other request's outcome decides this one's answer.
            return .answer(response) { w in
                // Re-check what was read: another request may have redeemed in between.
                guard try w.purchase(key: purchaseKey) == nil,
                      let current = try w.code(hash: hash), current.revokedAt == nil,
                      try w.redemptions(codeHash: hash).count < current.maxUses
                else { throw StorageError.conflict(constraint: "redemption raced") }
                let purchase = try w.insertPurchase(key: purchaseKey, masterKey: masterKey, badgeType: code.badgeType, at: now)
                try w.appendLedger(purchaseId: purchase.id, expectedCount: 0, entries: plan.rows)
                try w.insertIssuance(IssuanceRecord(period: period, purchaseId: purchase.id, credential: credential))
                try w.insertRedemption(codeHash: hash, purchaseId: purchase.id, at: now)
            }
        })
    }

    /// A purchase's latest credential (unless `credential` is false) and its ledger (the whole
    /// history, or past ``Statement/completeHistoryLimit`` rows one opening credit), from the
    /// record, with the `subscription` of a purchase a store subscription funds.
    func replay(_ purchase: PurchaseRecord, receipt: String? = nil, credential: Bool = true,
                subscription: SubscriptionState? = nil) throws -> RPCResponse {
        let (tail, issuance) = try store.read { r in
            (try r.ledgerTail(purchaseId: purchase.id, asserting: nil, completeHistoryLimit: Statement.completeHistoryLimit),
             try r.latestIssuance(purchaseId: purchase.id))
        }
        return .badgeCredential(credential: credential ? issuance.map { $0.credential(masterKey: purchase.masterKey) } : nil,
                                statement: statement(of: tail, asserting: nil).statement, receipt: receipt, subscription: subscription)
    }

    /// Signs the credential for an issued period.
    func sign(masterKey: [UInt8], period: IssuedPeriod) throws -> BadgeCredential {
        do {
            return try issuer.issue(masterKey: masterKey, badgeType: period.badgeType, expiry: period.expiry)
        } catch {
            throw BadgeServiceError.internal(detail: "signing a credential: \(error)")
        }
    }
}

extension IssuanceRecord {
    init(period: IssuedPeriod, purchaseId: Int64, credential: BadgeCredential) {
        self.init(entryId: period.entryId, purchaseId: purchaseId, badgeType: period.badgeType, periodStart: period.start,
                  periodEnd: period.end, expiry: period.expiry, keyIndex: credential.keyIndex,
                  signature: credential.signature)
    }

    /// The credential as it was issued (the master key is the purchase's).
    func credential(masterKey: [UInt8]) -> BadgeCredential {
        BadgeCredential(keyIndex: keyIndex, masterKey: masterKey, signature: signature, badgeType: badgeType, expiry: expiry)
    }
}
