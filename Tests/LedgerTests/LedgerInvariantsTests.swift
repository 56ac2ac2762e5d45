import BadgeCore
import Ledger
import Testing

@Suite struct LedgerInvariantsTests {
    /// code 3 at 10 Mar, badge; lapse + badge on 20 May; support credit 2 on 1 Jul (new run).
    let rows: [LedgerEntry] = {
        let ids = EntryIds()
        let first = try! planFirstFunding(months: 3, credit: .code, badgeType: .supporter, now: at(2026, 3, 10, 11),
                                          newId: ids.next)
        let pass = planIssue(from: first.tip, at: at(2026, 5, 20), newId: ids.next)
        let credit = try! pass.tip.grant(months: 2, credit: .support, at: at(2026, 7, 1), purchaseKey: "k",
                                         newId: ids.next)
        return first.rows + pass.rows + credit
    }()

    @Test func serviceRowsPass() {
        #expect(rows.map(\.entryType) == [.credit(.code), .debit(.badge), .debit(.lapse), .debit(.badge),
                                          .credit(.support)])
        #expect(checkLedger(rows, purchaseBadgeType: .supporter) == nil)
        for k in rows.indices.dropLast() {
            #expect(checkLedger(Array(rows[(k + 1)...]), after: rows[k], purchaseBadgeType: .supporter) == nil)
        }
    }

    private func violation(_ mutate: (inout [LedgerEntry]) -> Void) -> LedgerViolation? {
        var copy = rows
        mutate(&copy)
        return checkLedger(copy, purchaseBadgeType: .supporter)
    }

    @Test func balanceArithmetic() {
        let v = violation { $0[3].balanceMonths = 1 }
        #expect(v == LedgerViolation(index: 3, entryId: "e4",
                                     reason: .balanceMismatch(previous: 1, change: -1, balance: 1)))
        #expect(violation { $0[1].changeMonths = -4; $0[1].balanceMonths = -1 }?.reason
                == .outOfRange(changeMonths: -4, balanceMonths: -1))
    }

    @Test func datesNeverDecrease() {
        #expect(violation { $0[3].createdAt = at(2026, 5, 19) }?.reason
                == .createdAtDecreased(previous: at(2026, 5, 20), createdAt: at(2026, 5, 19)))
    }

    @Test func lapseAndBadgeMustReDerive() {
        // A lapse of one month too many, balance kept consistent.
        let tooMuch = violation {
            $0[2].changeMonths = -2; $0[2].balanceMonths = 0
            $0[3].balanceMonths = -1
        }
        #expect(tooMuch?.index == 2)
        if case .notDerivable(let expected)? = tooMuch?.reason { #expect(expected == rows[2]) }
        else { Issue.record("expected notDerivable, got \(String(describing: tooMuch))") }

        // A badge issued before its month begins.
        let early = violation { $0[1].createdAt = at(2026, 3, 10, 11); $0[1].balanceStartTs = at(2026, 5, 10, 11) }
        #expect(early?.index == 1)

        // A badge row whose period does not follow the anchor.
        let shifted = violation { $0[3].balanceStartTs = at(2026, 6, 11, 11) }
        #expect(shifted?.index == 3)

        // A badge with nothing before it: the seed holds no months.
        #expect(checkLedger([rows[1]], purchaseBadgeType: .supporter)?.index == 0)
        var fromNothing = rows[1]
        fromNothing.changeMonths = 0
        fromNothing.balanceMonths = 0
        #expect(checkLedger([fromNothing], purchaseBadgeType: .supporter)?.reason == .notDerivable(expected: nil))
    }

    @Test func creditsMustReDerive() {
        // A credit that moves the anchor without a restart.
        let moved = violation { $0[0].balanceAnchorTs = at(2026, 3, 1) }
        #expect(moved?.index == 0)
        // The support credit restarting at another date than its own.
        let restart = violation { $0[4].balanceStartTs = at(2026, 7, 2); $0[4].balanceAnchorTs = at(2026, 7, 2) }
        #expect(restart?.index == 4)
        if case .notDerivable(let expected)? = restart?.reason { #expect(expected == rows[4]) }
        else { Issue.record("expected notDerivable") }
    }

    @Test func plainDebitsKeepTheRun() {
        var refund = try! rows[1].debit(.refund, months: 1, at: at(2026, 3, 12), newId: { "r" })
        #expect(checkLedger([refund], after: rows[1], purchaseBadgeType: .supporter) == nil)
        refund.balanceAnchorTs = at(2026, 3, 12)
        #expect(checkLedger([refund], after: rows[1], purchaseBadgeType: .supporter)?.reason == .debitMovesRun)
        refund.balanceAnchorTs = rows[1].balanceAnchorTs
        refund.balanceStartTs = at(2026, 4, 1)
        #expect(checkLedger([refund], after: rows[1], purchaseBadgeType: .supporter)?.reason
                == .startDecreased(previous: at(2026, 4, 10, 11), start: at(2026, 4, 1)))
    }

    @Test func openingWithNothingBefore() {
        #expect(checkLedger([rows[3].openingRestatement], purchaseBadgeType: .supporter) == nil)
        #expect(checkLedger([rows[3].openingRestatement], purchaseBadgeType: .legend)?.reason
                == .openingMismatch(expectedBadgeType: .legend))
        var wrong = rows[1].openingRestatement
        wrong.changeMonths = 1
        #expect(checkLedger([wrong], purchaseBadgeType: .supporter)?.reason
                == .openingMismatch(expectedBadgeType: .supporter))
        // After a row, an opening is judged as a grant, like any credit.
        #expect(checkLedger([rows[1].openingRestatement], after: rows[0], purchaseBadgeType: .supporter) != nil)
    }
}
