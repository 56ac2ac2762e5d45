import BadgeCore
import Crypto
import Handlers
import Ledger
import Locking
import Schema
import Storage
import TestSupport
import Testing

/// A service with a scripted `apple` subscription store on a fresh database.
struct SubscriptionHarness {
    let h: Harness
    let apple = ScriptedSubscriptionStore(name: "apple")
    let service: BadgeService

    init(at t: Timestamp) throws {
        h = try Harness(at: t)
        service = BadgeService(store: h.store, issuer: h.issuer, clock: h.clock.function, subscriptionStores: [apple],
                               configuration: .init(catalogCacheSeconds: 0))
    }

    var now: Timestamp {
        get { h.clock.now }
        nonmutating set { h.clock.now = newValue }
    }

    func purchase(_ reference: String, by key: Ed25519PrivateKey, masterKey: [UInt8]) throws -> RPCResponse {
        do {
            return try service.purchaseBySubscription(key: key.publicKey, masterKey: masterKey, store: "apple",
                                                      reference: reference, now: now)
        } catch let error as BadgeServiceError {
            return RPCResponse(error)
        }
    }

    func issue(by key: Ed25519PrivateKey, asserting entry: LedgerEntry) -> RPCOutcome {
        let request = RPCRequest(purchaseKey: key.publicKey.purchaseKeyText,
                                 command: .issueBadge(balance: Balance(lastEntry: entry)))
        return service.handle(body: request.json.serialized(), caller: .signer(key.publicKey))
    }

    /// The purchase's whole ledger, checked as the client replica checks it.
    func checkedLedger(of key: Ed25519PrivateKey) throws -> [LedgerEntry] {
        let (rows, type) = try h.store.read { r -> ([LedgerEntry], BadgeType) in
            let p = try #require(try r.purchase(key: key.publicKey.purchaseKeyText))
            return (try r.ledger(purchaseId: p.id), try r.ledger(purchaseId: p.id).first?.balanceBadgeType ?? p.badgeType)
        }
        let violation = checkLedger(rows, purchaseBadgeType: type)
        #expect(violation == nil, "\(violation.map { "\($0)" } ?? "")")
        return rows
    }
}

/// A store whose reads fail as a database outage does once `down` is set; writes pass through.
final class ReadOutage: BadgeStore, @unchecked Sendable {
    let inner: any BadgeStore
    let down = LockedValueBox(false)
    init(_ inner: any BadgeStore) { self.inner = inner }
    func read<T>(_ body: (any StoreReader) throws -> T) throws -> T {
        if down.withLock({ $0 }) { throw StorageError.unavailable(reason: "test outage") }
        return try inner.read(body)
    }
    func write<T>(_ body: (any StoreWriter) throws -> T) throws -> T { try inner.write(body) }
    func readiness() -> Readiness { inner.readiness() }
}

@Suite struct SubscriptionOutageTests {
    /// The database lost while the store's answer is judged (the refunds recorded are read after
    /// the store answered): transient, as any outage of this service's database is, not internal.
    @Test func aDatabaseOutageWhileTheStoresAnswerIsJudgedIsTransient() throws {
        let s = try SubscriptionHarness(at: Timestamp(CivilDate(year: 2026, month: 3, day: 10), hour: 11))
        let store = ReadOutage(s.h.store)
        let service = BadgeService(store: store, issuer: s.h.issuer, clock: s.h.clock.function, subscriptionStores: [s.apple],
                                   configuration: .init(catalogCacheSeconds: 0))
        s.apple.answer("7700", .success(.charged(monthlyCharge("7701", start: s.now))))
        s.apple.onRead { [down = store.down] in down.withLock { $0 = true } }
        do {
            _ = try service.purchaseBySubscription(key: Ed25519PrivateKey().publicKey, masterKey: SecureRandom.bytes(32),
                                                   store: "apple", reference: "7700", now: s.now)
            Issue.record("answered")
        } catch let error as BadgeServiceError {
            guard case .providerUnavailable = error else { Issue.record("\(error)"); return }
        }
    }
}

