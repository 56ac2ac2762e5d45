import BadgeCore
import Ledger
import Testing

/// The pause rules of docs/protocol.md, Pause, as pure functions at their dates, and the client
/// replica check over the rows they make.
@Suite struct PauseTests {
    /// 3 months redeemed 10 March 2026 11:00, the first issued: [10 Mar, 10 Apr) held, 2 left.
    func issuedRun() -> (ids: EntryIds, rows: [LedgerEntry]) {
        let ids = EntryIds()
        let plan = try! planFirstFunding(months: 3, credit: .code, badgeType: .supporter, now: at(2026, 3, 10, 11),
                                         newId: ids.next)
        return (ids, plan.rows)
    }

    @Test func aPauseLapsesWhatRanOutBeforeItAndNothingElse() {
        let (ids, rows) = issuedRun()
        // Inside the issued month: nothing ran out, no row.
        let early = planPause(from: rows[1], at: at(2026, 3, 20), newId: ids.next)
        #expect(early.rows.isEmpty && early.since == at(2026, 3, 20))
        // 15 May: April (10 Apr → 10 May) ran out unissued and is lapsed; May, begun, is held.
        let late = planPause(from: rows[1], at: at(2026, 5, 15), newId: ids.next)
        #expect(late.rows.map(\.entryType) == [.debit(.lapse)])
        #expect(late.rows[0].balanceMonths == 1 && late.rows[0].balanceStartTs == at(2026, 5, 10, 11))
        #expect(late.since == at(2026, 5, 15))
        // A clock behind the tip pauses from the tip's time.
        #expect(planPause(from: rows[1], at: at(2026, 3, 1), newId: ids.next).since == rows[1].createdAt)
    }

    /// Paused 20 March inside the issued month, resumed 1 August: April to July were neither issued
    /// nor lapsed; the two months held start a run at the resume, and the first is issued then.
    @Test func monthsDueDuringThePauseStartARunAtTheResume() {
        let (ids, rows) = issuedRun()
        let pause = planPause(from: rows[1], at: at(2026, 3, 20), newId: ids.next)
        let resume = at(2026, 8, 1, 9)
        let plan = planIssue(from: rows[1], at: resume, pausedSince: pause.since, newId: ids.next)
        #expect(plan.rows.map(\.entryType) == [.debit(.badge)])
        let badge = plan.rows[0]
        #expect(badge.wasPausedSince == at(2026, 3, 20))
        #expect(badge.balanceMonths == 1)
        #expect(badge.balanceAnchorTs == resume && badge.balanceStartTs == at(2026, 9, 1, 9))
        #expect(plan.issued?.start == resume && plan.issued?.end == at(2026, 9, 1, 9))
        #expect(checkLedger(rows + plan.rows, purchaseBadgeType: .supporter) == nil)
        // The same pass without the pause lapses both months instead.
        let unpaused = planIssue(from: rows[1], at: resume, newId: ids.next)
        #expect(unpaused.rows.map(\.entryType) == [.debit(.lapse)] && unpaused.issued == nil)
    }

    /// A resume whose clock reads before the pause began (a clock stepped back, or two instances
    /// whose clocks differ): the row ending the pause is dated from the pause, never before it,
    /// so the replica check holds.
    @Test func aResumeClockBehindThePauseDatesTheRowFromThePause() {
        let (ids, rows) = issuedRun()
        let pausedAt = at(2026, 4, 15).adding(seconds: 10)
        let pause = planPause(from: rows[1], at: pausedAt, newId: ids.next)
        let plan = planIssue(from: rows[1], at: pausedAt.adding(seconds: -5), pausedSince: pause.since, newId: ids.next)
        #expect(plan.rows.map(\.entryType) == [.debit(.badge)])
        #expect(plan.rows.allSatisfy { $0.createdAt >= pause.since })
        #expect(checkLedger(rows + plan.rows, purchaseBadgeType: .supporter) == nil)
    }

