import BadgeCore
import Crypto
import Handlers
import Ledger
import Schema
import Storage
import TestSupport
import Testing

/// transferBadge's rules on the store-agnostic entry point, with the scripted store.
@Suite struct TransferTests {
    let s: SubscriptionHarness
    init() throws { s = try SubscriptionHarness(at: at(2026, 3, 10)) }

    func transfer(_ reference: String, by key: Ed25519PrivateKey, presenting chargeId: String? = nil,
                  masterKey: [UInt8] = SecureRandom.bytes(32)) throws -> RPCResponse {
        do {
            return try s.service.transferBySubscription(key: key.publicKey, masterKey: masterKey, store: "apple",
                                                        reference: reference, presentedChargeId: chargeId, now: s.now)
        } catch let error as BadgeServiceError {
            return RPCResponse(error)
        }
    }

    @Test func aSubscriptionCreditedToNoKeyIsCreditedAsByPurchaseBadge() throws {
        s.apple.answer("3000", .success(.charged(monthlyCharge("t0", start: at(2026, 3, 10)))))
        let key = Ed25519PrivateKey()
        let out = try transfer("3000", by: key, presenting: "t0")
        #expect(out.entries?.map(\.entryType) == [.credit(.charge(chargeId: "t0")), .debit(.badge)])
        let record = try #require(try s.h.store.read { try $0.subscription(store: "apple", reference: "3000") })
        #expect(record.checkedAt.keys.sorted { $0.rawValue < $1.rawValue } == [.purchase])
    }

    @Test func aMoveEndsTheOldPurchaseCreditsTheNewOneAndIsLimitedUntilTheOldCredentialExpires() throws {
        let charge = monthlyCharge("t1", start: at(2026, 3, 10))
        s.apple.answer("3001", .success(.charged(charge)))
        let old = Ed25519PrivateKey(), oldMaster = SecureRandom.bytes(32)
        let bought = try s.purchase("3001", by: old, masterKey: oldMaster)
        let oldLast = try #require(bought.entries?.last)

        // Ten minutes later, on another device: the transfer's own hour, not the purchase's.
        s.now = s.now.adding(seconds: 600)
        let new = Ed25519PrivateKey(), newMaster = SecureRandom.bytes(32)
        #expect(try transfer("3001", by: new, presenting: "older").errorCode == .paymentPending)
        s.now = s.now.adding(seconds: 3600)
        let moved = try transfer("3001", by: new, presenting: "t1", masterKey: newMaster)
        let entries = try #require(moved.entries)
        #expect(entries.map(\.entryType) == [.credit(.charge(chargeId: "t1")), .debit(.badge)])
        #expect(entries[0].createdAt == at(2026, 3, 10))
        #expect(moved.issuedCredential != nil && moved.subscriptionState == .renewing && moved.recoveryReceipt != nil)
        _ = try s.checkedLedger(of: new)
        let oldRows = try s.checkedLedger(of: old)
        #expect(oldRows.last?.entryType == .debit(.transferOut(toPurchaseKey: new.publicKey.purchaseKeyText)))
        #expect(oldRows.last?.changeMonths == 0)

        // The old key: ended, with no credential, on every command.
        let oldIssue = s.issue(by: old, asserting: oldLast)
        #expect(oldIssue.credential == nil && oldIssue.response.subscriptionState == .ended)
        #expect(oldIssue.statement?.entries.map(\.entryType) == [.debit(.transferOut(toPurchaseKey: new.publicKey.purchaseKeyText))])
        let oldReplay = try s.purchase("3001", by: old, masterKey: oldMaster)
        #expect(oldReplay.issuedCredential == nil && oldReplay.subscriptionState == .ended)
        let oldTransfer = try transfer("3001", by: old, presenting: "t1", masterKey: oldMaster)
        #expect(oldTransfer.errorCode == nil && oldTransfer.issuedCredential == nil && oldTransfer.subscriptionState == .ended)

        // The new key again: the same answer, without asking.
        let reads = s.apple.reads.count
        #expect(try transfer("3001", by: new, presenting: "t1", masterKey: newMaster) == moved)
        #expect(s.apple.reads.count == reads)

        // A third key while the old key's credential is valid: transfer_limited, the store not asked.
        let third = Ed25519PrivateKey()
        s.now = s.now.adding(seconds: 7200)
        #expect(try transfer("3001", by: third, presenting: "t1").errorCode == .transferLimited)
        #expect(s.apple.reads.count == reads)
        // Once it expired (the month to 04-10 → Tuesday 04-14), the subscription moves again.
        s.now = at(2026, 4, 14, 1)
        s.apple.answer("3001", .success(.charged(monthlyCharge("t2", start: at(2026, 4, 10)))))
        let again = try transfer("3001", by: third, presenting: "t2")
        #expect(again.entries?.map(\.entryType) == [.credit(.charge(chargeId: "t2")), .debit(.badge)])
        #expect(try s.checkedLedger(of: new).last?.entryType == .debit(.transferOut(toPurchaseKey: third.publicKey.purchaseKeyText)))
        // The new key's repeat of its own transfer, its answer lost, once the subscription moved on: ended.
        let repeated = try transfer("3001", by: new, presenting: "t1", masterKey: newMaster)
        #expect(repeated.errorCode == nil && repeated.issuedCredential == nil && repeated.subscriptionState == .ended)
        _ = try s.checkedLedger(of: third)
    }

