import BadgeCore
import Crypto
import Foundation
import Handlers
import JSON
import Ledger
import Locking
import Schema
import Storage
import TestSupport
import Testing

@Suite struct IssueTests {
    let h: Harness
    init() throws { h = try Harness(at: at(2026, 3, 10)) }

    /// Redeems a fresh code of `months` and returns the key and the client's last entry.
    func funded(months: Int = 3) throws -> (Ed25519PrivateKey, LedgerEntry) {
        let key = Ed25519PrivateKey()
        let out = h.redeem(try h.code(months: months), by: key)
        return (key, try #require(out.statement?.entries.last))
    }

    @Test func aRepeatInsideTheIssuedPeriodReturnsTheCachedCredential() throws {
        let (key, last) = try funded()
        let first = try h.ledger(of: key)
        h.clock.now = at(2026, 4, 9)
        let out = h.issue(by: key, asserting: last)
        #expect(out.error == nil)
        #expect(out.credential != nil)
        #expect(out.statement?.entries == [])
        #expect(out.statement?.previousEntryId == last.entryId)
        #expect(try h.ledger(of: key) == first)
        #expect(h.issuer.count == 1)
    }

    /// What an event loop may answer (``BadgeService/answerWithoutWaiting(body:signer:)``): the
    /// credential already issued, byte for byte the worker's answer, and a refused body; never a
    /// month due (nothing signed, nothing written), never another command. On PostgreSQL, whose
    /// reads wait for the network, only the refusal.
    @Test func anEventLoopAnswersOnlyWhatNeedsNoWaitNoWriteAndNoSigning() throws {
        let (key, last) = try funded()
        let ledger = try h.ledger(of: key)
        let local = !(h.store is PostgresBadgeStore)
        func body(_ command: RPCCommand) -> [UInt8] {
            RPCRequest(purchaseKey: key.publicKey.purchaseKeyText, command: command).json.serialized()
        }
        let issue = body(.issueBadge(balance: Balance(lastEntry: last)))
        h.clock.now = at(2026, 4, 9)
        let cached = h.service.answerWithoutWaiting(body: issue, signer: key.publicKey)
        #expect((cached != nil) == local)
        if let cached {
            #expect(cached.credential != nil && cached.command == "issueBadge")
            #expect(cached.body == h.service.handle(body: issue, caller: .signer(key.publicKey)).body)
        }
        h.clock.now = at(2026, 4, 10)  // the next month is due: signing and a write
        #expect(h.service.answerWithoutWaiting(body: issue, signer: key.publicKey) == nil)
        #expect(try h.ledger(of: key) == ledger)
        #expect(h.issuer.count == 1)
        #expect(h.service.answerWithoutWaiting(body: body(.getBadgeCatalog), signer: key.publicKey) == nil)
        #expect(h.service.answerWithoutWaiting(body: body(.pauseBadge), signer: key.publicKey) == nil)
        let refused = try #require(h.service.answerWithoutWaiting(body: Array("{\"version\":1".utf8), signer: key.publicKey))
        #expect(refused.error == .badRequest)
        let stranger = Ed25519PrivateKey()
        let unknown = RPCRequest(purchaseKey: stranger.publicKey.purchaseKeyText, command: .issueBadge(balance: Balance(lastEntry: last)))
        let answer = h.service.answerWithoutWaiting(body: unknown.json.serialized(), signer: stranger.publicKey)
        #expect((answer?.error == .unknownPurchaseKey) == local)
        #expect(try h.ledger(of: key) == ledger && h.issuer.count == 1)
    }

    @Test func theNextMonthIsIssuedWhenDue() throws {
        let (key, last) = try funded()
        h.clock.now = at(2026, 4, 10)  // exactly the boundary: the month is due
        let out = h.issue(by: key, asserting: last)
        let entries = try #require(out.statement?.entries)
        #expect(entries.map(\.entryType) == [.debit(.badge)])
        #expect(entries[0].balanceMonths == 1)
        #expect(entries[0].balanceStartTs == at(2026, 5, 10))
        #expect(out.statement?.previousEntryId == last.entryId)
        // period [04-10, 05-10) ends on a Sunday → Tuesday 2026-05-12
        #expect(out.credential?.expiry == Timestamp(CivilDate(year: 2026, month: 5, day: 12)))
        #expect(h.issuer.count == 2)
    }

    /// An assertion naming an entry the service holds is a prefix even where the client's copy
    /// differs in other fields: the answer is what follows it, attached with previousEntryId.
    @Test func assertionOfAHeldEntryWithOtherFieldsChangedIsAPrefix() throws {
        let (key, last) = try funded()
        var altered = last
        altered.balanceMonths = 11
        altered.createdAt = at(2026, 3, 1)
        h.clock.now = at(2026, 4, 10)
        let out = h.issue(by: key, asserting: altered)
        #expect(out.credential != nil)
        #expect(out.statement?.previousEntryId == last.entryId)
        #expect(out.statement?.entries.map(\.entryType) == [.debit(.badge)])
        #expect(out.statement?.entries.first?.balanceMonths == 1)
    }

    /// upstream testLapseAfterGap: grant 3 on 2026-03-10, nothing until 05-20 → one lapse and one badge row.
    @Test func lapseAfterAGap() throws {
        let (key, last) = try funded()
        h.clock.now = at(2026, 5, 20)
        let out = h.issue(by: key, asserting: last)
        let entries = try #require(out.statement?.entries)
        #expect(entries.map(\.entryType) == [.debit(.lapse), .debit(.badge)])
        #expect(entries.map(\.changeMonths) == [-1, -1])
        #expect(entries.map(\.balanceStartTs) == [at(2026, 5, 10), at(2026, 6, 10)])
        #expect(entries.last?.balanceMonths == 0)
        for e in try h.ledger(of: key) { #expect(e.paidThrough == at(2026, 6, 10)) }
        #expect(out.credential?.expiry == Timestamp(CivilDate(year: 2026, month: 6, day: 16)))
    }

    @Test func anExhaustedBalanceGetsNoCredentialAndAStatementThatShowsWhy() throws {
        let (key, last) = try funded(months: 1)
        h.clock.now = at(2026, 4, 20)
        let out = h.issue(by: key, asserting: last)
        #expect(out.error == nil)
        #expect(out.credential == nil)
        #expect(out.statement?.entries == [])
        #expect(out.statement.map { $0.entries.isEmpty } == true)
        let tip = try #require(try h.ledger(of: key).last)
        #expect(tip.balanceMonths == 0)
        #expect(tip.paidThrough <= h.clock.now)
    }

    @Test func anUnknownAssertionGetsTheCompleteHistory() throws {
        let (key, _) = try funded()
        let stranger = LedgerEntry.emptyEntry(at: at(2026, 3, 10), badgeType: .supporter)
        let out = h.issue(by: key, asserting: stranger)
        #expect(out.statement?.previousEntryId == nil)
        #expect(out.statement?.entries == (try h.ledger(of: key)))
    }

    @Test func statementsPassTheClientReplicaCheck() throws {
        let (key, _) = try funded(months: 12)
        var date = at(2026, 3, 10)
        for step in 0..<30 {
            date = date.adding(seconds: Int64(step % 3 == 0 ? 40 : 17) * 86_400)
            h.clock.now = date
            let replica = try h.ledger(of: key)
            _ = h.issue(by: key, asserting: replica.last!)
        }
        let rows = try h.ledger(of: key)
        #expect(checkLedger(rows, purchaseBadgeType: .supporter) == nil)
        #expect(rows.filter { $0.entryType == .debit(.badge) }.count + rows.filter { $0.entryType == .debit(.lapse) }.map { -$0.changeMonths }.reduce(0, +) == 12)
    }

    @Test func everyExpiryIsATuesdayMidnightOneToEightDaysAfterItsPeriod() throws {
        let (key, _) = try funded(months: 24)
        var date = at(2026, 3, 10)
        var expiries: [Timestamp] = []
        for _ in 0..<23 {
            let replica = try h.ledger(of: key)
            date = replica.last!.balanceStartTs
            h.clock.now = date
            let out = h.issue(by: key, asserting: replica.last!)
            let c = try #require(out.credential)
            let end = try #require(out.statement?.entries.last?.balanceStartTs)
            #expect(c.expiry.date.isoWeekday == 2 && c.expiry.secondOfDay == 0)
            #expect(c.expiry.seconds - end.seconds > 86_400 && c.expiry.seconds - end.seconds <= 8 * 86_400)
            expiries.append(c.expiry)
        }
        #expect(Set(expiries).count == 23)
    }

    /// A write the database refuses by a CHECK is a bug, not a race: answered `internal`,
    /// logged with the constraint, signed once and never retried; nothing is written.
    @Test func aBrokenCheckIsAnsweredInternalAndNotRetried() throws {
        let (key, last) = try funded()
        let before = try h.ledger(of: key)
        // The database itself drives the issued month's balance negative, as a planning bug would.
        try h.execute(sqlite: """
            CREATE TRIGGER negative_balance AFTER INSERT ON badge_issuances
            BEGIN UPDATE badge_ledger SET balance_months = -1 WHERE entry_id = NEW.entry_id; END
            """, postgres: """
            CREATE FUNCTION negative_balance() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN UPDATE badge_ledger SET balance_months = -1 WHERE entry_id = NEW.entry_id; RETURN NEW; END $$;
            CREATE TRIGGER negative_balance AFTER INSERT ON badge_issuances FOR EACH ROW EXECUTE FUNCTION negative_balance();
            """)
        h.clock.now = at(2026, 4, 10)
        let out = h.issue(by: key, asserting: last)
        #expect(out.error == .internal)
        #expect(h.issuer.count == 2)  // the redemption's month and one pass of issueBadge
        let constraint = h.text(sqlite: "CHECK constraint failed: balance_months >= 0",
                                postgres: #"new row for relation "badge_ledger" violates check constraint "badge_ledger_balance_months_check""#)
        #expect(h.internalErrors.withLock { $0 } == ["issueBadge: broken invariant (CHECK): \(constraint)"])
        #expect(try h.ledger(of: key) == before)
    }

    /// The contrast: a write that keeps losing a uniqueness race is re-planned and re-signed
    /// on every pass, then answered `internal` once the passes run out.
    @Test func aConflictIsRetriedUntilThePassesRunOut() throws {
        let (key, last) = try funded()
        let before = try h.ledger(of: key)
        // Every issuance collides with a purchase key that is already taken.
        try h.execute(sqlite: """
            CREATE TRIGGER taken_key AFTER INSERT ON badge_issuances
            BEGIN INSERT INTO badge_purchases (purchase_key, master_key, badge_type, created_at)
                  SELECT purchase_key, master_key, badge_type, created_at FROM badge_purchases LIMIT 1; END
            """, postgres: """
            CREATE FUNCTION taken_key() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN INSERT INTO badge_purchases (purchase_key, master_key, badge_type, created_at)
                  SELECT purchase_key, master_key, badge_type, created_at FROM badge_purchases LIMIT 1; RETURN NEW; END $$;
            CREATE TRIGGER taken_key AFTER INSERT ON badge_issuances FOR EACH ROW EXECUTE FUNCTION taken_key();
            """)
        h.clock.now = at(2026, 4, 10)
        let out = h.issue(by: key, asserting: last)
        #expect(out.error == .internal)
        #expect(h.issuer.count == 1 + BadgeService.conditionalWriteAttempts)
        #expect(h.internalErrors.withLock { $0 } == ["issueBadge: the write conflicted 3 times"])
        #expect(try h.ledger(of: key) == before)
    }

    @Test func twentyIdenticalIssueRequestsAtOnceIssueOnce() throws {
        let (key, last) = try funded()
        h.clock.now = at(2026, 4, 12)
        let body = RPCRequest(purchaseKey: key.publicKey.purchaseKeyText, command: .issueBadge(balance: Balance(lastEntry: last)))
            .json.serialized()
        let results = LockedValueBox<[RPCOutcome]>([])
        DispatchQueue.concurrentPerform(iterations: 20) { _ in
            let outcome = h.service.handle(body: body, caller: .signer(key.publicKey))
            results.withLock { $0.append(outcome) }
        }
        let outs = results.withLock { $0 }
        #expect(outs.allSatisfy { $0.error == nil && $0.credential != nil })
        #expect(Set(outs.compactMap(\.credential)).count == 1)
        #expect(try h.ledger(of: key).map(\.entryType) == [.credit(.code), .debit(.badge), .debit(.badge)])
    }

    @Test func signedCatalogCarriesTheStatement() throws {
        let (key, _) = try funded()
        let out = h.send(.getBadgeCatalog, by: key)
        guard case .badgeCatalog(let catalog, let statement) = out.response else { Issue.record("\(out.response)"); return }
        #expect(catalog.prices.count == 2)
        #expect(statement?.entries == (try h.ledger(of: key)))
    }

    /// Past Statement.completeHistoryLimit rows, an answer that attaches to nothing (an unknown
    /// assertion, the signed catalog) is one opening credit restating the tip; what follows a
    /// held entry is still answered whole.
    @Test func pastTheLimitAnUnattachedStatementIsOneOpeningCredit() throws {
        let (key, first) = try funded(months: 3)
        let admin = LedgerAdmin(store: h.store, clock: h.clock.function)
        for _ in 0..<(Statement.completeHistoryLimit - 2) { _ = try admin.creditSupport(key.publicKey.purchaseKeyText, months: 1) }
        var unknown = first
        unknown.entryId = "not-held"
        let atLimit = try h.ledger(of: key)
        #expect(atLimit.count == Statement.completeHistoryLimit)
        #expect(h.issue(by: key, asserting: unknown).statement == Statement(entries: atLimit))

        _ = try admin.creditSupport(key.publicKey.purchaseKeyText, months: 1)
        let rows = try h.ledger(of: key)
        let tip = try #require(rows.last)
        let out = h.issue(by: key, asserting: unknown)
        #expect(out.credential != nil)
        #expect(out.statement == Statement(entries: [tip.openingRestatement]))
        #expect(h.send(.getBadgeCatalog, by: key).statement == Statement(entries: [tip.openingRestatement]))
        // The client holds the opening now: nothing follows it.
        #expect(h.issue(by: key, asserting: tip.openingRestatement).statement == Statement(entries: [], previousEntryId: tip.entryId))
        // An old held entry still gets everything after it.
        #expect(h.issue(by: key, asserting: first).statement
                == Statement(entries: Array(rows[(rows.firstIndex(of: first)! + 1)...]), previousEntryId: first.entryId))
    }
}

@Suite struct AdminTests {
    let h: Harness
    init() throws { h = try Harness() }

    /// The seeded catalog is upstream's (Tests/Fixtures/examples/badgeCatalog.response.json):
    /// two prices and, for each, a 3-month and a 12-month offer, with upstream's ids.
    @Test func seededCatalogIsUpstreamsTwoPricesAndFourPerPriceOffers() throws {
        let upstream = try #require(try JSONValue.parse(Array(Repository.fixtureData("examples/badgeCatalog.response.json")))["document"])
        guard case .badgeCatalog(let expected, nil) = try RPCResponse(json: upstream),
              case .badgeCatalog(let seeded, _) = h.send(RPCRequest(purchaseKey: nil, command: .getBadgeCatalog), as: .anonymous).response else {
            Issue.record("no catalog"); return
        }
        func sameTime(_ p: [BadgePrice]) -> [BadgePrice] { p.map { var p = $0; p.createdAt = h.clock.now; return p } }
        func sameTime(_ o: [BadgeOffer]) -> [BadgeOffer] { o.map { var o = $0; o.createdAt = h.clock.now; return o } }
        #expect(Set(sameTime(seeded.prices)) == Set(sameTime(expected.prices)))
        #expect(Set(sameTime(seeded.offers)) == Set(sameTime(expected.offers)))
        #expect(Set(seeded.offers.compactMap(\.priceId)) == [DefaultCatalog.supporterPriceId, DefaultCatalog.legendPriceId])
        #expect(seeded.offers.count == 4)
    }

    @Test func catalogChangesShowInTheCatalog() throws {
        let admin = CatalogAdmin(store: h.store, clock: h.clock.function)
        h.clock.now = h.clock.now.adding(seconds: 1)
        let price = try admin.addPrice(badgeType: "supporter", monthPrice: 800, currency: "usd", replacing: DefaultCatalog.supporterPriceId)
        try admin.setStatus(DefaultCatalog.supporterThreeMonthsOfferId, .disabled)
        h.clock.now = h.clock.now.adding(seconds: 1)  // items list in creation order
        let offer = try admin.addOffer(months: 6, discount: .percent(10), priceId: price.priceId)
        guard case .badgeCatalog(let catalog, _) = h.send(RPCRequest(purchaseKey: nil, command: .getBadgeCatalog), as: .anonymous).response else {
            Issue.record("no catalog"); return
        }
        #expect(catalog.prices.map(\.priceId) == [DefaultCatalog.supporterPriceId, DefaultCatalog.legendPriceId, price.priceId])
        #expect(catalog.prices[0].status == .deprecated)
        #expect(catalog.offers.map(\.offerId) == [DefaultCatalog.supporterTwelveMonthsOfferId, DefaultCatalog.legendThreeMonthsOfferId,
                                                  DefaultCatalog.legendTwelveMonthsOfferId].sorted() + [offer.offerId])
        #expect(throws: CatalogAdmin.Refusal.self) { try admin.setStatus("nope", .disabled) }
        #expect(throws: CatalogAdmin.Refusal.self) { try admin.addOffer(months: 3, discount: .freeMonths(3), priceId: nil) }
        #expect(throws: CatalogAdmin.Refusal.self) { try admin.addPrice(badgeType: "Supporter!", monthPrice: 1, currency: "usd") }
        #expect(throws: CatalogAdmin.Refusal.self) { try admin.addPrice(badgeType: "legend", monthPrice: 1, currency: "usd", replacing: DefaultCatalog.supporterPriceId) }
    }

