import BadgeCore
import Foundation
import Ledger
import TestSupport
import Testing

/// Random purchase histories run through the planners, checking after every step that the
/// new rows pass the client replica check and the ledger's promises hold.
///
/// Sequence i of chunk c uses seed `baseSeed + c·perChunk + i`. A failure names its seed;
/// `LEDGER_PROPERTY_SEED=<seed> swift test --skip-build --filter LedgerPropertyTests` reruns
/// that one sequence alone.
@Suite struct LedgerPropertyTests {
    static let baseSeed: UInt64 = 0x1ED6_E500
    static let chunks = 8
    static let perChunk = 2000

    @Test(arguments: 0..<chunks)
    func randomHistories(chunk: Int) {
        if let only = ProcessInfo.processInfo.environment["LEDGER_PROPERTY_SEED"].flatMap(UInt64.init) {
            var stats = Stats()
            if chunk == 0 { run(seed: only, stats: &stats) }
            return
        }
        var stats = Stats()
        for i in 0..<Self.perChunk {
            guard run(seed: Self.baseSeed &+ UInt64(chunk * Self.perChunk + i), stats: &stats) else { return }
        }
        // The generator must reach the cases that matter, or passing proves little.
        #expect(stats.rows > Self.perChunk * 10, "\(stats)")
        for (name, count) in [("lapse", stats.lapses), ("upgrade", stats.upgrades), ("type restart", stats.typeRestarts),
                              ("run restart", stats.runRestarts), ("top-up", stats.topUps),
                              ("issue at a boundary", stats.boundaryIssues), ("month-end anchor", stats.monthEndAnchors),
                              ("leap-day period", stats.leapDayPeriods), ("nothing due", stats.nothingDue),
                              ("exhausted", stats.exhausted)] {
            #expect(count >= 20, "too few \(name): \(stats)")
        }
    }

    /// Runs one sequence; records an issue naming the seed and returns false when it fails.
    @discardableResult
    private func run(seed: UInt64, stats: inout Stats) -> Bool {
        var simulation = Simulation(seed: seed)
        do {
            try simulation.run()
            stats.add(simulation.stats)
            return true
        } catch {
            Issue.record("seed \(seed) (LEDGER_PROPERTY_SEED=\(seed)): \(error)")
            return false
        }
    }
}

/// How often the interesting cases occurred, to show the generator reaches them.
struct Stats: CustomStringConvertible {
    var rows = 0, lapses = 0, upgrades = 0, typeRestarts = 0, runRestarts = 0, topUps = 0
    var boundaryIssues = 0, monthEndAnchors = 0, leapDayPeriods = 0, nothingDue = 0, exhausted = 0

    mutating func add(_ o: Stats) {
        rows += o.rows; lapses += o.lapses; upgrades += o.upgrades; typeRestarts += o.typeRestarts
        runRestarts += o.runRestarts; topUps += o.topUps; boundaryIssues += o.boundaryIssues
        monthEndAnchors += o.monthEndAnchors; leapDayPeriods += o.leapDayPeriods; nothingDue += o.nothingDue
        exhausted += o.exhausted
    }

    var description: String {
        "rows \(rows), lapses \(lapses), upgrades \(upgrades), type restarts \(typeRestarts), run restarts \(runRestarts), "
            + "top-ups \(topUps), boundary issues \(boundaryIssues), month-end anchors \(monthEndAnchors), "
            + "leap-day periods \(leapDayPeriods), nothing due \(nothingDue), exhausted \(exhausted)"
    }
}

private struct PropertyFailure: Error, CustomStringConvertible {
    var description: String
}

private func require(_ condition: Bool, _ message: @autoclosure () -> String) throws {
    if !condition { throw PropertyFailure(description: message()) }
}

private struct Simulation {
    var rng: SplitMix64
    let ids = EntryIds()
    let key = "MCowBQYDK2VwAyEAebVWLo_mVPlAeLES6KmLp5AfhTrmlb7X4OORC60ElmQ="
    var rows: [LedgerEntry] = []
    var purchaseType: BadgeType = .supporter
    var now = Timestamp(seconds: 0)
    /// End of the last period issued in the current run of one type; periods never overlap it.
    var lastIssuedEnd: Timestamp?
    var log: [String] = []
    var stats = Stats()

    init(seed: UInt64) { rng = SplitMix64(seed: seed) }

    var tip: LedgerEntry { rows[rows.count - 1] }

