import BadgeCore
import Ledger
import TestSupport
import Testing

/// The statement answered from a ledger's tail (what the store reads by index) is the one
/// answered from the whole ledger, for random ledgers, assertions and limits; and the tail
/// holds only the rows the answer needs.
@Suite struct LedgerTailTests {
    /// Rows e1…en: the statement functions compare entries, so varied balances suffice.
    static func ledger(_ n: Int, random: inout SplitMix64) -> [LedgerEntry] {
        let t = at(2026, 3, 10, 11)
        return (0..<n).map { i in
            LedgerEntry(entryId: "e\(i + 1)", changeMonths: random.int(-1...3), balanceMonths: random.int(0...40),
                        balanceStartTs: t, balanceAnchorTs: t.adding(seconds: Int64(i)), balanceBadgeType: .supporter,
                        createdAt: t.adding(seconds: Int64(i) * 86_400), entryType: random.pick([.credit(.code), .debit(.badge)]))
        }
    }

    /// What a client may assert: nothing, a held row, its opening restatement, a held id with
    /// other fields, or an id the ledger does not hold.
    static func assertion(_ rows: [LedgerEntry], random: inout SplitMix64) -> LedgerEntry? {
        guard let any = rows.isEmpty ? nil : random.pick(rows) else {
            return random.chance(50) ? nil : LedgerEntry.emptyEntry(at: at(2026, 1, 1), badgeType: .supporter)
        }
        switch random.int(0...4) {
        case 0: return nil
        case 1: return any
        case 2: return any.openingRestatement
        case 3: var claimed = any; claimed.balanceMonths += 1; return claimed
        default: var foreign = any; foreign.entryId = "not-ours"; return foreign
        }
    }

    @Test func tailAnswersWhatTheWholeLedgerAnswers() {
        var random = SplitMix64(seed: 0x7A11_0017)
        var attached = 0, opened = 0, complete = 0
        for _ in 0..<3000 {
            let rows = Self.ledger(random.int(0...24), random: &random)
            let limit = random.int(0...12)
            let asserted = Self.assertion(rows, random: &random)
            var appended: [LedgerEntry] = []
            if random.chance(30) {
                appended = Self.ledger(random.int(1...2), random: &random)
                for i in appended.indices { appended[i].entryId = "new\(i)" }
            }
            let tail = LedgerTail(of: rows, asserting: asserted?.entryId, completeHistoryLimit: limit)
            let whole = rows + appended
            let expected = statement(of: whole, asserting: asserted, unattached: whole.count > limit ? .opening : .completeHistory)
            let got = statement(of: tail.appending(appended), asserting: asserted, completeHistoryLimit: limit)
            #expect(got == expected, "rows \(rows.count), limit \(limit), asserted \(asserted?.entryId ?? "-"), appended \(appended.count)")
            #expect(tail.count == rows.count && tail.tip == rows.last)
            // Only what the answer needs: from the asserted row on, else everything up to the limit, else the tip.
            switch expected.assertion {
            case .prefix(let i), .conflictingEntry(let i):
                #expect(tail.rows.count == rows.count - i); attached += 1
            case .absent, .unknownEntry:
                if rows.count > limit { #expect(tail.rows.count == 1); opened += 1 } else { #expect(tail.rows == rows); complete += 1 }
            }
        }
        #expect(attached > 300 && opened > 300 && complete > 300, "attached \(attached), opened \(opened), complete \(complete)")
    }

    @Test func pastTheLimitAnUnattachedStatementIsOneOpeningCredit() {
        var random = SplitMix64(seed: 1)
        let rows = Self.ledger(Statement.completeHistoryLimit + 1, random: &random)
        let tail = LedgerTail(of: rows, asserting: nil, completeHistoryLimit: Statement.completeHistoryLimit)
        #expect(tail.rows == [rows.last!])
        #expect(statement(of: tail, asserting: nil).statement == Statement(entries: [rows.last!.openingRestatement]))
        let atLimit = Array(rows.dropLast())
        #expect(statement(of: LedgerTail(of: atLimit, asserting: nil, completeHistoryLimit: Statement.completeHistoryLimit),
                          asserting: nil).statement == Statement(entries: atLimit))
        // The client then asserts the opening it holds: nothing follows it.
        let next = statement(of: LedgerTail(of: rows, asserting: rows.last!.entryId, completeHistoryLimit: Statement.completeHistoryLimit),
                             asserting: rows.last!.openingRestatement)
        #expect(next.statement == Statement(entries: [], previousEntryId: rows.last!.entryId))
        #expect(next.assertion == .prefix(index: rows.count - 1))
    }

    @Test func firstPosition() {
        #expect(LedgerTail.firstPosition(count: 0, assertedPosition: nil, completeHistoryLimit: 0) == 1)
        #expect(LedgerTail.firstPosition(count: 5, assertedPosition: nil, completeHistoryLimit: 5) == 1)
        #expect(LedgerTail.firstPosition(count: 6, assertedPosition: nil, completeHistoryLimit: 5) == 6)
        #expect(LedgerTail.firstPosition(count: 6, assertedPosition: 2, completeHistoryLimit: 5) == 2)
    }
}
