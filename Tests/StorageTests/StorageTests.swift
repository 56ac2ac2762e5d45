import BadgeCore
import Foundation
import Ledger
import Locking
import Storage
import TestSupport
import Testing

/// The storage suite, on SQLite and on PostgreSQL: the same rules hold on both, refused with the
/// same ``StorageError`` cases (the constraint texts are each database's own).
@Suite struct StorageTests {
    let dir = TemporaryDirectory("storage")
    let t0 = Timestamp(CivilDate(year: 2026, month: 3, day: 10), hour: 11)

    func entry(_ id: String, change: Int, balance: Int, type: LedgerEntryType, at t: Timestamp) -> LedgerEntry {
        LedgerEntry(entryId: id, changeMonths: change, balanceMonths: balance, balanceStartTs: t, balanceAnchorTs: t,
                    balanceBadgeType: .supporter, createdAt: t, entryType: type)
    }

    @Test(arguments: StoreBackend.allCases) func migratesOnceAndReopens(_ backend: StoreBackend) throws {
        let database = try backend.makeDatabase(in: dir)
        do {
            let store = try database.open()
            try store.write { try $0.insertPrice(BadgePrice(priceId: "p1", badgeType: .supporter, monthPrice: 700, currency: "usd", status: .active, createdAt: t0)) }
        }
        let store = try database.open()
        #expect(try store.read { try $0.prices() }.map(\.priceId) == ["p1"])
        #expect(store.readiness() == .ready)
    }

    @Test(arguments: StoreBackend.allCases) func storeProductsAreSeededWithTheUpstreamIdsAndChangeInPlace(_ backend: StoreBackend) throws {
        let store = try backend.makeStore(in: dir)
        // The migration's SQL and the Swift list name the same products.
        #expect(Set(try store.read { try $0.storeProducts() }) == Set(StoreProducts.upstream.products))
        let changed = StoreProduct(store: "google", productId: "subscr_badge_legend_01", basePlanId: "subscr-badge-legend-year-01",
                                   badgeType: .legend, months: 6, kind: .subscription)
        try store.write { try $0.setStoreProduct(changed) }
        let after = StoreProducts(try store.read { try $0.storeProducts() })
        #expect(after.products.count == StoreProducts.upstream.products.count)
        #expect(after.plan(store: "google", productId: "subscr_badge_legend_01", basePlanId: "subscr-badge-legend-year-01") == changed)
        // A product without a base plan is not found as one with, and the other way round.
        #expect(after.product(store: "google", id: "subscr_badge_legend_01") == nil)
        #expect(after.product(store: "google", id: "badge_legend_01")?.months == 1)
        #expect(try store.write { try $0.removeStoreProduct(store: "apple", productId: "BADGE_LEGEND_01", basePlanId: nil) })
        #expect(try !store.write { try $0.removeStoreProduct(store: "apple", productId: "BADGE_LEGEND_01", basePlanId: nil) })
        #expect(StoreProducts(try store.read { try $0.storeProducts() }).product(store: "apple", id: "BADGE_LEGEND_01") == nil)
        // An upgrade SKU, the kind the table took in migration 9 (its rows kept), reads back as one.
        let sku = StoreProduct(store: "apple", productId: "BADGE_LEGEND_UPGRADE_01", badgeType: .legend, months: 1, kind: .upgrade)
        try store.write { try $0.setStoreProduct(sku) }
        #expect(StoreProducts(try store.read { try $0.storeProducts() }).product(store: "apple", id: "BADGE_LEGEND_UPGRADE_01") == sku)
        #expect(try store.read { try $0.storeProducts() }.count == StoreProducts.upstream.products.count)
    }

    @Test(arguments: StoreBackend.allCases) func upgradeInvoicesReadBackByInvoiceAndByThePurchaseTheyConvert(_ backend: StoreBackend) throws {
        let store = try backend.makeStore(in: dir)
        let old = try store.write { try $0.insertPurchase(key: "old-key", masterKey: [1], badgeType: .supporter, at: t0) }
        let invoice = InvoiceRecord(invoiceId: "inv-up", purchaseKey: "new-key", badgeType: .legend, months: 1, price: 7000,
                                    discount: 0, credit: 3850, amount: 3150, currency: "usd", priceId: "p", offerId: nil,
                                    provider: "stripe", method: "card", providerRef: "cs_1", paymentURL: "https://pay.test/cs_1",
                                    address: nil, cryptoAmount: nil, status: .open, createdAt: t0, expiresAt: t0.adding(seconds: 3600))
        let upgrade = InvoiceUpgrade(invoiceId: "inv-up", fromPurchaseId: old.id, months: 11)
        try store.write { w in
            try w.insertInvoice(invoice)
            try w.insertInvoiceUpgrade(upgrade)
        }
        #expect(try store.read { try $0.invoiceUpgrade(invoiceId: "inv-up") } == upgrade)
        #expect(try store.read { try $0.invoiceUpgrades(fromPurchaseId: old.id) } == [upgrade])
        #expect(try store.read { try $0.invoiceUpgrade(invoiceId: "other") } == nil)
    }

    @Test(arguments: StoreBackend.allCases) func catalogRoundTrip(_ backend: StoreBackend) throws {
        let store = try backend.makeStore(in: dir)
        let price = BadgePrice(priceId: "p1", badgeType: .legend, monthPrice: 7000, currency: "usd", status: .deprecated, createdAt: t0)
        let offers = [
            BadgeOffer(offerId: "o1", priceId: nil, months: 3, discount: .freeMonths(1), status: .active, createdAt: t0),
            BadgeOffer(offerId: "o2", priceId: "p1", months: 12, discount: .percent(25), status: .disabled, createdAt: t0.adding(seconds: 1)),
        ]
        try store.write { w in
            try w.insertPrice(price)
            for o in offers { try w.insertOffer(o) }
        }
        #expect(try store.read { try $0.prices() } == [price])
        #expect(try store.read { try $0.offers() } == offers)
        #expect(try store.write { try $0.setPriceStatus(priceId: "p1", .active) })
        #expect(try !store.write { try $0.setPriceStatus(priceId: "nope", .active) })
        #expect(try store.write { try $0.setOfferStatus(offerId: "o1", .disabled) })
        #expect(try store.read { try $0.offers() }.first?.status == .disabled)
    }