    mutating func run() throws {
        now = interestingInstant()
        purchaseType = rng.pick(BadgeType.known)
        let months = rng.pick([1, 1, 1, 2, 3, 6, 12, 24, 255])
        let credit: LedgerCredit = rng.pick([.code, .payment(invoiceId: "inv"), .payment(invoiceId: nil),
                                             .charge(chargeId: "c0")])
        var creditAt = now
        if case .charge = credit, rng.chance(50) { creditAt = now.adding(seconds: -Int64(rng.int(0...40 * 86_400))) }
        log.append("firstFunding \(months) \(credit) at \(creditAt) now \(now)")
        let first = try planFirstFunding(months: months, credit: credit, badgeType: purchaseType, creditAt: creditAt,
                                         now: now, newId: ids.next)
        try require(first.rows[0].entryType == .credit(credit), "first row is the credit")
        if creditAt == now { try require(first.rows.count == 2 && first.issued != nil, "code/payment: credit + badge") }
        try accept(first.rows, after: nil, at: now)
        try checkPass(first, at: now)

        for _ in 0..<rng.int(5...40) {
            advance()
            let before = tip
            let roll = rng.int(0...99)
            switch roll {
            case 0..<45:
                log.append("issue at \(now)")
                let plan = planIssue(from: before, at: now, newId: ids.next)
                try accept(plan.rows, after: before, at: now)
                try checkPass(plan, at: now)
            case 45..<62:
                let type = rng.chance(20) ? rng.pick(BadgeType.known) : before.balanceBadgeType
                let n = rng.pick([1, 1, 2, 3, 6, 12, 255])
                let credit: LedgerCredit = rng.pick([.support, .transferIn(fromPurchaseKey: "old"), .payment(invoiceId: nil)])
                log.append("grant \(n) \(type) \(credit) at \(now)")
                let granted = try before.grant(months: n, credit: credit, at: now, badgeType: type, purchaseKey: key,
                                               newId: ids.next)
                try accept(granted, after: before, at: now)
                try checkGrant(granted, months: n, before: before, at: now)
            case 62..<80:
                let type = rng.chance(25) ? rng.pick(BadgeType.known) : before.balanceBadgeType
                let n = rng.pick([1, 1, 1, 12])
                var starts = [now, now.adding(seconds: -Int64(rng.int(0...5 * 86_400)))]
                if before.balanceStartTs <= now { starts += [before.balanceStartTs, before.balanceStartTs.adding(seconds: -5)] }
                let periodStart = rng.pick(starts)
                log.append("charge \(n) \(type) period \(periodStart) now \(now)")
                let plan = try planCharge(from: before, months: n, chargeId: "c\(ids.count)", badgeType: type,
                                          periodStart: periodStart, purchaseKey: key, now: now, newId: ids.next)
                let creditIndex = plan.rows.firstIndex { if case .credit = $0.entryType { true } else { false } }!
                let creditAt = before.chargeCreditDate(periodStart: periodStart)
                try require(plan.rows[creditIndex].createdAt == creditAt, "charge credit dated \(creditAt)")
                try accept(plan.rows, after: before, at: now)
                try checkGrant(Array(plan.rows[...creditIndex]), months: n, before: before, at: creditAt)
                try checkPass(plan, at: now)
            case 80..<88:
                guard before.balanceMonths > 0 else { continue }
                let reason: LedgerDebit = rng.pick([.refund, .support])
                let n = rng.int(0...before.balanceMonths)
                log.append("debit \(reason) \(n) at \(now)")
                let row = try before.debit(reason, months: n, at: now, newId: ids.next)
                try accept([row], after: before, at: now)
            case 88..<91:
                let reason: LedgerDebit = rng.pick([.refund, .transferOut(toPurchaseKey: "new")])
                log.append("ending \(reason) at \(now)")
                let ended = try planEnding(from: before, debit: reason, at: now, newId: ids.next)
                try accept(ended, after: before, at: now)
                try require(tip.balanceMonths == 0, "nothing remains after ending")
                try require(tip.paidThrough <= before.paidThrough, "ending never extends coverage")
            default:
                log.append("idle to \(now)")
            }
        }

        try require(checkLedger(rows, purchaseBadgeType: purchaseType) == nil,
                    "whole ledger: \(String(describing: checkLedger(rows, purchaseBadgeType: purchaseType)))")
        let credited = rows.filter { if case .credit = $0.entryType { true } else { false } }.map(\.changeMonths).reduce(0, +)
        let debited = rows.filter { if case .debit = $0.entryType { true } else { false } }.map(\.changeMonths).reduce(0, +)
        try require(credited + debited == tip.balanceMonths, "months conserved: \(credited) \(debited) \(tip.balanceMonths)")
        let k = rng.int(0...(rows.count - 1))
        let answer = statement(of: rows, asserting: rows[k])
        try require(answer.statement == Statement(entries: Array(rows[(k + 1)...]), previousEntryId: rows[k].entryId),
                    "statement after row \(k)")
        try require(checkLedger(answer.statement.entries, after: rows[k], purchaseBadgeType: purchaseType) == nil,
                    "statement passes the replica check")
    }

