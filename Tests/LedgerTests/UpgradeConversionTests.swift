import BadgeCore
import Ledger
import Testing

/// The non-store upgrade's pure rules (docs/protocol.md, Upgrades) at their dates: the months an
/// invoice may convert, the credit, and the settlement's debit, checked as the client replica does.
@Suite struct UpgradeConversionTests {
    /// 12 months paid 10 March 2026 11:00, the first issued: 11 held from 10 April 11:00.
    func paidYear() -> (ids: EntryIds, tip: LedgerEntry, rows: [LedgerEntry]) {
        let ids = EntryIds()
        let plan = try! planFirstFunding(months: 12, credit: .payment(invoiceId: "i"), badgeType: .supporter,
                                         now: at(2026, 3, 10, 11), newId: ids.next)
        return (ids, plan.tip, plan.rows)
    }

    @Test func theMonthsConvertedAreThoseNoIssuanceReachesBeforeSettlement() {
        let (_, tip, _) = paidYear()
        // 20 March, settling within the hour: all 11.
        #expect(convertibleMonths(from: tip, pausedSince: nil, at: at(2026, 3, 20), settleBy: at(2026, 3, 20, 1)) == 11)
        // 10 April 10:00, settling by 11:00: April begins at 11:00 and may be issued to the old key.
        #expect(convertibleMonths(from: tip, pausedSince: nil, at: at(2026, 4, 10, 10), settleBy: at(2026, 4, 10, 11)) == 10)
        // 15 May: April ran out unissued (lapsed), May has begun: 9 left to convert.
        #expect(convertibleMonths(from: tip, pausedSince: nil, at: at(2026, 5, 15), settleBy: at(2026, 5, 15, 1)) == 9)
        // Paused 20 March, asked 15 May: nothing ran out, but the held months restart now and
        // the first of them could be issued before settlement.
        #expect(convertibleMonths(from: tip, pausedSince: at(2026, 3, 20), at: at(2026, 5, 15), settleBy: at(2026, 5, 15, 1)) == 10)
    }

    @Test func theCreditIsTheShareOfWhatWasPaidRoundedDown() {
        #expect(conversionCredit(months: 11, paid: 4200, boughtMonths: 12) == 3850)
        #expect(conversionCredit(months: 1, paid: 1000, boughtMonths: 3) == 333)
        #expect(conversionCredit(months: 0, paid: 4200, boughtMonths: 12) == 0)
        #expect(conversionCredit(months: 20, paid: 4200, boughtMonths: 12) == 4200)
    }

    @Test func settlementDebitsTheMonthsCreditedOrWhatIsLeftAndTheReplicaTakesIt() throws {
        let (ids, tip, rows) = paidYear()
        let key = "new-key"
        let debit = try planUpgradeDebit(from: tip, months: 11, toPurchaseKey: key, at: at(2026, 3, 20), pausedSince: nil,
                                         newId: ids.next)
        #expect(debit.map(\.entryType) == [.debit(.upgrade(toPurchaseKey: key))] && debit[0].changeMonths == -11)
        #expect(checkLedger(rows + debit, purchaseBadgeType: .supporter) == nil)
        // Later, with a month lapsed, and more credited than is left: a lapse, then what is left.
        let late = try planUpgradeDebit(from: tip, months: 11, toPurchaseKey: key, at: at(2026, 5, 15), pausedSince: nil,
                                        newId: ids.next)
        #expect(late.map(\.changeMonths) == [-1, -10])
        #expect(checkLedger(rows + late, purchaseBadgeType: .supporter) == nil)
        // Paused 20 March: no lapse, the debit ends the pause, and the one month not converted stays.
        let paused = try planUpgradeDebit(from: tip, months: 10, toPurchaseKey: key, at: at(2026, 5, 15),
                                          pausedSince: at(2026, 3, 20), newId: ids.next)
        #expect(paused.map(\.changeMonths) == [-10] && paused[0].wasPausedSince == at(2026, 3, 20))
        #expect(paused[0].balanceMonths == 1 && paused[0].balanceStartTs == at(2026, 5, 15))
        #expect(checkLedger(rows + paused, purchaseBadgeType: .supporter) == nil)
    }
}
