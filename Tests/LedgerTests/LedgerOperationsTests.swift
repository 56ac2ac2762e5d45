import BadgeCore
import Ledger
import Testing

@Suite struct LedgerOperationsTests {
    let key = "MCowBQYDK2VwAyEAebVWLo_mVPlAeLES6KmLp5AfhTrmlb7X4OORC60ElmQ="

    @Test func emptyEntryIsASeedAtT() {
        let t = at(2026, 3, 10, 11)
        let seed = LedgerEntry.emptyEntry(at: t, badgeType: .legend)
        #expect(seed == LedgerEntry(entryId: "", changeMonths: 0, balanceMonths: 0, balanceStartTs: t,
                                    balanceAnchorTs: t, balanceBadgeType: .legend, createdAt: t,
                                    entryType: .credit(.opening)))
        #expect(seed.paidThrough == t)
    }

    /// upstream tests/BadgeTests.hs testLapseAfterGap.
    @Test func lapseAfterGap() throws {
        let ids = EntryIds()
        let first = try planFirstFunding(months: 3, credit: .code, badgeType: .supporter, now: at(2026, 3, 10, 11),
                                         newId: ids.next)
        #expect(first.rows.map(\.changeMonths) == [3, -1])
        #expect(first.tip.balanceStartTs == at(2026, 4, 10, 11))
        #expect(first.tip.balanceMonths == 2)

        let later = planIssue(from: first.tip, at: at(2026, 5, 20, 11), newId: ids.next)
        #expect(later.rows.count == 2)
        let lapse = later.rows[0], badge = later.rows[1]
        #expect(lapse.entryType == .debit(.lapse))
        #expect(lapse.changeMonths == -1 && lapse.balanceMonths == 1)
        #expect(lapse.balanceStartTs == at(2026, 5, 10, 11))
        #expect(badge.entryType == .debit(.badge))
        #expect(badge.changeMonths == -1 && badge.balanceMonths == 0)
        #expect(badge.balanceStartTs == at(2026, 6, 10, 11))
        #expect(later.issued?.start == at(2026, 5, 10, 11) && later.issued?.end == at(2026, 6, 10, 11))
        for row in first.rows + later.rows {
            #expect(row.paidThrough == at(2026, 6, 10, 11))
            #expect(row.balanceAnchorTs == at(2026, 3, 10, 11))
        }
        #expect(checkLedger(first.rows + later.rows, purchaseBadgeType: .supporter) == nil)
    }

    @Test func monthEndClippingFrom31January() throws {
        let ids = EntryIds()
        var plan = try planFirstFunding(months: 4, credit: .code, badgeType: .supporter, now: at(2026, 1, 31, 12),
                                        newId: ids.next)
        var ends = [plan.issued!.end]
        for _ in 0..<3 {
            plan = planIssue(from: plan.tip, at: plan.tip.balanceStartTs, newId: ids.next)
            #expect(plan.rows.count == 1)  // issued exactly at the boundary: nothing lapsed
            ends.append(plan.issued!.end)
        }
        #expect(ends == [at(2026, 2, 28, 12), at(2026, 3, 31, 12), at(2026, 4, 30, 12), at(2026, 5, 31, 12)])
    }

    @Test func leapFebruary() throws {
        let ids = EntryIds()
        let first = try planFirstFunding(months: 2, credit: .code, badgeType: .supporter, now: at(2028, 1, 29, 8),
                                         newId: ids.next)
        #expect(first.issued?.end == at(2028, 2, 29, 8))
        let second = planIssue(from: first.tip, at: at(2028, 3, 1), newId: ids.next)
        #expect(second.issued?.start == at(2028, 2, 29, 8))
        #expect(second.issued?.end == at(2028, 3, 29, 8))
        #expect(credentialExpiry(periodEnd: at(2028, 2, 29, 8)) == at(2028, 3, 7))
    }

    @Test func issueNeedsABalanceAndAStartedMonth() {
        let ids = EntryIds()
        var e = LedgerEntry.emptyEntry(at: at(2026, 1, 1), badgeType: .supporter)
        #expect(e.issue(at: at(2026, 1, 1), newId: ids.next) == nil)
        e.balanceMonths = 1
        e.balanceStartTs = at(2026, 2, 1)
        #expect(e.issue(at: at(2026, 1, 31, 23, 59, 59), newId: ids.next) == nil)
        #expect(e.issue(at: at(2026, 2, 1), newId: ids.next) != nil)
        #expect(ids.count == 1)  // ids are drawn only for rows produced
    }

    @Test func topUpWhileCoverageRunsKeepsTheAnchor() throws {
        let ids = EntryIds()
        let first = try planFirstFunding(months: 1, credit: .code, badgeType: .supporter, now: at(2026, 1, 31, 12),
                                         newId: ids.next)
        // Balance 0, but the issued month runs to 28 Feb: a top-up continues the run.
        let rows = try first.tip.grant(months: 2, credit: .payment(invoiceId: "inv"), at: at(2026, 2, 10),
                                       purchaseKey: key, newId: ids.next)
        #expect(rows.count == 1)
        #expect(rows[0].balanceAnchorTs == at(2026, 1, 31, 12))
        #expect(rows[0].balanceStartTs == at(2026, 2, 28, 12))
        #expect(rows[0].paidThrough == at(2026, 4, 30, 12))
    }

    @Test func grantAfterALapseStartsANewRun() throws {
        let ids = EntryIds()
        let first = try planFirstFunding(months: 1, credit: .code, badgeType: .supporter, now: at(2026, 1, 31, 12),
                                         newId: ids.next)
        let t = at(2026, 3, 5, 9)
        let rows = try first.tip.grant(months: 2, credit: .support, at: t, purchaseKey: key, newId: ids.next)
        #expect(rows.count == 1)
        #expect(rows[0].balanceStartTs == t && rows[0].balanceAnchorTs == t)
        #expect(rows[0].paidThrough == at(2026, 5, 5, 9))
        // Exactly at the end of coverage the run continues instead (t == balanceStartTs).
        let edge = try first.tip.grant(months: 2, credit: .support, at: at(2026, 2, 28, 12), purchaseKey: key,
                                       newId: ids.next)
        #expect(edge[0].balanceAnchorTs == at(2026, 1, 31, 12))
        #expect(edge[0].paidThrough == at(2026, 4, 30, 12))
    }

    /// Months that ran out before a grant lapse first, so the new months are not eaten later.
    @Test func grantOntoAStaleRunLapsesFirst() throws {
        let ids = EntryIds()
        let first = try planFirstFunding(months: 2, credit: .code, badgeType: .supporter, now: at(2026, 1, 10),
                                         newId: ids.next)  // 1 left, due 10 Feb
        let t = at(2026, 6, 1)
        let rows = try first.tip.grant(months: 3, credit: .support, at: t, purchaseKey: key, newId: ids.next)
        #expect(rows.map(\.entryType) == [.debit(.lapse), .credit(.support)])
        #expect(rows[1].balanceMonths == 3)
        #expect(rows[1].balanceStartTs == t)
        let pass = planIssue(from: rows[1], at: t, newId: ids.next)
        #expect(pass.rows.count == 1 && pass.tip.balanceMonths == 2)
        #expect(checkLedger(first.rows + rows + pass.rows, purchaseBadgeType: .supporter) == nil)
    }

    @Test func grantOfAnotherTypeDebitsTheOldRunAsUpgrade() throws {
        let ids = EntryIds()
        let first = try planFirstFunding(months: 6, credit: .code, badgeType: .supporter, now: at(2026, 1, 10),
                                         newId: ids.next)
        let t = at(2026, 3, 20)  // [10 Feb, 10 Mar) ran out unissued; 4 remain, one of them running
        let plan = try planGrantThenIssue(from: first.tip, months: 1, credit: .charge(chargeId: "c1"),
                                          badgeType: .legend, creditAt: t, purchaseKey: key, now: t, newId: ids.next)
        #expect(plan.rows.map(\.entryType) == [.debit(.lapse), .debit(.upgrade(toPurchaseKey: key)),
                                               .credit(.charge(chargeId: "c1")), .debit(.badge)])
        #expect(plan.rows.map(\.changeMonths) == [-1, -4, 1, -1])
        #expect(plan.rows.map(\.balanceMonths) == [4, 0, 1, 0])
        let credit = plan.rows[2]
        #expect(credit.balanceBadgeType == .legend)
        #expect(credit.balanceStartTs == t && credit.balanceAnchorTs == t)
        #expect(plan.issued?.badgeType == .legend)
        #expect(plan.issued?.start == t && plan.issued?.end == at(2026, 4, 20))
        #expect(checkLedger(first.rows + plan.rows, purchaseBadgeType: .supporter) == nil)
    }

    @Test func grantOfAnotherTypeMidCoverageStartsAtItsDate() throws {
        let ids = EntryIds()
        let first = try planFirstFunding(months: 1, credit: .charge(chargeId: "c0"), badgeType: .supporter,
                                         now: at(2026, 1, 10), newId: ids.next)
        let t = at(2026, 1, 25)  // the supporter month runs to 10 Feb; nothing remains to debit
        let plan = try planCharge(from: first.tip, months: 1, chargeId: "c1", badgeType: .legend, periodStart: t,
                                  purchaseKey: key, now: at(2026, 1, 26), newId: ids.next)
        #expect(plan.rows.map(\.entryType) == [.credit(.charge(chargeId: "c1")), .debit(.badge)])
        #expect(plan.rows[0].balanceStartTs == t)  // earlier than the previous row's start: allowed here only
        #expect(plan.issued?.start == t && plan.issued?.badgeType == .legend)
        #expect(checkLedger(first.rows + plan.rows, purchaseBadgeType: .supporter) == nil)
    }

    @Test func grantEntryRefusesOtherTypeOntoRemainingMonths() throws {
        let ids = EntryIds()
        let first = try planFirstFunding(months: 3, credit: .code, badgeType: .supporter, now: at(2026, 1, 10),
                                         newId: ids.next)
        #expect(throws: LedgerError.otherTypeRemains(held: .supporter, remaining: 2, granting: .legend)) {
            try first.tip.grantEntry(months: 1, credit: .support, at: at(2026, 1, 11), badgeType: .legend,
                                     newId: ids.next)
        }
        #expect(throws: LedgerError.monthsOutOfRange(months: -1)) {
            try first.tip.grantEntry(months: -1, credit: .support, at: at(2026, 1, 11), newId: ids.next)
        }
        #expect(throws: LedgerError.monthsOutOfRange(months: 40_000)) {
            try first.tip.grantEntry(months: 40_000, credit: .support, at: at(2026, 1, 11), newId: ids.next)
        }
        var large = first.tip
        large.balanceMonths = 65_000
        #expect(throws: LedgerError.balanceOverflow(balance: 65_000, adding: 600)) {
            try large.grantEntry(months: 600, credit: .support, at: at(2026, 1, 11), newId: ids.next)
        }
        #expect(throws: LedgerError.dateBeforePrevious(date: at(2026, 1, 9), previous: at(2026, 1, 10))) {
            try first.tip.grant(months: 1, credit: .support, at: at(2026, 1, 9), purchaseKey: key, newId: ids.next)
        }
    }

    @Test func plainDebits() throws {
        let ids = EntryIds()
        let first = try planFirstFunding(months: 5, credit: .code, badgeType: .supporter, now: at(2026, 1, 10),
                                         newId: ids.next)
        let refund = try first.tip.debit(.refund, months: 2, at: at(2026, 1, 12), newId: ids.next)
        #expect(refund.changeMonths == -2 && refund.balanceMonths == 2)
        #expect(refund.balanceStartTs == first.tip.balanceStartTs && refund.balanceAnchorTs == first.tip.balanceAnchorTs)
        #expect(throws: LedgerError.insufficientBalance(balance: 4, debiting: 5)) {
            try first.tip.debit(.support, months: 5, at: at(2026, 1, 12), newId: ids.next)
        }
        #expect(throws: LedgerError.notAPlainDebit(.badge)) {
            try first.tip.debit(.badge, months: 1, at: at(2026, 1, 12), newId: ids.next)
        }
    }

    @Test func endingLapsesThenDebitsWhatRemains() throws {
        let ids = EntryIds()
        let first = try planFirstFunding(months: 12, credit: .charge(chargeId: "y"), badgeType: .supporter,
                                         now: at(2026, 1, 10), newId: ids.next)
        let rows = try planEnding(from: first.tip, debit: .refund, at: at(2026, 3, 15), newId: ids.next)
        #expect(rows.map(\.entryType) == [.debit(.lapse), .debit(.refund)])
        #expect(rows.map(\.changeMonths) == [-1, -10])  // the running, unissued month is refunded too
        #expect(rows.last?.balanceMonths == 0)
        let exhausted = try planEnding(from: rows[1], debit: .refund, at: at(2026, 3, 16), newId: ids.next)
        #expect(exhausted.isEmpty)
        let moved = try planEnding(from: rows[1], debit: .transferOut(toPurchaseKey: key), at: at(2026, 3, 16),
                                   newId: ids.next)
        #expect(moved.map(\.changeMonths) == [0])  // written even with nothing left
        #expect(checkLedger(first.rows + rows + moved, purchaseBadgeType: .supporter) == nil)
    }

    @Test func chargeCreditIsDatedToThePeriodStartOrThePreviousRow() throws {
        let ids = EntryIds()
        let first = try planFirstFunding(months: 1, credit: .charge(chargeId: "c0"), badgeType: .supporter,
                                         now: at(2026, 9, 28, 16, 20, 5), newId: ids.next)
        #expect(first.tip.chargeCreditDate(periodStart: at(2026, 10, 28, 16, 20, 5)) == at(2026, 10, 28, 16, 20, 5))
        #expect(first.tip.chargeCreditDate(periodStart: at(2026, 9, 1)) == at(2026, 9, 28, 16, 20, 5))

        // Renewal on time: continues the run on its anchor.
        let renewal = try planCharge(from: first.tip, months: 1, chargeId: "c1", badgeType: .supporter,
                                     periodStart: at(2026, 10, 28, 16, 20, 5), purchaseKey: key,
                                     now: at(2026, 10, 30), newId: ids.next)
        #expect(renewal.rows.map(\.entryType) == [.credit(.charge(chargeId: "c1")), .debit(.badge)])
        #expect(renewal.rows[0].createdAt == at(2026, 10, 28, 16, 20, 5))
        #expect(renewal.rows[0].balanceAnchorTs == at(2026, 9, 28, 16, 20, 5))
        #expect(renewal.issued?.start == at(2026, 10, 28, 16, 20, 5))

        // The store's period starting seconds before our boundary still continues the run.
        let early = try planCharge(from: first.tip, months: 1, chargeId: "c1", badgeType: .supporter,
                                   periodStart: at(2026, 10, 28, 16, 20, 0), purchaseKey: key,
                                   now: at(2026, 10, 30), newId: ids.next)
        #expect(early.rows[0].balanceStartTs == at(2026, 10, 28, 16, 20, 5))

        // Recovered after billing retry days later: a new run from the store's period start.
        let late = try planCharge(from: first.tip, months: 1, chargeId: "c1", badgeType: .supporter,
                                  periodStart: at(2026, 11, 2, 8), purchaseKey: key, now: at(2026, 11, 2, 9),
                                  newId: ids.next)
        #expect(late.rows[0].balanceAnchorTs == at(2026, 11, 2, 8))
        #expect(late.issued?.end == at(2026, 12, 2, 8))

        // A yearly charge read three months into its period: months already run out lapse at once.
        let yearly = try planFirstFunding(months: 12, credit: .charge(chargeId: "y"), badgeType: .legend,
                                          creditAt: at(2026, 1, 31), now: at(2026, 5, 1), newId: ids.next)
        #expect(yearly.rows.map(\.entryType) == [.credit(.charge(chargeId: "y")), .debit(.lapse), .debit(.badge)])
        #expect(yearly.rows.map(\.changeMonths) == [12, -3, -1])
        #expect(yearly.issued?.start == at(2026, 4, 30) && yearly.issued?.end == at(2026, 5, 31))

        #expect(throws: LedgerError.periodStartAfterNow(periodStart: at(2026, 11, 2), now: at(2026, 11, 1))) {
            try planCharge(from: first.tip, months: 1, chargeId: "c1", badgeType: .supporter,
                           periodStart: at(2026, 11, 2), purchaseKey: key, now: at(2026, 11, 1), newId: ids.next)
        }
    }

    @Test func issuePassIsIdempotentAtTheSameNow() throws {
        let ids = EntryIds()
        let first = try planFirstFunding(months: 3, credit: .code, badgeType: .supporter, now: at(2026, 3, 10, 11),
                                         newId: ids.next)
        let now = at(2026, 5, 20)
        let pass = planIssue(from: first.tip, at: now, newId: ids.next)
        #expect(pass.rows.count == 2)
        let again = planIssue(from: pass.tip, at: now, newId: ids.next)
        #expect(again.rows.isEmpty && again.issued == nil && again.tip == pass.tip)
        #expect(pass.issued?.isCurrent(at: now) == true)
        #expect(pass.issued?.isCurrent(at: pass.issued!.end) == false)
    }

    @Test func clockSteppingBackIsTakenAsTheTipsDate() throws {
        let ids = EntryIds()
        let first = try planFirstFunding(months: 3, credit: .code, badgeType: .supporter, now: at(2026, 3, 10, 11),
                                         newId: ids.next)
        let pass = planIssue(from: first.tip, at: at(2026, 3, 10, 10), newId: ids.next)
        #expect(pass.rows.isEmpty)
    }

    @Test func openingRestatementKeepsThePosition() throws {
        let ids = EntryIds()
        let first = try planFirstFunding(months: 3, credit: .code, badgeType: .supporter, now: at(2026, 3, 10, 11),
                                         newId: ids.next)
        let opening = first.tip.openingRestatement
        #expect(opening.entryId == first.tip.entryId && opening.entryType == .credit(.opening))
        #expect(opening.changeMonths == 2 && opening.balanceMonths == 2)
        #expect(opening.paidThrough == first.tip.paidThrough)
        let fromTip = planIssue(from: first.tip, at: at(2026, 6, 1), newId: EntryIds().next)
        let fromOpening = planIssue(from: opening, at: at(2026, 6, 1), newId: EntryIds().next)
        #expect(fromTip.rows == fromOpening.rows)
        #expect(checkLedger([opening] + fromOpening.rows, purchaseBadgeType: .supporter) == nil)
    }
}