    /// Appends `new`, checking each row against its predecessor as the client does.
    mutating func accept(_ new: [LedgerEntry], after before: LedgerEntry?, at t: Timestamp) throws {
        var prev = before
        for row in new {
            if let reason = checkEntry(row, after: prev, purchaseBadgeType: purchaseType) {
                throw PropertyFailure(description: "replica check: \(reason) for \(row) after \(String(describing: prev))\n\(trace)")
            }
            if let p = prev {
                try require(row.createdAt >= p.createdAt, "createdAt never decreases")
                switch row.entryType {
                case .debit(.lapse), .debit(.badge):
                    try require(row.paidThrough == p.paidThrough, "paidThrough unchanged by \(row.entryType)\n\(trace)")
                case .credit:
                    if row.balanceBadgeType != p.balanceBadgeType { lastIssuedEnd = nil }
                    else { try require(row.balanceStartTs >= p.balanceStartTs, "start never decreases within a type") }
                case .debit:
                    try require(row.balanceStartTs == p.balanceStartTs && row.balanceAnchorTs == p.balanceAnchorTs,
                                "plain debits keep the run")
                }
            }
            try require(row.balanceMonths >= 0, "balance never negative")
            stats.rows += 1
            switch row.entryType {
            case .debit(.lapse): stats.lapses += 1
            case .debit(.upgrade): stats.upgrades += 1
            case .credit:
                if let p = prev, row.balanceBadgeType != p.balanceBadgeType { stats.typeRestarts += 1 }
                else if let p = prev, row.balanceAnchorTs != p.balanceAnchorTs { stats.runRestarts += 1 }
                else if prev != nil { stats.topUps += 1 }
                if row.balanceAnchorTs.date.day >= 29 { stats.monthEndAnchors += 1 }
            default: break
            }
            prev = row
            rows.append(row)
        }
    }

    /// The pass's month, if any, and its promises (after `accept` appended the plan's rows).
    mutating func checkPass(_ plan: LedgerPlan, at now: Timestamp) throws {
        let t = now  // every row of a simulation is dated at or before now
        try require(tip == plan.tip, "plan tip is the last row")
        try require(tip.createdAt <= now, "rows dated no later than now")
        try require(tip.elapsedMonths(at: t) == 0, "nothing elapsed remains after a pass\n\(trace)")
        let again = planIssue(from: plan.tip, at: now, newId: { "again" })
        try require(again.rows.isEmpty && again.issued == nil, "a second pass at the same now writes nothing\n\(trace)")
        guard let period = plan.issued else {
            if tip.balanceMonths == 0 { stats.exhausted += 1 } else { stats.nothingDue += 1 }
            try require(tip.balanceMonths == 0 || tip.balanceStartTs > t, "nothing issued only when exhausted or not due\n\(trace)")
            return
        }
        let badge = plan.rows[plan.rows.count - 1]
        let before = rows[rows.count - 2]  // the row the badge derives from
        try require(badge.entryType == .debit(.badge) && badge.entryId == period.entryId, "the last row is the badge")
        try require(period.start == before.balanceStartTs && period.end == badge.balanceStartTs, "period = [start, next start)")
        try require(period.end == addMonths(before.monthsFromAnchor + 1, to: before.balanceAnchorTs), "anchored month end")
        try require(monthsBetween(from: period.start, to: period.end) == 1, "one calendar month")
        try require(period.start <= t && t < period.end, "the issued month covers now\n\(trace)")
        try require(period.badgeType == before.balanceBadgeType, "issued for the balance's type")
        let expiry = period.expiry
        try require(expiry.date.isoWeekday == 2 && expiry.secondOfDay == 0 && expiry.nanoseconds == 0, "Tuesday 00:00")
        try require(expiry > period.end.adding(seconds: 86_400) && expiry <= period.end.adding(seconds: 8 * 86_400),
                    "expiry in (1, 8] days after the period")
        try require(period.isCurrent(at: now), "current at now")
        if let last = lastIssuedEnd {
            try require(period.start >= last, "periods of one run never overlap\n\(trace)")
        }
        lastIssuedEnd = period.end
        if period.start == now { stats.boundaryIssues += 1 }
        let endDate = period.end.date
        if endDate.month == 2 && endDate.day >= 28 || period.start.date.month == 2 && period.start.date.day >= 28 {
            stats.leapDayPeriods += 1
        }
    }

