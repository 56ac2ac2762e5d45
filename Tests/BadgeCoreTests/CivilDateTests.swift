import BadgeCore
import Testing

@Suite struct CivilDateTests {
    @Test func epochAndKnownDates() {
        #expect(CivilDate(year: 1970, month: 1, day: 1).daysSinceEpoch == 0)
        #expect(CivilDate(year: 2000, month: 3, day: 1).daysSinceEpoch == 11_017)
        #expect(CivilDate(year: 1969, month: 12, day: 31).daysSinceEpoch == -1)
        #expect(CivilDate(daysSinceEpoch: 20_557) == CivilDate(year: 2026, month: 4, day: 14))
    }

    @Test func roundTripsEveryDayOverFourCenturies() {
        var expected = CivilDate(year: 1900, month: 1, day: 1)
        for days in expected.daysSinceEpoch..<(expected.daysSinceEpoch + 146_097) {
            let d = CivilDate(daysSinceEpoch: days)
            #expect(d == expected)
            #expect(d.daysSinceEpoch == days)
            // step the expected date by hand, independently of the conversion
            if expected.day < CivilDate.daysIn(year: expected.year, month: expected.month) {
                expected.day += 1
            } else if expected.month < 12 {
                expected = CivilDate(year: expected.year, month: expected.month + 1, day: 1)
            } else {
                expected = CivilDate(year: expected.year + 1, month: 1, day: 1)
            }
        }
    }

    @Test(arguments: [
        ((2026, 4, 10), 5), ((2026, 4, 13), 1), ((2026, 4, 14), 2), ((2026, 5, 10), 7), ((1970, 1, 1), 4),
    ])
    func isoWeekday(_ ymd: (Int, Int, Int), _ weekday: Int) {
        #expect(CivilDate(year: ymd.0, month: ymd.1, day: ymd.2).isoWeekday == weekday)
    }

    @Test func leapYears() {
        #expect(CivilDate.isLeap(2028))
        #expect(CivilDate.isLeap(2000))
        #expect(!CivilDate.isLeap(2100))
        #expect(!CivilDate.isLeap(2026))
        #expect(CivilDate.daysIn(year: 2028, month: 2) == 29)
        #expect(CivilDate.daysIn(year: 2026, month: 2) == 28)
    }
}
