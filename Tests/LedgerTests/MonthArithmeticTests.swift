import BadgeCore
import Ledger
import TestSupport
import Testing

@Suite struct MonthArithmeticTests {
    @Test(arguments: [
        // (from, months, expected): the day clips to the target month; time of day is kept.
        (at(2026, 1, 31, 12), 1, at(2026, 2, 28, 12)),
        (at(2026, 1, 31, 12), 2, at(2026, 3, 31, 12)),
        (at(2026, 1, 31, 12), 3, at(2026, 4, 30, 12)),
        (at(2028, 1, 31), 1, at(2028, 2, 29)),
        (at(2028, 1, 29), 1, at(2028, 2, 29)),
        (at(2000, 1, 30), 1, at(2000, 2, 29)),
        (at(2100, 1, 29), 1, at(2100, 2, 28)),
        (at(2026, 12, 15, 23, 59, 59), 1, at(2027, 1, 15, 23, 59, 59)),
        (at(2026, 3, 31), -1, at(2026, 2, 28)),
        (at(2026, 1, 15), -1, at(2025, 12, 15)),
        (at(2026, 1, 15), -13, at(2024, 12, 15)),
        (at(2028, 2, 29), 12, at(2029, 2, 28)),
        (at(2028, 2, 29), 48, at(2032, 2, 29)),
        (at(2026, 5, 31), 0, at(2026, 5, 31)),
    ])
    func addMonthsClipsTheDay(_ from: Timestamp, _ months: Int, _ expected: Timestamp) {
        #expect(addMonths(months, to: from) == expected)
    }

    @Test func addMonthsKeepsSubSecondTime() {
        let t = at(2026, 1, 31, 23, 59, 59, nanoseconds: 999_999_999)
        #expect(addMonths(1, to: t) == at(2026, 2, 28, 23, 59, 59, nanoseconds: 999_999_999))
    }

    @Test(arguments: [
        (at(2026, 1, 31), at(2026, 2, 28), 1),  // 31 Jan + 1 = 28 Feb, exactly: counts
        (at(2026, 1, 31, 10), at(2026, 2, 28, 9, 59, 59), 0),
        (at(2026, 3, 10, 11), at(2026, 5, 20), 2),
        (at(2026, 3, 10, 11), at(2026, 5, 10, 11), 2),
        (at(2026, 3, 10, 11), at(2026, 5, 10, 10, 59, 59, nanoseconds: 999_999_999), 1),
        (at(2026, 3, 10), at(2026, 3, 9), 0),  // backwards: never below 0
        (at(2026, 3, 10), at(2025, 1, 1), 0),
        (at(2027, 12, 31), at(2028, 2, 29), 2),
        (at(2099, 12, 31, 23, 59, 59), at(2100, 2, 28, 23, 59, 59), 2),
    ])
    func monthsBetweenCountsWholeMonths(_ from: Timestamp, _ to: Timestamp, _ expected: Int) {
        #expect(monthsBetween(from: from, to: to) == expected)
    }

    /// monthsBetween is the largest m with addMonths(m, from) ≤ to, over many day pairs.
    @Test func monthsBetweenIsTheLargestFittingMonthCount() {
        var rng = SplitMix64(seed: 0xA11CE)
        for _ in 0..<20_000 {
            let from = Timestamp(seconds: Int64(rng.int(0...4_200_000_000)), nanoseconds: Int32(rng.int(0...2)))
            let to = rng.chance(30) ? addMonths(rng.int(0...30), to: from).adding(seconds: Int64(rng.int(-1...1)))
                : from.adding(seconds: Int64(rng.int(-100_000...90_000_000)))
            let m = monthsBetween(from: from, to: to)
            if to < from {
                #expect(m == 0)
            } else {
                #expect(addMonths(m, to: from) <= to, "from \(from) to \(to)")
                #expect(addMonths(m + 1, to: from) > to, "from \(from) to \(to)")
            }
        }
    }

    @Test func everyDayOfSeveralYearsRoundTrips() {
        for year in [1999, 2000, 2026, 2027, 2028, 2099, 2100] {
            var date = CivilDate(year: year, month: 1, day: 1)
            while date.year == year {
                let t = Timestamp(date, hour: 7, minute: 30)
                for n in 0...25 {
                    let moved = addMonths(n, to: t)
                    #expect(moved.secondOfDay == t.secondOfDay)
                    let expectedMonth = (date.month - 1 + n) % 12 + 1
                    #expect(moved.date.month == expectedMonth)
                    #expect(moved.date.day == min(date.day, CivilDate.daysIn(year: moved.date.year, month: expectedMonth)))
                    #expect(monthsBetween(from: t, to: moved) == n)
                }
                date = date.adding(days: 1)
            }
        }
    }

    /// Boundaries count from the anchor: a run from 31 January reaches 31 March again,
    /// where stepping from each previous boundary would stay on the 28th.
    @Test func runFrom31JanuaryReturnsToTheMonthEnd() {
        let anchor = at(2026, 1, 31, 12)
        let entry = LedgerEntry(entryId: "x", changeMonths: 4, balanceMonths: 4, balanceStartTs: anchor,
                                balanceAnchorTs: anchor, balanceBadgeType: .supporter, createdAt: anchor,
                                entryType: .credit(.code))
        #expect(entry.monthAfter(1) == at(2026, 2, 28, 12))
        #expect(entry.monthAfter(2) == at(2026, 3, 31, 12))
        #expect(entry.monthAfter(3) == at(2026, 4, 30, 12))
        #expect(entry.paidThrough == at(2026, 5, 31, 12))
        #expect(addMonths(1, to: addMonths(1, to: anchor)) == at(2026, 3, 28, 12))  // what stepping would do

        var moved = entry
        moved.balanceStartTs = at(2026, 2, 28, 12)
        moved.balanceMonths = 3
        #expect(moved.monthsFromAnchor == 1)
        #expect(moved.monthAfter(1) == at(2026, 3, 31, 12))
        #expect(moved.paidThrough == entry.paidThrough)
    }

    @Test func elapsedMonthsIsClampedToTheBalance() {
        let anchor = at(2026, 3, 10, 11)
        let entry = LedgerEntry(entryId: "x", changeMonths: -1, balanceMonths: 2, balanceStartTs: at(2026, 4, 10, 11),
                                balanceAnchorTs: anchor, balanceBadgeType: .supporter, createdAt: anchor,
                                entryType: .debit(.badge))
        #expect(entry.elapsedMonths(at: at(2026, 3, 20)) == 0)  // before the start
        #expect(entry.elapsedMonths(at: at(2026, 5, 10, 10, 59, 59)) == 0)
        #expect(entry.elapsedMonths(at: at(2026, 5, 10, 11)) == 1)  // ending exactly at t counts
        #expect(entry.elapsedMonths(at: at(2026, 5, 20)) == 1)
        #expect(entry.elapsedMonths(at: at(2026, 6, 10, 11)) == 2)
        #expect(entry.elapsedMonths(at: at(2030, 1, 1)) == 2)
        #expect(entry.usableMonths(at: at(2026, 5, 20)) == 1)
        #expect(entry.usableMonths(at: at(2030, 1, 1)) == 0)
    }
}
