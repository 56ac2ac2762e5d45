import Foundation
import Locking
import Logging
import Testing

/// Lines that may come once per request: the first of a kind is written, the repeats counted
/// and summarised every 10 s. Decided by a pure value on a clock the test moves.
@Suite struct CalmLogTests {
    @Test func theFirstLineOfAKindIsWrittenAndTheRepeatsAreSummarisedOnceTheWindowEnds() {
        var throttle = RepeatThrottle(window: 10)
        #expect(throttle.record("db", at: 0) == (true, nil))
        for t in 1...5 { #expect(throttle.record("db", at: Double(t)) == (false, nil)) }
        // another kind is not held back by the first
        #expect(throttle.record("apple", at: 5) == (true, nil))
        #expect(throttle.due(at: 9.9) == [])
        #expect(throttle.due(at: 10) == [RepeatThrottle.Summary(kind: "db", count: 5, seconds: 10)])
        // still repeating: counted into the next window, summarised 10 s later
        #expect(throttle.record("db", at: 12) == (false, nil))
        #expect(throttle.due(at: 15) == [])
        #expect(throttle.due(at: 20) == [RepeatThrottle.Summary(kind: "db", count: 1, seconds: 10)])
        // a window without repeats forgets the kind: its next line is written again
        #expect(throttle.due(at: 30) == [])
        #expect(throttle.record("db", at: 31) == (true, nil))
        #expect(throttle.record("apple", at: 31) == (true, nil))
    }

    @Test func aRepeatAfterTheWindowClosesItWhenNoFlushCameFirst() {
        var throttle = RepeatThrottle(window: 10)
        _ = throttle.record("db", at: 0)
        _ = throttle.record("db", at: 1)
        let late = throttle.record("db", at: 12)
        #expect(late.write == false && late.closed == RepeatThrottle.Summary(kind: "db", count: 1, seconds: 12))
        #expect(throttle.drain(at: 13) == [RepeatThrottle.Summary(kind: "db", count: 1, seconds: 1)])
        #expect(throttle.drain(at: 14) == [])
    }

    @Test func kindsAreWhatALineIsAboutAndAnyDatabaseOutageIsOne() {
        #expect(RepeatThrottle.kind(of: "redeemBadgeCode: database: connection refused") == "database unavailable")
        #expect(RepeatThrottle.kind(of: "issueBadge: database: server closed the connection") == "database unavailable")
        #expect(RepeatThrottle.kind(of: "apple notification refused: receipt_invalid: x") == "apple notification refused")
        #expect(RepeatThrottle.kind(of: "stripe webhook refused: signature does not match") == "stripe webhook refused")
        #expect(RepeatThrottle.kind(of: "no colon at all") == "no colon at all")
    }

    @Test func aFloodOfOneKindWritesOneLineThenOneSummaryWithItsCount() {
        let now = LockedValueBox(100.0)
        let lines = LockedValueBox<[(LogLine.Level, String, Int?)]>([])
        let log = CalmLog(window: 10, clock: { now.withLock { $0 } }) { level, message, repeated in
            lines.withLock { $0.append((level, message, repeated)) }
        }
        for i in 0..<2000 { log.report(.warning, "purchaseBadge: database: connection refused (\(i))") }
        log.report(.error, "issueBadge: injected failure")
        log.flush()
        #expect(lines.withLock { $0.count } == 2)
        now.withLock { $0 += 10 }
        log.flush()
        let written = lines.withLock { $0 }
        #expect(written.count == 3)
        #expect(written[0].1 == "purchaseBadge: database: connection refused (0)" && written[0].0 == .warning && written[0].2 == nil)
        #expect(written[1].1 == "issueBadge: injected failure" && written[1].0 == .error)
        #expect(written[2].0 == .warning && written[2].2 == 1999, "\(written[2])")
        #expect(written[2].1 == "1999 more like 'database unavailable' in the last 10 s, not written one by one", "\(written[2].1)")
        log.stopFlushing()
        #expect(lines.withLock { $0.count } == 3)
    }
}
