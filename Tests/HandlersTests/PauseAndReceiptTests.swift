import BadgeCore
import Crypto
import Foundation
import Handlers
import Ledger
import Locking
import Schema
import Storage
import Testing

/// pauseBadge, its resume by issueBadge, and purchaseBadge funded by a recovery receipt, through
/// the RPC layer on a real database with a clock the test moves (docs/protocol.md, Pause and
/// Funding by receipt). Every statement is checked as the client replica checks it.
@Suite struct PauseAndReceiptTests {
    let h: Harness
    init() throws { h = try Harness(at: at(2026, 3, 10)) }

    func funded(months: Int = 3) throws -> (Ed25519PrivateKey, LedgerEntry) {
        let key = Ed25519PrivateKey()
        let out = h.redeem(try h.code(months: months), by: key)
        return (key, try #require(out.statement?.entries.last))
    }

    func pausedSince(_ key: Ed25519PrivateKey) throws -> Timestamp? {
        try h.store.read { r in try r.pausedSince(purchaseId: try #require(try r.purchase(key: key.publicKey.purchaseKeyText)).id) }
    }

    func replicaHolds(_ key: Ed25519PrivateKey, type: BadgeType = .supporter) throws {
        let rows = try h.ledger(of: key)
        #expect(checkLedger(rows, purchaseBadgeType: type) == nil, "\(rows)")
    }

    @Test func pauseBadgeNeedsAPurchase() {
        #expect(h.send(.pauseBadge, by: Ed25519PrivateKey()).error == .unknownPurchaseKey)
    }

    /// Paused 20 March inside the issued month, resumed 1 August by issueBadge: April to July were
    /// neither issued nor lapsed, the resume issues the first of the two months held, from 1 August.
    @Test func aPauseFreezesTheMonthsUntilIssueBadgeResumesIt() throws {
        let (key, last) = try funded()
        h.clock.now = at(2026, 3, 20)
        let paused = h.send(.pauseBadge, by: key)
        #expect(paused.error == nil)
        // The credential issued in March is still current: the answer carries it.
        let purchaseId = try #require(try h.store.read { try $0.purchase(key: key.publicKey.purchaseKeyText) }).id
        let issued = try #require(try h.store.read { try $0.latestIssuance(purchaseId: purchaseId) })
        #expect(paused.credential?.expiry == issued.expiry && paused.credential?.signature == issued.signature)
        #expect(paused.statement?.entries == (try h.ledger(of: key)) && paused.statement?.previousEntryId == nil)
        #expect(try pausedSince(key) == at(2026, 3, 20))
        // A repeat, later, writes nothing: the pause still dates from 20 March; the same statement,
        // and no credential now that the March one has expired.
        h.clock.now = at(2026, 5, 1)
        let again = h.send(.pauseBadge, by: key)
        #expect(again.statement == paused.statement && again.credential == nil)
        #expect(try pausedSince(key) == at(2026, 3, 20))
        // The signed catalog shows the ledger as it stands: nothing lapsed.
        #expect(h.send(.getBadgeCatalog, by: key).statement?.entries.count == 2)

        h.clock.now = at(2026, 8, 1)
        let resumed = h.issue(by: key, asserting: last)
        let rows = try #require(resumed.statement?.entries)
        #expect(rows.map(\.entryType) == [.debit(.badge)])
        #expect(rows[0].wasPausedSince == at(2026, 3, 20))
        #expect(rows[0].balanceMonths == 1 && rows[0].balanceAnchorTs == at(2026, 8, 1))
        #expect(rows[0].balanceStartTs == at(2026, 9, 1))
        #expect(resumed.credential?.expiry == credentialExpiry(periodEnd: at(2026, 9, 1)))
        #expect(try pausedSince(key) == nil)
        try replicaHolds(key)
        // Resumed: the next request inside the month answers the same credential, and a gap lapses again.
        h.clock.now = at(2026, 8, 20)
        #expect(h.issue(by: key, asserting: rows[0]).credential == resumed.credential)
        h.clock.now = at(2026, 11, 1)
        #expect(h.issue(by: key, asserting: rows[0]).statement?.entries.map(\.entryType) == [.debit(.lapse)])
        try replicaHolds(key)
    }

    /// Resumed inside the issued month: nothing was due, so nothing is written, the held
    /// credential comes back, and the next month is issued on the old boundaries.
    @Test func aPauseEndedInsideTheIssuedMonthLeavesTheLedgerAlone() throws {
        let (key, last) = try funded()
        let first = try h.ledger(of: key)
        h.clock.now = at(2026, 3, 15)
        _ = h.send(.pauseBadge, by: key)
        h.clock.now = at(2026, 4, 1)
        let resumed = h.issue(by: key, asserting: last)
        #expect(resumed.credential != nil && resumed.statement?.entries == [])
        #expect(try h.ledger(of: key) == first)
        #expect(try pausedSince(key) == nil)
        h.clock.now = at(2026, 4, 10)
        let next = h.issue(by: key, asserting: last)
        #expect(next.statement?.entries.first?.wasPausedSince == nil)
        #expect(next.statement?.entries.first?.balanceStartTs == at(2026, 5, 10))
    }

    /// A pause past a month end heals first: the month that ran out is lapsed at the pause.
    @Test func aPauseHealsTheLedgerFirst() throws {
        let (key, _) = try funded()
        h.clock.now = at(2026, 5, 15)
        let paused = h.send(.pauseBadge, by: key)
        let rows = try #require(paused.statement?.entries)
        #expect(rows.map(\.entryType) == [.credit(.code), .debit(.badge), .debit(.lapse)])
        #expect(rows.last?.balanceMonths == 1)
        try replicaHolds(key)
    }

    /// An operator's support credit on a paused purchase ends the pause so far and the pause
    /// goes on from the credit: only issueBadge resumes.
    @Test func aSupportCreditDoesNotResume() throws {
        let (key, last) = try funded()
        h.clock.now = at(2026, 3, 20)
        _ = h.send(.pauseBadge, by: key)
        h.clock.now = at(2026, 6, 1)
        let admin = LedgerAdmin(store: h.store, clock: h.clock.function)
        let credited = try admin.creditSupport(key.publicKey.purchaseKeyText, months: 1)
        #expect(credited.map(\.entryType) == [.credit(.support)])
        #expect(credited[0].wasPausedSince == at(2026, 3, 20) && credited[0].balanceMonths == 3)
        #expect(try pausedSince(key) == at(2026, 6, 1))
        h.clock.now = at(2026, 10, 1)
        let resumed = h.issue(by: key, asserting: last)
        #expect(resumed.statement?.entries.map(\.wasPausedSince) == [at(2026, 3, 20), at(2026, 6, 1)])  // the credit, then the resume
        #expect(resumed.statement?.entries.last?.balanceMonths == 2)
        try replicaHolds(key)
    }

    // MARK: funding by receipt

    /// A code purchase given a recovery receipt as an invoice purchase holds one (the receipt path
    /// does not care how the months were bought).
    func withReceipt(months: Int) throws -> (Ed25519PrivateKey, String) {
        let (key, _) = try funded(months: months)
        let receipt = Base64URL.encode(SecureRandom.bytes(32))
        try h.store.write { w in
            try w.insertReceipt(hash: SHA256.hash(Array(receipt.utf8)), purchaseId: try #require(try w.purchase(key: key.publicKey.purchaseKeyText)).id)
        }
        return (key, receipt)
    }

    func fund(_ receipt: String, by key: Ed25519PrivateKey, master: [UInt8] = SecureRandom.bytes(32)) -> RPCOutcome {
        h.send(.purchaseBadge(masterKey: master, payment: .receipt(receipt: receipt), upgrade: nil), by: key)
    }

    func returnedReceipt(_ outcome: RPCOutcome) -> String? {
        if case .badgeCredential(_, _, let r, _) = outcome.response { return r }
        return nil
    }

    /// 6 months from 10 March; recovered 25 May: April ran out unissued, May and 3 more move.
    @Test func aReceiptMovesTheUnissuedMonthsToTheSigningKey() throws {
        let (old, receipt) = try withReceipt(months: 6)
        h.clock.now = at(2026, 5, 25)
        let key = Ed25519PrivateKey(), master = SecureRandom.bytes(32)
        let out = fund(receipt, by: key, master: master)
        #expect(out.error == nil, "\(out.response)")
        let rows = try #require(out.statement?.entries)
        #expect(rows.map(\.entryType) == [.credit(.transferIn(fromPurchaseKey: old.publicKey.purchaseKeyText)), .debit(.badge)])
        #expect(rows.map(\.balanceMonths) == [4, 3])
        #expect(out.credential?.masterKey == master)
        #expect(out.credential?.expiry == credentialExpiry(periodEnd: at(2026, 6, 25)))
        let fresh = try #require(returnedReceipt(out))
        #expect(fresh != receipt)
        let source = try h.ledger(of: old)
        #expect(source.suffix(2).map(\.entryType) == [.debit(.lapse), .debit(.transferOut(toPurchaseKey: key.publicKey.purchaseKeyText))])
        #expect(source.suffix(2).map(\.changeMonths) == [-1, -4] && source.last?.balanceMonths == 0)
        try replicaHolds(old)
        try replicaHolds(key)

        // The same request again: the same answer, nothing written.
        let count = h.issuer.count
        #expect(fund(receipt, by: key, master: master).body == out.body)
        #expect(h.issuer.count == count)
        // The retired receipt by any other key, the source's included: receipt_used.
        #expect(fund(receipt, by: Ed25519PrivateKey()).error == .receiptUsed)
        #expect(fund(receipt, by: old).error == .receiptUsed)
        // An unknown receipt.
        #expect(fund("not-a-receipt", by: Ed25519PrivateKey()).error == .receiptInvalid)
        // The fresh receipt moves them on again, and the old key holds nothing to issue.
        h.clock.now = at(2026, 6, 1)
        let third = Ed25519PrivateKey()
        let moved = fund(fresh, by: third)
        #expect(moved.statement?.entries.map(\.balanceMonths) == [3, 2])
        #expect(try h.ledger(of: key).last?.entryType == .debit(.transferOut(toPurchaseKey: third.publicKey.purchaseKeyText)))
        try replicaHolds(key)
        h.clock.now = at(2026, 7, 1)
        let oldIssue = h.issue(by: old, asserting: source.last!)
        #expect(oldIssue.credential == nil && oldIssue.statement?.entries == [])
    }

    /// Eight keys presenting one receipt at once: one is funded, the others receipt_used, and the
    /// source is debited once.
    @Test func concurrentPresentationsMoveTheMonthsOnce() throws {
        let (old, receipt) = try withReceipt(months: 4)
        h.clock.now = at(2026, 3, 20)
        let answers = LockedValueBox<[ErrorCode?]>([])
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            let out = fund(receipt, by: Ed25519PrivateKey())
            answers.withLock { $0.append(out.error) }
        }
        let errors = answers.withLock { $0 }
        #expect(errors.filter { $0 == nil }.count == 1, "\(errors)")
        #expect(errors.filter { $0 == .receiptUsed }.count == 7, "\(errors)")
        #expect(try h.ledger(of: old).filter { if case .debit(.transferOut) = $0.entryType { true } else { false } }.count == 1)
        try replicaHolds(old)
    }

    /// A key that already holds a badge cannot take a receipt; the holder presenting its own
    /// receipt is answered from the record.
    @Test func keysThatHoldABadge() throws {
        let (holder, receipt) = try withReceipt(months: 3)
        let (other, _) = try funded()
        #expect(fund(receipt, by: other).error == .badRequest)
        let own = fund(receipt, by: holder)
        #expect(own.error == nil && returnedReceipt(own) == receipt)
        #expect(try h.ledger(of: holder).count == 2)
    }

    /// A subscription purchase's receipt does not move its months: Restore moves the subscription.
    @Test func aSubscriptionPurchaseMovesWithTransferBadge() throws {
        let (holder, receipt) = try withReceipt(months: 3)
        try h.store.write { w in
            let purchase = try #require(try w.purchase(key: holder.publicKey.purchaseKeyText))
            let subscription = try w.insertSubscription(store: "apple", reference: "2000000000000001")
            try w.insertSubscriptionFunding(SubscriptionFunding(purchaseId: purchase.id, subscriptionId: subscription.id))
        }
        let out = fund(receipt, by: Ed25519PrivateKey())
        #expect(out.error == .badRequest && out.message?.contains("transferBadge") == true)
        #expect(try h.ledger(of: holder).count == 2)
    }

    /// A refunded purchase's receipt is receipt_invalid; a paused source's pause ends with the move.
    @Test func refundedAndPausedSources() throws {
        let (refunded, receipt) = try withReceipt(months: 3)
        try h.store.write { w in
            let p = try #require(try w.purchase(key: refunded.publicKey.purchaseKeyText))
            let rows = try w.ledger(purchaseId: p.id)
            let debit = try planEnding(from: rows.last!, debit: .refund, at: at(2026, 3, 11), newId: { "refund" })
            try w.appendLedger(purchaseId: p.id, expectedCount: rows.count, entries: debit)
        }
        #expect(fund(receipt, by: Ed25519PrivateKey()).error == .receiptInvalid)

        let (paused, pausedReceipt) = try withReceipt(months: 3)
        h.clock.now = at(2026, 3, 20)
        _ = h.send(.pauseBadge, by: paused)
        h.clock.now = at(2026, 9, 1)
        let out = fund(pausedReceipt, by: Ed25519PrivateKey())
        #expect(out.statement?.entries.map(\.balanceMonths) == [2, 1])
        let source = try h.ledger(of: paused)
        #expect(source.last?.wasPausedSince == at(2026, 3, 20) && source.last?.changeMonths == -2)
        #expect(try pausedSince(paused) == nil)
        try replicaHolds(paused)
    }
}
