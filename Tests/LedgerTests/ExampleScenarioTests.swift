import BadgeCore
import Ledger
import Testing

/// Reproduces the ledger numbers of Tests/Fixtures/examples from the same inputs: a 3-month
/// supporter code redeemed Tue 2026-03-10 11:00 UTC, then issueBadge requests.
@Suite struct ExampleScenarioTests {
    let redeemedAt = at(2026, 3, 10, 11)

    @Test func redeemBadgeCode() throws {
        let doc = try ExampleDocument.load("redeemBadgeCode.response.badgeCredential.json")
        let expected = try ExampleDocument.entries(doc)
        let plan = try planFirstFunding(months: 3, credit: .code, badgeType: .supporter, now: redeemedAt,
                                        newId: EntryIds(expected.map(\.entryId)).next)
        #expect(plan.rows == expected)
        #expect(try plan.issued?.expiry == ExampleDocument.expiry(doc))
        #expect(try plan.issued?.badgeType == ExampleDocument.badgeType(doc))
        #expect(plan.issued?.start == redeemedAt && plan.issued?.end == at(2026, 4, 10, 11))
        let answer = statement(of: plan.rows, asserting: nil)
        #expect(try answer.statement == Statement(entries: expected, previousEntryId: ExampleDocument.previousEntryId(doc)))
        #expect(checkLedger(plan.rows, purchaseBadgeType: .supporter) == nil)
    }

    @Test func issueBadgeNothingDue() throws {
        let redeemed = try ExampleDocument.entries(try ExampleDocument.load("redeemBadgeCode.response.badgeCredential.json"))
        let doc = try ExampleDocument.load("issueBadge.response.nothing-due.json")
        let now = at(2026, 4, 10, 10, 59, 59)
        let plan = planIssue(from: redeemed[1], at: now, newId: EntryIds().next)
        #expect(plan.rows.isEmpty && plan.issued == nil)
        // The cached issuance from the redemption still answers.
        #expect(isPeriodCurrent(periodEnd: at(2026, 4, 10, 11), at: now))
        #expect(try credentialExpiry(periodEnd: at(2026, 4, 10, 11)) == ExampleDocument.expiry(doc))
        let answer = statement(of: redeemed, asserting: redeemed[1])
        #expect(try answer.statement.entries == ExampleDocument.entries(doc))
        #expect(try answer.statement.previousEntryId == ExampleDocument.previousEntryId(doc))
    }

    @Test func issueBadgeNextMonth() throws {
        let redeemed = try ExampleDocument.entries(try ExampleDocument.load("redeemBadgeCode.response.badgeCredential.json"))
        let doc = try ExampleDocument.load("issueBadge.response.next-month.json")
        let expected = try ExampleDocument.entries(doc)
        let now = at(2026, 4, 10, 11)  // the first due date, exactly
        #expect(!isPeriodCurrent(periodEnd: at(2026, 4, 10, 11), at: now))
        let plan = planIssue(from: redeemed[1], at: now, newId: EntryIds(expected.map(\.entryId)).next)
        #expect(plan.rows == expected)
        #expect(try plan.issued?.expiry == ExampleDocument.expiry(doc))
        let answer = statement(of: redeemed + plan.rows, asserting: redeemed[1])
        #expect(answer.statement.entries == expected)
        #expect(try answer.statement.previousEntryId == ExampleDocument.previousEntryId(doc))
        #expect(checkLedger(expected, after: redeemed[1], purchaseBadgeType: .supporter) == nil)
    }

    @Test func issueBadgeLapsedExhausted() throws {
        let nextMonth = try ExampleDocument.entries(try ExampleDocument.load("issueBadge.response.next-month.json"))
        let doc = try ExampleDocument.load("issueBadge.response.lapsed-exhausted.json")
        let expected = try ExampleDocument.entries(doc)
        let plan = planIssue(from: nextMonth[0], at: at(2026, 6, 20, 9, 30), newId: EntryIds(expected.map(\.entryId)).next)
        #expect(plan.rows == expected)
        #expect(plan.issued == nil)
        #expect(try ExampleDocument.expiry(doc) == nil)
        #expect(plan.tip.paidThrough == at(2026, 6, 10, 11))
        let answer = statement(of: nextMonth + plan.rows, asserting: nextMonth[0])
        #expect(try answer.statement.previousEntryId == ExampleDocument.previousEntryId(doc))
        #expect(checkLedger(expected, after: nextMonth[0], purchaseBadgeType: .supporter) == nil)
    }

    @Test func subscriptionFirstPurchase() throws {
        let doc = try ExampleDocument.load("purchaseBadge.response.subscription.json")
        let expected = try ExampleDocument.entries(doc)
        let periodStart = at(2026, 9, 28, 16, 20, 5)
        let plan = try planFirstFunding(months: 1, credit: .charge(chargeId: "Q2hhcmdlSWQxMjM0NTY3OA=="),
                                        badgeType: .supporter, creditAt: periodStart, now: periodStart,
                                        newId: EntryIds(expected.map(\.entryId)).next)
        #expect(plan.rows == expected)
        #expect(try plan.issued?.expiry == ExampleDocument.expiry(doc))
        #expect(checkLedger(expected, purchaseBadgeType: .supporter) == nil)
    }

    @Test func transferBadgeOldKey() throws {
        let bought = try ExampleDocument.entries(try ExampleDocument.load("purchaseBadge.response.subscription.json"))
        let doc = try ExampleDocument.load("transferBadge.response.old-key.json")
        let expected = try ExampleDocument.entries(doc)
        guard case let .debit(.transferOut(newKey)) = expected[0].entryType else {
            Issue.record("expected a transferOut row")
            return
        }
        let rows = try planEnding(from: bought[1], debit: .transferOut(toPurchaseKey: newKey),
                                  at: at(2026, 10, 2, 10), newId: EntryIds(expected.map(\.entryId)).next)
        #expect(rows == expected)
        #expect(try statement(of: bought + rows, asserting: bought[1]).statement.previousEntryId
                == ExampleDocument.previousEntryId(doc))
        #expect(checkLedger(bought + rows, purchaseBadgeType: .supporter) == nil)
    }
}