    /// A grant of `months` at `t` is never partly gone at its own date: nothing has elapsed,
    /// and at least `months` months remain usable from `t`.
    func checkGrant(_ granted: [LedgerEntry], months: Int, before: LedgerEntry, at t: Timestamp) throws {
        let credit = granted[granted.count - 1]
        try require(credit.elapsedMonths(at: t) == 0, "nothing elapsed right after a grant\n\(trace)")
        try require(credit.balanceMonths >= months, "the granted months are all usable at \(t)\n\(trace)")
        if credit.balanceAnchorTs == t && credit.balanceStartTs == t {
            // A (re)started run: exactly `months` calendar months from the grant's date. A top-up
            // instead continues the run's anchored boundaries, which can end a clipped month
            // earlier in the day than counting from `t` would (anchor 31 Dec, t 30 Jan 23:59).
            try require(credit.paidThrough == addMonths(credit.balanceMonths, to: t), "a new run covers its months from t")
        }
        let lapsed = granted.first { $0.entryType == .debit(.lapse) }
        let remaining = (lapsed ?? before).balanceMonths
        if credit.balanceBadgeType == before.balanceBadgeType {
            try require(credit.balanceMonths == remaining + months, "a top-up adds to what remains")
            try require(credit.paidThrough >= before.paidThrough, "a top-up never shortens coverage")
        } else {
            try require(credit.balanceMonths == months && credit.balanceAnchorTs == t, "another type starts its own run")
            if remaining > 0 {
                try require(granted.contains { $0.entryType == .debit(.upgrade(toPurchaseKey: key)) && $0.changeMonths == -remaining },
                            "the old run's remainder is debited as upgrade")
            }
        }
    }

    var trace: String { log.suffix(6).joined(separator: "\n") }

    /// Dates concentrated on month ends, leap days, year ends and midnight.
    mutating func interestingInstant() -> Timestamp {
        let year = rng.pick([1999, 2000, 2026, 2027, 2028, 2099, 2100])
        let month = rng.chance(30) ? rng.pick([1, 2, 12]) : rng.int(1...12)
        let length = CivilDate.daysIn(year: year, month: month)
        let day = min(rng.pick([1, 28, 29, 30, 31, rng.int(1...31)]), length)
        let second = rng.pick([0, 0, 86_399, 43_200, rng.int(0...86_399)])
        let nanos = Int32(rng.pick([0, 0, 999_999_999, 1, rng.int(0...999_999_999)]))
        return Timestamp(seconds: Timestamp(CivilDate(year: year, month: month, day: day)).seconds + Int64(second),
                         nanoseconds: nanos)
    }

    /// Moves `now` forward (or not at all) by steps that land on boundaries often.
    mutating func advance() {
        let start = tip.balanceStartTs
        let candidates: [Timestamp]
        switch rng.int(0...9) {
        case 0: candidates = [now]
        case 1: candidates = [now.adding(seconds: 1), nextNanosecond(now)]
        case 2: candidates = [now.adding(seconds: Int64(rng.int(1...86_400)))]
        case 3, 4: candidates = [start, nextNanosecond(start), start.adding(seconds: -1), tip.paidThrough]
        case 5: candidates = [addMonths(rng.int(1...3), to: now)]
        case 6:
            let d = now.date
            let length = CivilDate.daysIn(year: d.year, month: d.month)
            let lastDay = Timestamp(CivilDate(year: d.year, month: d.month, day: length))
            candidates = [Timestamp(seconds: lastDay.seconds + 86_399, nanoseconds: 999_999_999),
                          lastDay.adding(seconds: 86_400), lastDay]
        case 7, 8: candidates = [now.adding(seconds: Int64(rng.int(1...120)) * 86_400)]
        default: candidates = [now.adding(seconds: Int64(rng.int(1...800)) * 86_400 + Int64(rng.int(0...86_399)))]
        }
        now = max(now, rng.pick(candidates))
    }

    func nextNanosecond(_ t: Timestamp) -> Timestamp {
        t.nanoseconds == 999_999_999 ? Timestamp(seconds: t.seconds + 1) : Timestamp(seconds: t.seconds, nanoseconds: t.nanoseconds + 1)
    }
}