    @Test(arguments: StoreBackend.allCases) func offerOfUnknownPriceIsRefused(_ backend: StoreBackend) throws {
        let store = try backend.makeStore(in: dir)
        #expect(throws: StorageError.brokenInvariant(.foreignKey, constraint: backend.text(sqlite: "FOREIGN KEY constraint failed",
                                                                    postgres: #"insert or update on table "badge_offers" violates foreign key constraint "badge_offers_price_id_fkey""#))) {
            try store.write { try $0.insertOffer(BadgeOffer(offerId: "o", priceId: "missing", months: 3, discount: .freeMonths(1), status: .active, createdAt: t0)) }
        }
    }

    @Test(arguments: StoreBackend.allCases) func purchaseKeyIsUnique(_ backend: StoreBackend) throws {
        let store = try backend.makeStore(in: dir)
        let p = try store.write { try $0.insertPurchase(key: "K", masterKey: [1, 2, 3], badgeType: .supporter, at: t0) }
        #expect(try store.read { try $0.purchase(key: "K") } == p)
        #expect(try store.read { try $0.purchase(id: p.id) } == p)
        #expect(try store.read { try $0.purchase(key: "L") } == nil)
        #expect(throws: StorageError.conflict(constraint: backend.text(sqlite: "UNIQUE constraint failed: badge_purchases.purchase_key",
                                                                  postgres: #"duplicate key value violates unique constraint "badge_purchases_purchase_key_key""#))) {
            try store.write { try $0.insertPurchase(key: "K", masterKey: [9], badgeType: .legend, at: t0) }
        }
    }

    @Test(arguments: StoreBackend.allCases) func ledgerRoundTripsEveryEntryType(_ backend: StoreBackend) throws {
        let store = try backend.makeStore(in: dir)
        let p = try store.write { try $0.insertPurchase(key: "K", masterKey: [1], badgeType: .supporter, at: t0) }
        let types: [LedgerEntryType] = [
            .credit(.payment(invoiceId: "inv")), .credit(.payment(invoiceId: nil)), .credit(.code),
            .credit(.charge(chargeId: "ch")), .credit(.support), .credit(.transferIn(fromPurchaseKey: "A")), .credit(.opening),
            .debit(.refund), .debit(.upgrade(toPurchaseKey: "B")), .debit(.transferOut(toPurchaseKey: "C")), .debit(.support),
            .debit(.badge), .debit(.lapse),
        ]
        var rows = types.enumerated().map { i, type in entry("e\(i)", change: 1, balance: i, type: type, at: t0.adding(seconds: Int64(i))) }
        rows[3].wasPausedSince = t0
        try store.write { try $0.appendLedger(purchaseId: p.id, expectedCount: 0, entries: rows) }
        #expect(try store.read { try $0.ledger(purchaseId: p.id) } == rows)
    }

    /// The indexed tail read holds what the rule picks from the whole ledger, for every
    /// assertion (each held row, an id of another purchase, none) and limit.
    @Test(arguments: StoreBackend.allCases) func ledgerTailReadsWhatTheRulePicksFromTheWholeLedger(_ backend: StoreBackend) throws {
        let store = try backend.makeStore(in: dir)
        let p = try store.write { try $0.insertPurchase(key: "K", masterKey: [1], badgeType: .supporter, at: t0) }
        let other = try store.write { try $0.insertPurchase(key: "L", masterKey: [2], badgeType: .supporter, at: t0) }
        let rows = (1...12).map { i in entry("e\(i)", change: 1, balance: i, type: .credit(.support), at: t0.adding(seconds: Int64(i))) }
        try store.write { try $0.appendLedger(purchaseId: p.id, expectedCount: 0, entries: rows) }
        try store.write { try $0.appendLedger(purchaseId: other.id, expectedCount: 0, entries: [entry("x1", change: 1, balance: 1, type: .credit(.code), at: t0)]) }
        let whole = try store.read { try $0.ledger(purchaseId: p.id) }
        for limit in [0, 5, 12, 100] {
            for asserted in [nil, "x1", "absent"] + rows.map(\.entryId) {
                let tail = try store.read { try $0.ledgerTail(purchaseId: p.id, asserting: asserted, completeHistoryLimit: limit) }
                #expect(tail == LedgerTail(of: whole, asserting: asserted, completeHistoryLimit: limit), "limit \(limit), asserted \(asserted ?? "-")")
            }
        }
        let empty = try store.write { try $0.insertPurchase(key: "M", masterKey: [3], badgeType: .supporter, at: t0) }
        #expect(try store.read { try $0.ledgerTail(purchaseId: empty.id, asserting: nil, completeHistoryLimit: 0) } == LedgerTail(count: 0, rows: []))
        // The append's tip check counts by the last seq: a stale count is refused, the right one lands.
        #expect(throws: StorageError.conflict(constraint: "ledger tip moved")) {
            try store.write { try $0.appendLedger(purchaseId: p.id, expectedCount: 11, entries: [entry("e13", change: 1, balance: 13, type: .credit(.support), at: t0)]) }
        }
        try store.write { try $0.appendLedger(purchaseId: p.id, expectedCount: 12, entries: [entry("e13", change: 1, balance: 13, type: .credit(.support), at: t0)]) }
        #expect(try store.read { try $0.ledgerTail(purchaseId: p.id, asserting: nil, completeHistoryLimit: 0) }.count == 13)
    }

    /// `issueBadge`'s combined read holds what the separate reads hold, for every assertion and
    /// limit, with and without issuances, a pause or a funding subscription.
    @Test(arguments: StoreBackend.allCases) func issueViewReadsWhatTheSeparateReadsRead(_ backend: StoreBackend) throws {
        let store = try backend.makeStore(in: dir)
        let p = try store.write { try $0.insertPurchase(key: "K", masterKey: [1, 2, 3], badgeType: .legend, at: t0) }
        let other = try store.write { try $0.insertPurchase(key: "L", masterKey: [2], badgeType: .supporter, at: t0) }
        let bare = try store.write { try $0.insertPurchase(key: "M", masterKey: [3], badgeType: .supporter, at: t0) }
        let funded = try store.write { try $0.insertPurchase(key: "N", masterKey: [4], badgeType: .supporter, at: t0) }
        let rows = (1...12).map { i in entry("e\(i)", change: i == 1 ? 12 : -1, balance: i == 1 ? 12 : 13 - i,
                                            type: i == 1 ? .credit(.support) : .debit(.badge), at: t0.adding(seconds: Int64(i))) }
        try store.write { try $0.appendLedger(purchaseId: p.id, expectedCount: 0, entries: rows) }
        try store.write { try $0.appendLedger(purchaseId: other.id, expectedCount: 0, entries: [entry("x1", change: 1, balance: 1, type: .credit(.code), at: t0)]) }
        func issuance(_ entryId: String, ending end: Int64) -> IssuanceRecord {
            IssuanceRecord(entryId: entryId, purchaseId: p.id, badgeType: .legend, periodStart: t0.adding(seconds: end - 10),
                           periodEnd: t0.adding(seconds: end), expiry: t0.adding(seconds: end + 10), keyIndex: 2,
                           signature: [UInt8](repeating: 7, count: 80))
        }
        let subscription = try store.write { try $0.insertSubscription(store: "apple", reference: "1000") }
        try store.write { w in
            // Inserted out of period order: the latest is the one whose period ends last.
            try w.insertIssuance(issuance("e3", ending: 300))
            try w.insertIssuance(issuance("e2", ending: 200))
            try w.setPause(purchaseId: p.id, since: t0.adding(seconds: 400))
            try w.insertSubscriptionFunding(SubscriptionFunding(purchaseId: funded.id, subscriptionId: subscription.id))
            _ = try w.markSubscriptionMovedAway(purchaseId: funded.id, at: t0)
        }
        func separately(_ key: String, _ asserted: String?, _ limit: Int) throws -> IssueView? {
            try store.read { r in
                guard let purchase = try r.purchase(key: key) else { return nil }
                if let funding = try r.subscriptionFunding(purchaseId: purchase.id) {
                    return IssueView(purchase: purchase, funding: funding, tail: nil, latestIssuance: nil, pausedSince: nil)
                }
                return IssueView(purchase: purchase, funding: nil,
                                 tail: try r.ledgerTail(purchaseId: purchase.id, asserting: asserted, completeHistoryLimit: limit),
                                 latestIssuance: try r.latestIssuance(purchaseId: purchase.id), pausedSince: try r.pausedSince(purchaseId: purchase.id))
            }
        }
        for key in ["K", "L", "M", "N", "absent"] {
            for limit in [0, 5, 100] {
                for asserted in [nil, "x1", "absent"] + rows.map(\.entryId) {
                    let view = try store.read { try $0.issueView(purchaseKey: key, asserting: asserted, completeHistoryLimit: limit) }
                    #expect(view == (try separately(key, asserted, limit)), "\(key), limit \(limit), asserted \(asserted ?? "-")")
                }
            }
        }
        // What the comparison rests on: each case holds what it is meant to.
        let full = try #require(try store.read { try $0.issueView(purchaseKey: "K", asserting: "e12", completeHistoryLimit: 0) })
        #expect(full.purchase == p && full.tail?.count == 12 && full.tail?.rows.map(\.entryId) == ["e12"])
        #expect(full.latestIssuance == issuance("e3", ending: 300) && full.pausedSince == t0.adding(seconds: 400))
        let empty = try #require(try store.read { try $0.issueView(purchaseKey: "M", asserting: nil, completeHistoryLimit: 0) })
        #expect(empty.purchase == bare && empty.tail == LedgerTail(count: 0, rows: []) && empty.latestIssuance == nil && empty.pausedSince == nil)
        let fund = try #require(try store.read { try $0.issueView(purchaseKey: "N", asserting: nil, completeHistoryLimit: 0) })
        #expect(fund.funding == SubscriptionFunding(purchaseId: funded.id, subscriptionId: subscription.id, movedAwayAt: t0) && fund.tail == nil)
        #expect(try store.read { try $0.issueView(purchaseKey: "absent", asserting: "e1", completeHistoryLimit: 0) } == nil)
    }

    /// An asserted tip comes from the issue view's first statement (no second one runs): every
    /// column of its row, for every entry type, each optional column set where the type has it.
    @Test(arguments: StoreBackend.allCases) func issueViewReadsAnAssertedTipOfEveryType(_ backend: StoreBackend) throws {
        let store = try backend.makeStore(in: dir)
        let types: [LedgerEntryType] = [
            .credit(.payment(invoiceId: "inv-1")), .credit(.payment(invoiceId: nil)), .credit(.code), .credit(.charge(chargeId: "ch-1")),
            .credit(.support), .credit(.transferIn(fromPurchaseKey: "FROM")), .credit(.opening), .debit(.refund),
            .debit(.upgrade(toPurchaseKey: "UP")), .debit(.transferOut(toPurchaseKey: "TO")), .debit(.support), .debit(.badge),
            .debit(.lapse),
        ]
        for (i, type) in types.enumerated() {
            let p = try store.write { try $0.insertPurchase(key: "T\(i)", masterKey: [UInt8(i)], badgeType: .supporter, at: t0) }
            let first = entry("t\(i)-1", change: 5, balance: 5, type: .credit(.code), at: t0)
            let change = if case .credit = type { 2 } else { -1 }
            let tip = LedgerEntry(entryId: "t\(i)-2", changeMonths: change, balanceMonths: 5 + change,
                                  balanceStartTs: t0.adding(seconds: 100 + Int64(i)), balanceAnchorTs: t0.adding(seconds: 200 + Int64(i)),
                                  balanceBadgeType: .legend, wasPausedSince: t0.adding(seconds: 50 + Int64(i)),
                                  createdAt: t0.adding(seconds: 300 + Int64(i)), entryType: type)
            try store.write { try $0.appendLedger(purchaseId: p.id, expectedCount: 0, entries: [first, tip]) }
            let atTip = try #require(try store.read { try $0.issueView(purchaseKey: "T\(i)", asserting: tip.entryId, completeHistoryLimit: 0) })
            #expect(atTip.tail == LedgerTail(count: 2, rows: [tip]), "\(type)")
            // The second statement's read of the same row, for comparison.
            let before = try #require(try store.read { try $0.issueView(purchaseKey: "T\(i)", asserting: first.entryId, completeHistoryLimit: 0) })
            #expect(before.tail == LedgerTail(count: 2, rows: [first, tip]), "\(type)")
        }
    }

    /// A refund recorded ahead of its payment is found by provider, kind and reference alone;
    /// recording it again is no error and changes nothing.
    @Test(arguments: StoreBackend.allCases) func refundsRecordedAheadAreFoundByTheirWholeKey(_ backend: StoreBackend) throws {
        let store = try backend.makeStore(in: dir)
        let refund = ProviderRefund(provider: "apple", kind: .payment, reference: "2000000700000002")
        #expect(try store.read { try $0.isRefunded(refund) } == false)
        #expect(try store.write { try $0.recordRefund(refund, at: t0) })
        #expect(try store.write { try $0.recordRefund(refund, at: t0.adding(seconds: 5)) } == false)
        #expect(try store.read { try $0.isRefunded(refund) })
        for other in [ProviderRefund(provider: "google", kind: .payment, reference: refund.reference),
                      ProviderRefund(provider: "apple", kind: .charge, reference: refund.reference),
                      ProviderRefund(provider: "apple", kind: .payment, reference: "2000000700000003")] {
            #expect(try store.read { try $0.isRefunded(other) } == false, "\(other)")
        }
    }

    @Test(arguments: StoreBackend.allCases) func ledgerAppendIsConditionalOnTheTip(_ backend: StoreBackend) throws {
        let store = try backend.makeStore(in: dir)
        let p = try store.write { try $0.insertPurchase(key: "K", masterKey: [1], badgeType: .supporter, at: t0) }
        try store.write { try $0.appendLedger(purchaseId: p.id, expectedCount: 0, entries: [entry("a", change: 3, balance: 3, type: .credit(.code), at: t0)]) }
        // A writer that read the empty ledger is refused: the tip moved.
        #expect(throws: StorageError.conflict(constraint: "ledger tip moved")) {
            try store.write { try $0.appendLedger(purchaseId: p.id, expectedCount: 0, entries: [entry("b", change: 3, balance: 3, type: .credit(.code), at: t0)]) }
        }
        #expect(try store.read { try $0.ledger(purchaseId: p.id) }.map(\.entryId) == ["a"])
    }

    @Test(arguments: StoreBackend.allCases) func negativeBalanceIsRefusedByTheDatabase(_ backend: StoreBackend) throws {
        let store = try backend.makeStore(in: dir)
        let p = try store.write { try $0.insertPurchase(key: "K", masterKey: [1], badgeType: .supporter, at: t0) }
        #expect(throws: StorageError.brokenInvariant(.check, constraint: backend.text(sqlite: "CHECK constraint failed: balance_months >= 0",
                                                                         postgres: #"new row for relation "badge_ledger" violates check constraint "badge_ledger_balance_months_check""#))) {
            try store.write { try $0.appendLedger(purchaseId: p.id, expectedCount: 0, entries: [entry("a", change: -1, balance: -1, type: .debit(.badge), at: t0)]) }
        }
    }

    @Test(arguments: StoreBackend.allCases) func aMissingRequiredValueIsABrokenInvariant(_ backend: StoreBackend) throws {
        let store = try backend.makeStore(in: dir)
        #expect(throws: StorageError.brokenInvariant(.notNull, constraint: backend.text(sqlite: "NOT NULL constraint failed: badge_purchases.master_key",
                                                                           postgres: #"null value in column "master_key" of relation "badge_purchases" violates not-null constraint"#))) {
            try execute(on: store, """
                INSERT INTO badge_purchases (purchase_key, master_key, badge_type, created_at) VALUES ('K', NULL, 'supporter', 0)
                """)
        }
    }

    @Test(arguments: StoreBackend.allCases) func failedTransactionWritesNothing(_ backend: StoreBackend) throws {
        let store = try backend.makeStore(in: dir)
        struct Boom: Error {}
        #expect(throws: Boom.self) {
            try store.write { w in
                _ = try w.insertPurchase(key: "K", masterKey: [1], badgeType: .supporter, at: t0)
                throw Boom()
            }
        }
        #expect(try store.read { try $0.purchase(key: "K") } == nil)
    }

    @Test(arguments: StoreBackend.allCases) func issuancesLatestByPeriodEnd(_ backend: StoreBackend) throws {
        let store = try backend.makeStore(in: dir)
        let p = try store.write { try $0.insertPurchase(key: "K", masterKey: [1], badgeType: .supporter, at: t0) }
        let rows = [entry("c", change: 2, balance: 2, type: .credit(.code), at: t0), entry("b1", change: -1, balance: 1, type: .debit(.badge), at: t0),
                    entry("b2", change: -1, balance: 0, type: .debit(.badge), at: t0)]
        try store.write { try $0.appendLedger(purchaseId: p.id, expectedCount: 0, entries: rows) }
        let first = IssuanceRecord(entryId: "b1", purchaseId: p.id, badgeType: .supporter, periodStart: t0, periodEnd: t0.adding(seconds: 100),
                                   expiry: t0.adding(seconds: 200), keyIndex: 1, signature: [UInt8](repeating: 1, count: 80))
        var second = first
        second.entryId = "b2"
        second.periodStart = first.periodEnd
        second.periodEnd = t0.adding(seconds: 300)
        try store.write { w in
            try w.insertIssuance(second)
            try w.insertIssuance(first)
        }
        #expect(try store.read { try $0.latestIssuance(purchaseId: p.id) } == second)
        // one issuance per badge row
        #expect(throws: StorageError.conflict(constraint: backend.text(sqlite: "UNIQUE constraint failed: badge_issuances.entry_id",
                                                                  postgres: #"duplicate key value violates unique constraint "badge_issuances_pkey""#))) {
            try store.write { try $0.insertIssuance(first) }
        }
    }

    @Test(arguments: StoreBackend.allCases) func codesAndRedemptions(_ backend: StoreBackend) throws {
        let store = try backend.makeStore(in: dir)
        let hash = [UInt8](repeating: 0xab, count: 32)
        let code = CodeRecord(hash: hash, badgeType: .supporter, months: 3, maxUses: 2, payment: .paid, expiresAt: nil, createdAt: t0)
        try store.write { try $0.insertCode(code) }
        #expect(try store.read { try $0.code(hash: hash) } == code)
        let a = try store.write { try $0.insertPurchase(key: "A", masterKey: [1], badgeType: .supporter, at: t0) }
        let b = try store.write { try $0.insertPurchase(key: "B", masterKey: [1], badgeType: .supporter, at: t0) }
        try store.write { try $0.insertRedemption(codeHash: hash, purchaseId: a.id, at: t0) }
        try store.write { try $0.insertRedemption(codeHash: hash, purchaseId: b.id, at: t0) }
        #expect(try store.read { try $0.redemptions(codeHash: hash) }.sorted() == [a.id, b.id].sorted())
        // a purchase redeems at most one code, once
        #expect(throws: StorageError.conflict(constraint: backend.text(
            sqlite: "UNIQUE constraint failed: badge_code_redemptions.code_hash, badge_code_redemptions.purchase_id",
            postgres: #"duplicate key value violates unique constraint "badge_code_redemptions_pkey""#))) {
            try store.write { try $0.insertRedemption(codeHash: hash, purchaseId: a.id, at: t0) }
        }
        #expect(try store.write { try $0.revokeCode(hash: hash, at: t0) })
        #expect(try !store.write { try $0.revokeCode(hash: hash, at: t0) })
        #expect(try store.read { try $0.code(hash: hash) }?.revokedAt == t0)
        #expect(throws: StorageError.brokenInvariant(.check, constraint: backend.text(sqlite: "CHECK constraint failed: months BETWEEN 1 AND 255",
                                                                         postgres: #"new row for relation "badge_codes" violates check constraint "badge_codes_months_check""#))) {
            try store.write { try $0.insertCode(CodeRecord(hash: [1], badgeType: .supporter, months: 0, maxUses: 1, payment: .free, expiresAt: nil, createdAt: t0)) }
        }
    }

    @Test(arguments: StoreBackend.allCases) func twoHandlesOnOneDatabaseSerialiseWrites(_ backend: StoreBackend) throws {
        let database = try backend.makeDatabase(in: dir)
        let a = try database.open(), b = try database.open()
        let p = try a.write { try $0.insertPurchase(key: "K", masterKey: [1], badgeType: .supporter, at: t0) }
        try b.write { try $0.appendLedger(purchaseId: p.id, expectedCount: 0, entries: [entry("x", change: 1, balance: 1, type: .credit(.support), at: t0)]) }
        #expect(try a.read { try $0.ledger(purchaseId: p.id) }.count == 1)
        #expect(throws: StorageError.conflict(constraint: "ledger tip moved")) {
            try a.write { try $0.appendLedger(purchaseId: p.id, expectedCount: 0, entries: [entry("y", change: 1, balance: 1, type: .credit(.support), at: t0)]) }
        }
    }
}