func monthlyCharge(_ id: String, start: Timestamp, type: BadgeType = .supporter, months: Int = 1) -> StoreCharge {
    StoreCharge(chargeId: id, productId: type == .legend ? "SUBSCR_BADGE_LEGEND_MONTH_01" : "SUBSCR_BADGE_SUPPORTER_MONTH_01",
                badgeType: type, months: months, periodStart: start, periodEnd: addMonths(months, to: start))
}

extension RPCResponse {
    var subscriptionState: SubscriptionState? {
        if case .badgeCredential(_, _, _, let s) = self { return s }
        return nil
    }
    var issuedCredential: BadgeCredential? {
        if case .badgeCredential(let c, _, _, _) = self { return c }
        return nil
    }
    var entries: [LedgerEntry]? {
        if case .badgeCredential(_, let s, _, _) = self { return s.entries }
        return nil
    }
    var recoveryReceipt: String? {
        if case .badgeCredential(_, _, let r, _) = self { return r }
        return nil
    }
    var retryAfter: UInt32? {
        if case .error(_, _, let after) = self { return after }
        return nil
    }
}

@Suite struct SubscriptionPurchaseTests {
    let s: SubscriptionHarness
    init() throws { s = try SubscriptionHarness(at: at(2026, 3, 10)) }