    /// Paused and resumed inside the issued month: no unissued month was due, so nothing moves,
    /// no row is written and no row carries the pause.
    @Test func aPauseEndingInsideTheIssuedMonthChangesNothing() {
        let (ids, rows) = issuedRun()
        let plan = planIssue(from: rows[1], at: at(2026, 4, 1), pausedSince: at(2026, 3, 20), newId: ids.next)
        #expect(plan.rows.isEmpty && plan.issued == nil && plan.tip == rows[1])
        #expect(rows[1].resumed(pausedSince: at(2026, 3, 20), at: at(2026, 4, 10, 11)) == rows[1])  // at the boundary itself
        // resumed exactly at the boundary: the month due is issued on the old anchor, marked
        let boundary = planIssue(from: rows[1], at: at(2026, 4, 10, 11), pausedSince: at(2026, 3, 20), newId: ids.next)
        #expect(boundary.rows.count == 1 && boundary.rows[0].balanceAnchorTs == at(2026, 3, 10, 11))
        #expect(boundary.rows[0].wasPausedSince == at(2026, 3, 20))
        #expect(checkLedger(rows + boundary.rows, purchaseBadgeType: .supporter) == nil)
    }

    /// A month that had begun unissued when the pause started is given back whole: nothing was
    /// issued for its first days.
    @Test func aMonthBegunUnissuedBeforeThePauseIsKeptWhole() {
        let (ids, rows) = issuedRun()
        let pause = planPause(from: rows[1], at: at(2026, 4, 25), newId: ids.next)  // April begun 10 Apr, unissued
        #expect(pause.rows.isEmpty)
        let plan = planIssue(from: rows[1], at: at(2026, 6, 1), pausedSince: pause.since, newId: ids.next)
        #expect(plan.rows.map(\.entryType) == [.debit(.badge)])
        #expect(plan.issued?.start == at(2026, 6, 1) && plan.issued?.end == at(2026, 7, 1))
        #expect(plan.rows[0].balanceMonths == 1)
    }

    @Test func anEmptyBalanceResumesWithoutARow() {
        let ids = EntryIds()
        let rows = try! planFirstFunding(months: 1, credit: .code, badgeType: .supporter, now: at(2026, 3, 10), newId: ids.next).rows
        let plan = planIssue(from: rows[1], at: at(2026, 9, 1), pausedSince: at(2026, 3, 11), newId: ids.next)
        #expect(plan.rows.isEmpty && plan.issued == nil)
    }

    /// A grant while paused (an operator's support credit) carries the pause it ends and extends
    /// the resumed run; a refund or transferOut while paused debits the months held at the pause.
    @Test func otherRowsWrittenWhilePausedEndThePauseAndDerive() throws {
        let (ids, rows) = issuedRun()
        let since = at(2026, 3, 20)
        let granted = try rows[1].grant(months: 2, credit: .support, at: at(2026, 7, 1), purchaseKey: "k",
                                        pausedSince: since, newId: ids.next)
        #expect(granted.map(\.entryType) == [.credit(.support)])
        #expect(granted[0].wasPausedSince == since && granted[0].balanceMonths == 4)
        #expect(granted[0].balanceStartTs == at(2026, 7, 1) && granted[0].balanceAnchorTs == at(2026, 7, 1))
        #expect(checkLedger(rows + granted, purchaseBadgeType: .supporter) == nil)

        let refund = try planEnding(from: rows[1], debit: .refund, at: at(2026, 12, 1), pausedSince: since, newId: ids.next)
        #expect(refund.map(\.changeMonths) == [-2] && refund[0].wasPausedSince == since)
        #expect(checkLedger(rows + refund, purchaseBadgeType: .supporter) == nil)
    }

    @Test func theReplicaCheckRefusesAPauseOutOfOrderOrAShiftWithoutOne() {
        let (ids, rows) = issuedRun()
        let plan = planIssue(from: rows[1], at: at(2026, 8, 1), pausedSince: at(2026, 3, 20), newId: ids.next)
        var early = plan.rows[0]
        early.wasPausedSince = at(2026, 3, 1)  // before the previous row
        #expect(checkLedger(rows + [early], purchaseBadgeType: .supporter)?.reason == .pauseOutOfOrder(wasPausedSince: at(2026, 3, 1)))
        var late = plan.rows[0]
        late.wasPausedSince = at(2026, 8, 2)  // after its own row
        #expect(checkLedger(rows + [late], purchaseBadgeType: .supporter)?.index == 2)
        var unmarked = plan.rows[0]
        unmarked.wasPausedSince = nil  // a shifted run with no pause to explain it
        #expect(checkLedger(rows + [unmarked], purchaseBadgeType: .supporter)?.index == 2)
        var first = rows[0]
        first.wasPausedSince = first.createdAt
        #expect(checkLedger([first], purchaseBadgeType: .supporter)?.index == 0)
    }
}