@Suite struct MigrationTests {
    let dir = TemporaryDirectory("migrations")

    @Test func refusesADatabaseFromANewerService() throws {
        let path = dir.file("db.sqlite")
        _ = try SQLiteBadgeStore(path: path)
        let raw = try SQLiteBadgeStore(path: path)
        // Simulate a newer service having migrated further.
        try raw.database.executeForTesting("INSERT INTO schema_migrations (version, applied_at) VALUES (999, 0)")
        #expect {
            _ = try SQLiteBadgeStore(path: path)
        } throws: { error in
            if case StorageError.newerSchema(path: _, found: 999, supported: _) = error { return true } else { return false }
        }
    }

    @Test func theNewerSchemaErrorNamesTheFile() throws {
        let path = dir.file("newer.sqlite")
        try SQLiteBadgeStore(path: path).database.executeForTesting("INSERT INTO schema_migrations (version, applied_at) VALUES (999, 0)")
        for migrate in [true, false] {
            #expect(throws: StorageError.newerSchema(path: path, found: 999, supported: SQLiteDatabase.latestSchemaVersion)) {
                _ = try SQLiteBadgeStore(path: path, migrate: migrate)
            }
        }
        #expect("\(StorageError.newerSchema(path: path, found: 999, supported: 11))".contains(path))
    }

    /// Without `migrate` an older database is refused, naming it, and left at its version; a
    /// missing one is not created.
    @Test func withoutMigrateAnOlderDatabaseIsRefusedAndLeftAsItIs() throws {
        let path = dir.file("older.sqlite"), older = SQLiteDatabase.latestSchemaVersion - 1
        try SQLiteDatabase.createForTesting(path: path, atVersion: older)
        #expect {
            _ = try SQLiteBadgeStore(path: path, migrate: false)
        } throws: { error in
            guard case StorageError.cannotOpen(path: path, let reason) = error else { return false }
            return reason.contains("schema version \(older)") && reason.contains("run badge-service migrate")
        }
        #expect(try SQLiteDatabase.storedSchemaVersion(path: path) == older)
        _ = try SQLiteBadgeStore(path: path)
        #expect(try SQLiteDatabase.storedSchemaVersion(path: path) == SQLiteDatabase.latestSchemaVersion)
        _ = try SQLiteBadgeStore(path: path, migrate: false)
        let missing = dir.file("missing.sqlite")
        #expect(throws: StorageError.self) { _ = try SQLiteBadgeStore(path: missing, migrate: false) }
        #expect(!FileManager.default.fileExists(atPath: missing))
    }

    /// No commit checkpoints the log: past SQLite's automatic threshold (1,000 pages) the log
    /// keeps growing while the background threshold is not reached.
    @Test func commitsDoNotCheckpointTheLog() throws {
        let path = dir.file("nockpt.sqlite")
        let store = try SQLiteBadgeStore(path: path, checkpointPages: 1_000_000)
        for i in 0..<1_200 {
            _ = try store.write { try $0.insertPurchase(key: "K\(i)", masterKey: Array(repeating: UInt8(i & 0xff), count: 4_000), badgeType: .supporter, at: Timestamp(seconds: 0)) }
        }
        let walBytes = try #require(fileSize(path + "-wal"))
        #expect(walBytes > 1_100 * 4_096, "log of \(walBytes) bytes: a commit checkpointed it")
        #expect(store.database.backgroundCheckpoints == 0)
    }

    /// Past its threshold the log is checkpointed in the background; every row stays, and
    /// shutdown still takes the database out of WAL mode.
    @Test func logIsCheckpointedInTheBackground() throws {
        let path = dir.file("ckpt.sqlite")
        let store = try SQLiteBadgeStore(path: path, checkpointPages: 4)
        for i in 0..<50 {
            _ = try store.write { try $0.insertPurchase(key: "K\(i)", masterKey: Array(repeating: 7, count: 4_000), badgeType: .supporter, at: Timestamp(seconds: 0)) }
        }
        #expect(waitUntil { store.database.backgroundCheckpoints > 0 })
        #expect(try store.read { try $0.purchase(key: "K49") }?.masterKey.count == 4_000)
        #expect(try store.database.checkpointForShutdown() == "delete")
        let reopened = try SQLiteBadgeStore(path: path)
        for i in 0..<50 { #expect(try reopened.read { try $0.purchase(key: "K\(i)") } != nil) }
    }

    /// Under writes that never pause, the log still starts over: a background checkpoint
    /// copies most of it while commits go on, and the writer copies the few frames left so the
    /// next write restarts the log. Before, every commit past the threshold scheduled another
    /// passive checkpoint, none ever caught up, and the log grew without bound (146 MB after
    /// 2,500 redemptions in bench/scale, with a checkpoint, and a sync of the database file,
    /// every other commit).
    @Test func logStartsOverUnderWritesThatNeverPause() throws {
        let path = dir.file("busy.sqlite")
        let store = try SQLiteBadgeStore(path: path, checkpointPages: 64)
        let writes = 3_000
        for i in 0..<writes {
            _ = try store.write { try $0.insertPurchase(key: "K\(i)", masterKey: Array(repeating: UInt8(i & 0xff), count: 3_000), badgeType: .supporter, at: Timestamp(seconds: 0)) }
        }
        let walBytes = try #require(fileSize(path + "-wal"))
        // Each write adds about four frames: without restarts the log would hold over 12,000. With
        // them it stays near the schedule's ceiling (four times the threshold, 256 frames), plus
        // what arrives while a background checkpoint runs (more on a loaded machine).
        #expect(walBytes < 2_000 * (4_096 + 24), "log of \(walBytes) bytes after \(writes) writes")
        // About one background checkpoint per threshold's worth of log (3,000 × 4 / 64), not one
        // every other commit.
        #expect(store.database.backgroundCheckpoints < writes / 8, "\(store.database.backgroundCheckpoints) checkpoints")
        #expect(store.database.writerCatchUps > 0)
        for i in stride(from: 0, to: writes, by: 250) { #expect(try store.read { try $0.purchase(key: "K\(i)") } != nil) }
    }

    /// A read that stays open holds the log: no checkpoint can copy past it, so the log grows.
    /// Background checkpoints are then tried once per quarter-threshold of growth, not at every
    /// commit, and once the read ends the log starts over instead of growing on.
    @Test func aLongReadHoldsTheLogUntilItEndsWithoutACheckpointAtEveryCommit() throws {
        let path = dir.file("held.sqlite")
        let store = try SQLiteBadgeStore(path: path, checkpointPages: 64)
        func insert(_ range: Range<Int>) throws {
            for i in range {
                _ = try store.write { try $0.insertPurchase(key: "K\(i)", masterKey: Array(repeating: UInt8(i & 0xff), count: 3_000), badgeType: .supporter, at: Timestamp(seconds: 0)) }
            }
        }
        try insert(0..<10)
        let reading = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0), done = DispatchSemaphore(value: 0)
        Thread {
            _ = try? store.read { r in
                _ = try r.purchase(key: "K0")   // the read transaction's snapshot is taken here
                reading.signal()
                release.wait()
            }
            done.signal()
        }.start()
        defer { release.signal() }   // a failed step does not leave the reader held
        reading.wait()
        try insert(10..<1_010)
        let held = try #require(fileSize(path + "-wal"))
        // About 4,000 frames were written behind the read. At most one background checkpoint per
        // regrowth (16 frames at this threshold); the old schedule ran one every other commit.
        #expect(held > 3_000 * 4_096, "log of \(held) bytes while the read held it")
        let frames = held / (4_096 + 24)
        #expect(store.database.backgroundCheckpoints <= frames / 16 + 2,
                "\(store.database.backgroundCheckpoints) checkpoints for \(frames) frames")
        release.signal()
        done.wait()
        try insert(1_010..<2_010)
        let after = try #require(fileSize(path + "-wal"))
        // Restarted: the next 1,000 writes (about 4,000 frames) reuse the file instead of
        // appending to it; what they may append is what arrives while the first background
        // checkpoint after the read copies the held log.
        #expect(after < held + 1_500 * (4_096 + 24), "log of \(after) bytes after the read, \(held) while held")
        #expect(try store.read { try $0.purchase(key: "K2009") } != nil)
    }

    private func fileSize(_ path: String) -> Int? {
        (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? nil
    }

    @Test func usesWriteAheadLogging() throws {
        let store = try SQLiteBadgeStore(path: dir.file("db.sqlite"))
        #expect(try store.database.journalMode() == "wal")
    }

    /// Runs `writers` threads of `each` writes at once, every write holding the writer a
    /// millisecond so the others queue behind it; returns each write's result by writer.
    private func concurrently(_ writers: Int, _ each: Int,
                              _ write: @escaping @Sendable (_ writer: Int, _ index: Int) -> Result<Void, StorageError>)
        -> [[Result<Void, StorageError>]] {
        let results = LockedValueBox([[Result<Void, StorageError>]](repeating: [], count: writers))
        let group = DispatchGroup()
        for w in 0..<writers {
            group.enter()
            Thread {
                for i in 0..<each {
                    let result = write(w, i)
                    results.withLock { $0[w].append(result) }
                }
                group.leave()
            }.start()
        }
        group.wait()
        return results.withLock { $0 }
    }

    private func storageOutcome(_ body: () throws -> Void) -> Result<Void, StorageError> {
        do {
            try body()
            return .success(())
        } catch let error as StorageError {
            return .failure(error)
        } catch {
            return .failure(.corrupt("not a storage error: \(error)"))
        }
    }

    /// Writes queued behind one share its commit (one sync of the log for many), and every
    /// write that returned is in the database.
    @Test func concurrentWritesShareCommitsAndEveryOneLands() throws {
        let store = try SQLiteBadgeStore(path: dir.file("group.sqlite"))
        let before = store.database.commitCount
        let results = concurrently(6, 30) { w, i in
            storageOutcome {
                _ = try store.write { tx in
                    usleep(1_000)
                    return try tx.insertPurchase(key: "W\(w)-\(i)", masterKey: [1], badgeType: .supporter, at: Timestamp(seconds: 0))
                }
            }
        }
        #expect(results.joined().allSatisfy { if case .success = $0 { true } else { false } })
        let commits = store.database.commitCount - before
        #expect(commits >= 1 && commits < 180, "\(commits) commits for 180 writes")
        for w in 0..<6 { for i in 0..<30 { #expect(try store.read { try $0.purchase(key: "W\(w)-\(i)") } != nil) } }
    }

    /// A write that fails inside a shared transaction is undone alone: the writes grouped with
    /// it land, it leaves nothing, and its caller gets its own error.
    @Test func aFailedWriteInASharedCommitIsUndoneAlone() throws {
        let store = try SQLiteBadgeStore(path: dir.file("group-fail.sqlite"))
        _ = try store.write { try $0.insertPurchase(key: "taken", masterKey: [1], badgeType: .supporter, at: Timestamp(seconds: 0)) }
        let results = concurrently(6, 20) { w, i in
            storageOutcome {
                _ = try store.write { tx in
                    usleep(1_000)
                    _ = try tx.insertPurchase(key: "W\(w)-\(i)", masterKey: [1], badgeType: .supporter, at: Timestamp(seconds: 0))
                    // Odd writers then break a UNIQUE constraint: their first row must go too.
                    if w % 2 == 1 {
                        _ = try tx.insertPurchase(key: "taken", masterKey: [1], badgeType: .supporter, at: Timestamp(seconds: 0))
                    }
                }
            }
        }
        for w in 0..<6 {
            for i in 0..<20 {
                let landed = try store.read { try $0.purchase(key: "W\(w)-\(i)") } != nil
                if w % 2 == 1 {
                    #expect(!landed)
                    guard case .failure(.conflict) = results[w][i] else { Issue.record("W\(w)-\(i): \(results[w][i])"); continue }
                } else {
                    #expect(landed)
                    guard case .success = results[w][i] else { Issue.record("W\(w)-\(i): \(results[w][i])"); continue }
                }
            }
        }
        #expect(store.database.commitCount < 121)
    }

    /// What an event loop reads: a free reader's snapshot, or nothing run at all while every
    /// reader is taken (it must not wait); PostgreSQL, behind the network, never promises one.
    @Test func aReadWithoutWaitingRunsOnlyOnAFreeReader() throws {
        let store = try SQLiteBadgeStore(path: dir.file("nowait.sqlite"), readerCount: 1)
        _ = try store.write { try $0.insertPurchase(key: "K", masterKey: [1], badgeType: .supporter, at: Timestamp(seconds: 0)) }
        #expect(try store.readWithoutWaiting { try $0.purchase(key: "K")?.purchaseKey } == "K")
        let taken = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0), done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            _ = try? store.read { _ in taken.signal(); release.wait() }
            done.signal()
        }
        taken.wait()
        let ran = LockedValueBox(false)
        let busy = try store.readWithoutWaiting { _ in ran.withLock { $0 = true } }
        #expect(busy == nil && !ran.withLock { $0 })
        release.signal()
        done.wait()
        #expect(try store.readWithoutWaiting { try $0.purchase(key: "K") != nil } == true)
        let postgres = try StoreBackend.postgres.makeStore(in: dir)
        #expect(try postgres.readWithoutWaiting { _ in true } == nil)
    }
}