    @Test func withoutAReaderForTheStoreItIsProviderNotConfigured() throws {
        let bare = BadgeService(store: s.h.store, issuer: s.h.issuer, clock: s.h.clock.function)
        #expect(throws: BadgeServiceError.providerNotConfigured("google subscriptions")) {
            try bare.purchaseBySubscription(key: Ed25519PrivateKey().publicKey, masterKey: SecureRandom.bytes(32),
                                            store: "google", reference: "token", now: s.now)
        }
    }

    @Test func theLatestChargeIsCreditedFromItsPeriodStartWithTheMonthDueAndAReceipt() throws {
        let charge = monthlyCharge("2000000100", start: at(2026, 3, 9))
        s.apple.answer("1000", .success(.charged(charge)))
        let key = Ed25519PrivateKey(), master = SecureRandom.bytes(32)
        let out = try s.purchase("1000", by: key, masterKey: master)
        let entries = try #require(out.entries)
        #expect(entries.map(\.entryType) == [.credit(.charge(chargeId: "2000000100")), .debit(.badge)])
        #expect(entries[0].createdAt == at(2026, 3, 9))
        #expect(entries[0].balanceAnchorTs == at(2026, 3, 9))
        #expect(entries[1].balanceStartTs == at(2026, 4, 9))
        #expect(out.subscriptionState == .renewing)
        #expect(out.issuedCredential?.badgeType == .supporter)
        #expect(out.recoveryReceipt != nil)
        #expect(try s.checkedLedger(of: key) == entries)

        // The same key again: the same answer from the record, the store not asked.
        let again = try s.purchase("1000", by: key, masterKey: master)
        #expect(again == out)
        // Another key: receipt_used, the store not asked either.
        let other = try s.purchase("1000", by: Ed25519PrivateKey(), masterKey: SecureRandom.bytes(32))
        #expect(other.errorCode == .receiptUsed)
        #expect(s.apple.reads == ["1000"])
    }

    /// A store time with milliseconds (Apple's dates, Play's `expiryTime`) is credited in whole
    /// seconds, as the ledger stores it: the answer, the stored rows and a repeat's answer agree.
    @Test func aChargeDatedToTheMillisecondIsCreditedInWholeSeconds() throws {
        let start = Timestamp(seconds: at(2026, 3, 9).seconds + 36_000, nanoseconds: 270_000_000)
        let charge = monthlyCharge("2000000170", start: start)
        #expect(charge.periodStart == Timestamp(seconds: start.seconds) && charge.periodEnd.nanoseconds == 0)
        s.apple.answer("1070", .success(.charged(charge)))
        let key = Ed25519PrivateKey(), master = SecureRandom.bytes(32)
        let out = try s.purchase("1070", by: key, masterKey: master)
        let entries = try #require(out.entries)
        #expect(entries.first?.createdAt == Timestamp(seconds: start.seconds))
        #expect(entries.allSatisfy { [$0.createdAt, $0.balanceStartTs, $0.balanceAnchorTs].allSatisfy { $0.nanoseconds == 0 } })
        #expect(try s.checkedLedger(of: key) == entries)
        #expect(try s.purchase("1070", by: key, masterKey: master) == out)
    }

    /// A latest charge a verified notice took back is not credited to a first purchase: payment
    /// pending (the store's next charge may be), nothing written but the hour.
    @Test func aFirstChargeTakenBackIsNotCredited() throws {
        #expect(try s.h.store.write { try $0.recordRefund(ProviderRefund(provider: "apple", kind: .charge, reference: "2000000180"), at: s.now) })
        s.apple.answer("1080", .success(.charged(monthlyCharge("2000000180", start: at(2026, 3, 9)))))
        let key = Ed25519PrivateKey()
        let out = try s.purchase("1080", by: key, masterKey: SecureRandom.bytes(32))
        #expect(out.errorCode == .paymentPending)
        #expect(try s.h.store.read { try $0.purchase(key: key.publicKey.purchaseKeyText) } == nil)
        #expect(try s.h.store.read { try $0.subscription(store: "apple", reference: "1080")?.purchaseId } == nil)
    }

    /// A check recorded under a clock that was ahead cannot be measured from: after the clock
    /// steps back, the store is asked again rather than held off until the clock catches up.
    @Test func aClockThatSteppedBackHoldsNoCheckOffPastTheHour() throws {
        let start = s.now
        s.apple.answer("1090", .failure(SubscriptionRefusal(.paymentPending(retryAfter: 60), "not started")))
        s.now = start.adding(seconds: 86_400)
        #expect(try s.purchase("1090", by: Ed25519PrivateKey(), masterKey: SecureRandom.bytes(32)).errorCode == .paymentPending)
        s.now = start.adding(seconds: 3_600)
        #expect(try s.purchase("1090", by: Ed25519PrivateKey(), masterKey: SecureRandom.bytes(32)).errorCode == .paymentPending)
        #expect(s.apple.reads == ["1090", "1090"])
        // Measured from the new check, the hour holds again.
        s.now = start.adding(seconds: 3_660)
        let held = try s.purchase("1090", by: Ed25519PrivateKey(), masterKey: SecureRandom.bytes(32))
        #expect(held.errorCode == .paymentPending && held.retryAfter == 3_540)
        #expect(s.apple.reads.count == 2)
    }

    @Test func anAnnualChargeStartedMonthsAgoLapsesWhatRanOutAndIssuesTheCurrentMonth() throws {
        s.apple.answer("1001", .success(.charged(monthlyCharge("c1", start: at(2026, 1, 20), months: 12))))
        let key = Ed25519PrivateKey()
        let out = try s.purchase("1001", by: key, masterKey: SecureRandom.bytes(32))
        let entries = try #require(out.entries)
        #expect(entries.map(\.entryType) == [.credit(.charge(chargeId: "c1")), .debit(.lapse), .debit(.badge)])
        #expect(entries.map(\.changeMonths) == [12, -1, -1])
        #expect(entries.last?.balanceStartTs == at(2026, 3, 20))
        _ = try s.checkedLedger(of: key)
    }

    @Test func insideTheHourTheReferenceIsPaymentPendingWithTheTimeLeftForAnyKey() throws {
        s.apple.answer("1002", .success(.refused(SubscriptionRefusal(.paymentPending(retryAfter: 60), "not started"), state: .renewing)))
        let out = try s.purchase("1002", by: Ed25519PrivateKey(), masterKey: SecureRandom.bytes(32))
        #expect(out.errorCode == .paymentPending)
        #expect(out.retryAfter == 3600)  // shorter than the hour: carries the hour
        s.now = s.now.adding(seconds: 1200)
        s.apple.answer("1002", .success(.charged(monthlyCharge("c2", start: at(2026, 3, 10)))))
        let held = try s.purchase("1002", by: Ed25519PrivateKey(), masterKey: SecureRandom.bytes(32))
        #expect(held.errorCode == .paymentPending)
        #expect(held.retryAfter == 2400)
        #expect(s.apple.reads == ["1002"])
        // Nothing but the hour was written.
        #expect(try s.h.store.read { try $0.subscription(store: "apple", reference: "1002")?.purchaseId } == nil)
        s.now = s.now.adding(seconds: 2400)
        let key = Ed25519PrivateKey()
        #expect(try s.purchase("1002", by: key, masterKey: SecureRandom.bytes(32)).issuedCredential != nil)
    }

    @Test(arguments: [
        (SubscriptionRefusal.Class.receiptInvalid, ErrorCode.receiptInvalid, UInt32?.none),
        (.testPurchase, .testPurchase, nil),
        (.paymentPending(retryAfter: SubscriptionRefusal.day), .paymentPending, 86_400),
        (.providerUnavailable(retryAfter: nil), .providerUnavailable, 3600),
        (.providerUnavailable(retryAfter: 7200), .providerUnavailable, 7200),
        (.internal, .internal, nil),
    ])
    func refusalsAreAnsweredInTheirClassAndWriteNothingButTheHour(kind: SubscriptionRefusal.Class, code: ErrorCode,
                                                                   retryAfter: UInt32?) throws {
        s.apple.answer("1003", .failure(SubscriptionRefusal(kind, "scripted")))
        let key = Ed25519PrivateKey()
        let out = try s.purchase("1003", by: key, masterKey: SecureRandom.bytes(32))
        #expect(out.errorCode == code)
        #expect(out.retryAfter == retryAfter)
        #expect(try s.h.store.read { try $0.purchase(key: key.publicKey.purchaseKeyText) } == nil)
        let record = try #require(try s.h.store.read { try $0.subscription(store: "apple", reference: "1003") })
        #expect(record.purchaseId == nil && record.state == nil && record.checkedAt == [.purchase: s.now])
    }

    @Test func aChargeTheStoreMustKeepIsConfirmedFirstAndAFailedConfirmationCreditsNothing() throws {
        let charge = monthlyCharge("c4", start: at(2026, 3, 10))
        s.apple.answer("1004", .success(.charged(charge, confirmed: false)))
        s.apple.refuseConfirmations(SubscriptionRefusal(.providerUnavailable(retryAfter: nil), "acknowledging: down"))
        let key = Ed25519PrivateKey()
        let refused = try s.purchase("1004", by: key, masterKey: SecureRandom.bytes(32))
        #expect(refused.errorCode == .providerUnavailable)
        #expect(try s.h.store.read { try $0.purchase(key: key.publicKey.purchaseKeyText) } == nil)
        s.apple.refuseConfirmations(nil)
        s.now = s.now.adding(seconds: 3600)
        let out = try s.purchase("1004", by: key, masterKey: SecureRandom.bytes(32))
        #expect(out.issuedCredential != nil)
        #expect(s.apple.confirmed == ["c4"])
    }

    /// A store's adapter made for the request (Play's knows the product claimed) is the one asked.
    @Test func anAdapterMadeForTheRequestIsTheOneAsked() throws {
        let google = ScriptedSubscriptionStore(name: "google")
        google.answer("token-1", .success(.charged(monthlyCharge("GPA.1", start: at(2026, 3, 10)))))
        let key = Ed25519PrivateKey()
        let out = try s.service.purchaseBySubscription(key: key.publicKey, masterKey: SecureRandom.bytes(32), adapter: google,
                                                       reference: "token-1", now: s.now)
        #expect(out.entries?.first?.entryType == .credit(.charge(chargeId: "GPA.1")))
        #expect(google.reads == ["token-1"] && s.apple.reads.isEmpty)
        #expect(try s.h.store.read { try $0.subscription(store: "google", reference: "token-1")?.purchaseId } != nil)
    }

    @Test func aKeyHoldingAnotherPurchaseIsABadRequest() throws {
        let key = Ed25519PrivateKey()
        _ = s.h.redeem(try s.h.code(), by: key)
        s.apple.answer("1005", .success(.charged(monthlyCharge("c5", start: at(2026, 3, 10)))))
        #expect(try s.purchase("1005", by: key, masterKey: SecureRandom.bytes(32)).errorCode == .badRequest)
    }
}