    /// A refund notice of the charge that lands while the store confirms it for the move: the
    /// charge is never granted to the new key, and the old purchase is not moved.
    @Test func aChargeTakenBackDuringTheMoveIsNeverGranted() throws {
        let charge = monthlyCharge("t9", start: at(2026, 3, 10))
        s.apple.answer("3009", .success(.charged(charge)))
        let old = Ed25519PrivateKey()
        _ = try s.purchase("3009", by: old, masterKey: SecureRandom.bytes(32))
        let before = try s.checkedLedger(of: old)
        s.now = s.now.adding(seconds: 600)
        s.apple.answer("3009", .success(.charged(charge, confirmed: false)))
        let store = s.h.store, now = s.now
        s.apple.onConfirm {
            _ = try? store.write { try $0.recordRefund(ProviderRefund(provider: "apple", kind: .charge, reference: "t9"), at: now) }
        }
        let new = Ed25519PrivateKey()
        let moved = try transfer("3009", by: new, presenting: "t9")
        #expect(moved.issuedCredential == nil)
        #expect(try s.h.store.read { try $0.purchase(key: new.publicKey.purchaseKeyText) } == nil)
        #expect(try s.checkedLedger(of: old) == before)
    }

    @Test func aKeyHoldingAPurchaseCannotTakeASubscription() throws {
        s.apple.answer("3002", .success(.charged(monthlyCharge("t3", start: at(2026, 3, 10)))))
        _ = try s.purchase("3002", by: Ed25519PrivateKey(), masterKey: SecureRandom.bytes(32))
        let holder = Ed25519PrivateKey()
        _ = s.h.redeem(try s.h.code(), by: holder)
        #expect(try transfer("3002", by: holder).errorCode == .badRequest)
    }

    @Test func aChargeNoFirstPurchaseCouldBeCreditedIsAnsweredAsForAFirstPurchase() throws {
        s.apple.answer("3003", .success(.charged(monthlyCharge("t4", start: at(2026, 3, 10)))))
        let old = Ed25519PrivateKey()
        _ = try s.purchase("3003", by: old, masterKey: SecureRandom.bytes(32))
        s.apple.answer("3003", .success(.refused(SubscriptionRefusal(.paymentPending(retryAfter: SubscriptionRefusal.day), "ended"),
                                                 state: .ended, latestChargeId: "t4")))
        let out = try transfer("3003", by: Ed25519PrivateKey(), presenting: "t4")
        #expect(out.errorCode == .paymentPending && out.retryAfter == 86_400)
        #expect(try s.checkedLedger(of: old).count == 2)
    }
}