@Suite struct SubscriptionStorageTests {
    let dir = TemporaryDirectory("storage-subscriptions")
    let t0 = Timestamp(CivilDate(year: 2026, month: 3, day: 10), hour: 11)

    @Test(arguments: StoreBackend.allCases)
    func aSubscriptionIsRecordedOncePerReferenceAndItsChargesGrantedOnce(_ backend: StoreBackend) throws {
        let store = try backend.makeStore(in: dir)
        var record = try store.write { try $0.insertSubscription(store: "apple", reference: "1000") }
        #expect(record.purchaseId == nil && record.checkedAt.isEmpty && record.state == nil)
        #expect(throws: StorageError.self) { try store.write { _ = try $0.insertSubscription(store: "apple", reference: "1000") } }
        // The same reference at another store is another subscription.
        _ = try store.write { try $0.insertSubscription(store: "google", reference: "1000") }

        let purchase = try store.write { try $0.insertPurchase(key: "K", masterKey: [1], badgeType: .supporter, at: t0) }
        record.purchaseId = purchase.id
        record.state = "billingRetry"
        record.readAt = t0
        record.latestChargeId = "c1"
        record.latestChargeRevoked = true
        record.grantedChargeId = "c1"
        record.checkedAt = [.purchase: t0, .renewal: t0.adding(seconds: 5)]
        record.movedFromPurchaseId = purchase.id
        record.movedAt = t0
        try store.write { try $0.updateSubscription(record) }
        #expect(try store.read { try $0.subscription(store: "apple", reference: "1000") } == record)
        #expect(try store.read { try $0.subscription(id: record.id) } == record)

        let charge = SubscriptionChargeRecord(subscriptionId: record.id, chargeId: "c1", productId: "P", badgeType: .legend,
                                              months: 12, periodStart: t0, periodEnd: t0.adding(seconds: 86_400), seenAt: t0)
        #expect(try store.write { try $0.recordSubscriptionCharge(charge) })
        #expect(try !store.write { try $0.recordSubscriptionCharge(charge) })
        #expect(try store.write { try $0.grantSubscriptionCharge(subscriptionId: record.id, chargeId: "c1", at: t0) })
        #expect(try !store.write { try $0.grantSubscriptionCharge(subscriptionId: record.id, chargeId: "c1", at: t0) })
        var granted = charge
        granted.grantedAt = t0
        #expect(try store.read { try $0.subscriptionCharges(subscriptionId: record.id) } == [granted])

        try store.write { try $0.insertSubscriptionFunding(SubscriptionFunding(purchaseId: purchase.id, subscriptionId: record.id)) }
        #expect(try store.write { try $0.markSubscriptionMovedAway(purchaseId: purchase.id, at: t0) })
        #expect(try !store.write { try $0.markSubscriptionMovedAway(purchaseId: purchase.id, at: t0) })
        #expect(try store.read { try $0.subscriptionFunding(purchaseId: purchase.id) }
                == SubscriptionFunding(purchaseId: purchase.id, subscriptionId: record.id, movedAwayAt: t0))
        try store.write { try $0.setPurchaseBadgeType(purchaseId: purchase.id, .legend) }
        #expect(try store.read { try $0.purchase(id: purchase.id)?.badgeType } == .legend)
    }
}

