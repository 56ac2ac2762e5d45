import BadgeCore
import Ledger
import Testing

@Suite struct CredentialExpiryTests {
    /// docs/protocol.md, Credential: the upstream examples (tests/BadgeTests.hs testMondayExpiry).
    @Test(arguments: [
        ("2026-04-10T11:00:00Z", "2026-04-14T00:00:00Z"),  // Friday
        ("2026-05-10T11:00:00Z", "2026-05-12T00:00:00Z"),  // Sunday
        ("2026-04-13T11:00:00Z", "2026-04-21T00:00:00Z"),  // Monday
        ("2026-06-10T11:00:00Z", "2026-06-16T00:00:00Z"),  // Wednesday
        ("2026-04-13T00:00:00Z", "2026-04-21T00:00:00Z"),  // Monday midnight: exactly 8 days
        ("2026-04-12T23:59:59.999999999Z", "2026-04-14T00:00:00Z"),  // Sunday's last instant: just over 1 day
        ("2026-10-28T16:20:05Z", "2026-11-03T00:00:00Z"),  // purchaseBadge.response.subscription
    ])
    func examples(_ periodEnd: String, _ expiry: String) {
        #expect(credentialExpiry(periodEnd: utc(periodEnd)) == utc(expiry))
    }

    /// Every period end over years around leap days and year ends: a Tuesday midnight in
    /// (1 day, 8 days] after it, shared by all ends in the same ISO (Monday–Sunday) week.
    @Test func tuesdayMidnightSharedPerWeek() {
        let times = [0, 1, 43_200, 86_399]
        var date = CivilDate(year: 2027, month: 12, day: 20)
        let last = CivilDate(year: 2029, month: 1, day: 10)
        while date <= last {
            let monday = date.adding(days: 1 - date.isoWeekday)
            let shared = Timestamp(monday.adding(days: 8))
            for second in times {
                for nanos: Int32 in [0, 999_999_999] {
                    let end = Timestamp(date).adding(seconds: Int64(second))
                    let end2 = Timestamp(seconds: end.seconds, nanoseconds: nanos)
                    let expiry = credentialExpiry(periodEnd: end2)
                    #expect(expiry.date.isoWeekday == 2)
                    #expect(expiry.secondOfDay == 0 && expiry.nanoseconds == 0)
                    #expect(expiry > end2.adding(seconds: 86_400))
                    #expect(expiry <= end2.adding(seconds: 8 * 86_400))
                    #expect(expiry == shared)
                }
            }
            date = date.adding(days: 1)
        }
        for (y, m, d) in [(2100, 2, 28), (2100, 3, 1), (2000, 2, 29), (1999, 12, 31)] {
            let e = credentialExpiry(periodEnd: at(y, m, d, 5))
            #expect(e.date.isoWeekday == 2 && e.secondOfDay == 0)
        }
    }
}