/// Funding by receipt (docs/protocol.md, Funding by receipt) as a pure plan at its dates.
@Suite struct ReceiptTransferTests {
    /// 12 months bought 10 March 2026, the first issued; recovered 25 June: April and May ran
    /// out unissued (lapse −2), June (begun 10 June, unissued) and the 8 after it move.
    @Test func theUnissuedMonthsMoveAfterALapseAndTheMonthDueIsIssued() throws {
        let ids = EntryIds()
        let bought = try planFirstFunding(months: 12, credit: .payment(invoiceId: "inv"), badgeType: .supporter,
                                          now: at(2026, 3, 10, 11), newId: ids.next)
        let now = at(2026, 6, 25, 8)
        let plan = try planReceiptTransfer(from: bought.tip, sourcePausedSince: nil, fromPurchaseKey: "old",
                                           toPurchaseKey: "new", at: now, newId: ids.next)
        #expect(plan.sourceRows.map(\.entryType) == [.debit(.lapse), .debit(.transferOut(toPurchaseKey: "new"))])
        #expect(plan.sourceRows.map(\.changeMonths) == [-2, -9])
        #expect(plan.sourceRows.last?.balanceMonths == 0 && plan.months == 9)
        #expect(checkLedger(bought.rows + plan.sourceRows, purchaseBadgeType: .supporter) == nil)

        let rows = plan.destination.rows
        #expect(rows.map(\.entryType) == [.credit(.transferIn(fromPurchaseKey: "old")), .debit(.badge)])
        #expect(rows.map(\.balanceMonths) == [9, 8])
        #expect(rows[0].balanceAnchorTs == now && rows[0].createdAt == now)
        #expect(plan.destination.issued?.start == now && plan.destination.issued?.end == at(2026, 7, 25, 8))
        #expect(checkLedger(rows, purchaseBadgeType: .supporter) == nil)
    }

    /// Nothing unissued (a one-month purchase inside its month): transferOut of none, and a new
    /// purchase holding nothing, with no month to issue.
    @Test func nothingLeftMovesNothing() throws {
        let ids = EntryIds()
        let bought = try planFirstFunding(months: 1, credit: .payment(invoiceId: nil), badgeType: .legend,
                                          now: at(2026, 3, 10), newId: ids.next)
        let plan = try planReceiptTransfer(from: bought.tip, sourcePausedSince: nil, fromPurchaseKey: "old",
                                           toPurchaseKey: "new", at: at(2026, 3, 12), newId: ids.next)
        #expect(plan.sourceRows.map(\.changeMonths) == [0] && plan.months == 0)
        #expect(plan.destination.rows.map(\.changeMonths) == [0] && plan.destination.issued == nil)
        #expect(plan.destination.tip.balanceBadgeType == .legend)
        #expect(checkLedger(plan.destination.rows, purchaseBadgeType: .legend) == nil)
    }

    /// A paused source: its transferOut ends the pause and moves every month held at the pause.
    @Test func aPausedSourceMovesWhatThePauseKept() throws {
        let ids = EntryIds()
        let bought = try planFirstFunding(months: 3, credit: .payment(invoiceId: "inv"), badgeType: .supporter,
                                          now: at(2026, 3, 10), newId: ids.next)
        let plan = try planReceiptTransfer(from: bought.tip, sourcePausedSince: at(2026, 3, 15), fromPurchaseKey: "old",
                                           toPurchaseKey: "new", at: at(2026, 11, 1), newId: ids.next)
        #expect(plan.sourceRows.map(\.entryType) == [.debit(.transferOut(toPurchaseKey: "new"))])
        #expect(plan.sourceRows[0].changeMonths == -2 && plan.sourceRows[0].wasPausedSince == at(2026, 3, 15))
        #expect(checkLedger(bought.rows + plan.sourceRows, purchaseBadgeType: .supporter) == nil)
        #expect(plan.destination.rows.map(\.balanceMonths) == [2, 1])
    }
}