extension StoreBackend {
    /// The text each database gives the same failure.
    func text(sqlite: String, postgres: String) -> String {
        switch self {
        case .sqlite: return sqlite
        case .postgres: return postgres
        }
    }
}

/// Runs raw SQL in a write transaction of either backend's store (a row no protocol method writes).
func execute(on store: any BadgeStore, _ sql: String) throws {
    switch store {
    case let sqlite as SQLiteBadgeStore: try sqlite.database.executeForTesting(sql)
    case let postgres as PostgresBadgeStore: try postgres.database.executeForTesting(sql)
    default: Issue.record("no raw SQL on \(type(of: store))")
    }
}

/// Which SQLite failures are outages (transient for clients, a redelivery for providers).
@Suite struct SQLiteErrorClassTests {
    @Test func aFullOrFailingDiskIsUnavailableAndCorruptionIsNot() {
        func isUnavailable(_ e: StorageError) -> Bool { if case .unavailable = e { true } else { false } }
        #expect(isUnavailable(StorageError.classify(extended: 13, message: "database or disk is full")))      // SQLITE_FULL
        #expect(isUnavailable(StorageError.classify(extended: 10 | (3 << 8), message: "disk I/O error")))    // SQLITE_IOERR_WRITE
        #expect(!isUnavailable(StorageError.classify(extended: 11, message: "database disk image is malformed")))  // SQLITE_CORRUPT
        #expect(StorageError.classify(extended: 5, message: "locked") == .busy(path: nil))                   // SQLITE_BUSY
    }
}
