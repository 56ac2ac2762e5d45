import BadgeCore
import Testing

@Suite struct RFC3339Tests {
    @Test func formatsWholeSecondsWithoutFraction() {
        let t = Timestamp(CivilDate(year: 2026, month: 4, day: 14))
        #expect(RFC3339.format(t) == "2026-04-14T00:00:00Z")
        #expect(RFC3339.format(Timestamp(CivilDate(year: 2026, month: 3, day: 10), hour: 11)) == "2026-03-10T11:00:00Z")
    }

    @Test func formatsFractionInGroupsOfThree() {
        let base = Timestamp(CivilDate(year: 2026, month: 1, day: 2), hour: 3, minute: 4, second: 5)
        #expect(RFC3339.format(Timestamp(seconds: base.seconds, nanoseconds: 250_000_000)) == "2026-01-02T03:04:05.250Z")
        #expect(RFC3339.format(Timestamp(seconds: base.seconds, nanoseconds: 1_000)) == "2026-01-02T03:04:05.000001Z")
        #expect(RFC3339.format(Timestamp(seconds: base.seconds, nanoseconds: 123_456_789)) == "2026-01-02T03:04:05.123456789Z")
    }

    @Test(arguments: [
        "2026-04-14T00:00:00Z", "2026-04-14t00:00:00z", "1990-12-31T23:59:60Z", "1990-12-31T15:59:60-08:00",
        "2026-04-14T00:00:00.5+00:20", "2028-02-29T12:00:00Z",
    ])
    func acceptsRFC3339(_ text: String) {
        #expect(RFC3339.parse(text) != nil)
    }

    @Test(arguments: [
        "2026-04-14", "2026-04-14T00:00:00", "2026-13-01T00:00:00Z", "2026-02-29T00:00:00Z", "2026-04-14T24:00:00Z",
        "2026-04-14T00:00:00.Z", "2026-04-14 00:00:00Z", "2026-04-14T00:00:00+0000", " 2026-04-14T00:00:00Z",
        "2026-04-14T00:00:61Z", "",
    ])
    func rejectsMalformed(_ text: String) {
        #expect(RFC3339.parse(text) == nil)
    }

    @Test func appliesOffsets() {
        #expect(RFC3339.parse("2026-04-14T02:00:00+02:00") == RFC3339.parse("2026-04-14T00:00:00Z"))
        #expect(RFC3339.parse("2026-04-13T22:30:00-01:30") == RFC3339.parse("2026-04-14T00:00:00Z"))
    }

    @Test func roundTrips() {
        for seconds in stride(from: Int64(-100_000_000), to: 4_000_000_000, by: 7_777_777) {
            let t = Timestamp(seconds: seconds, nanoseconds: Int32(seconds & 0x3FF) * 1_000_000 % 1_000_000_000)
            #expect(RFC3339.parse(RFC3339.format(t)) == t)
        }
    }
}