    @Test func seedingHappensOnce() throws {
        #expect(try !DefaultCatalog.seedIfEmpty(h.store, at: h.clock.now))
        #expect(try h.store.read { try $0.prices() }.count == 2)
    }

    @Test func codesAreStoredAsHashesOnly() throws {
        let created = try h.codes.create(badgeType: "supporter", months: 3, count: 5)
        #expect(created.count == 5 && Set(created).count == 5)
        for c in created { #expect(c.count == 26 && c.hasPrefix("SB-")) }
        let listed = try h.codes.list()
        #expect(listed.count == 5)
        let stored = Set(listed.map(\.record.hash))
        #expect(stored == Set(created.map { SHA256.hash(BadgeCode(parsing: $0)!.hashInput) }))
        #expect(throws: CodeAdmin.Refusal.notACode) { try h.codes.revoke("SB-bogus") }
        try h.codes.revoke(created[0])
        #expect(throws: CodeAdmin.Refusal.unknownCode) { try h.codes.revoke(created[0]) }
        #expect(throws: CodeAdmin.Refusal.self) { try h.codes.create(badgeType: "supporter", months: 0) }
        #expect(throws: CodeAdmin.Refusal.self) { try h.codes.create(badgeType: "supporter", months: 3, uses: 1001) }
    }

    @Test func supportCreditsTopUpTheRun() throws {
        let key = Ed25519PrivateKey()
        _ = h.redeem(try h.code(months: 2), by: key)
        let admin = LedgerAdmin(store: h.store, clock: h.clock.function)
        let rows = try admin.creditSupport(key.publicKey.purchaseKeyText, months: 4)
        #expect(rows.map(\.entryType) == [.credit(.support)])
        #expect(rows[0].balanceMonths == 5)
        let (_, all) = try admin.show(key.publicKey.purchaseKeyText)
        #expect(all.count == 3)
        #expect(checkLedger(all, purchaseBadgeType: .supporter) == nil)
        #expect(throws: LedgerAdmin.Refusal.unknownPurchase) { try admin.show(Ed25519PrivateKey().publicKey.purchaseKeyText) }
        #expect(throws: LedgerAdmin.Refusal.notAPurchaseKey) { try admin.show("nope") }
    }
}
