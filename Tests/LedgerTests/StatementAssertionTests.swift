import BadgeCore
import Ledger
import Testing

@Suite struct StatementAssertionTests {
    /// code 3 at 10 Mar, badge, then lapse + badge on 20 May: four rows e1…e4.
    let rows: [LedgerEntry] = {
        let ids = EntryIds()
        let first = try! planFirstFunding(months: 3, credit: .code, badgeType: .supporter, now: at(2026, 3, 10, 11),
                                          newId: ids.next)
        return first.rows + planIssue(from: first.tip, at: at(2026, 5, 20), newId: ids.next).rows
    }()

    @Test func prefixReturnsWhatFollows() {
        let answer = statement(of: rows, asserting: rows[1])
        #expect(answer.assertion == .prefix(index: 1))
        #expect(answer.statement == Statement(entries: Array(rows[2...]), previousEntryId: "e2"))
    }

    @Test func tipReturnsNothingAttached() {
        let answer = statement(of: rows, asserting: rows[3])
        #expect(answer.statement == Statement(entries: [], previousEntryId: "e4"))
    }

    @Test func absentOrUnknownReturnsTheCompleteHistory() {
        #expect(statement(of: rows, asserting: nil) == StatementAnswer(statement: Statement(entries: rows), assertion: .absent))
        var foreign = rows[1]
        foreign.entryId = "not-ours"
        #expect(statement(of: rows, asserting: foreign)
                == StatementAnswer(statement: Statement(entries: rows), assertion: .unknownEntry))
        #expect(statement(of: [], asserting: foreign).statement == Statement(entries: []))
    }

    /// An assertion naming an entry the service holds is a prefix, even where its other fields
    /// differ from the stored row: what follows it comes back, attached after it.
    @Test func assertionNamingAHeldEntryIsAPrefixEvenWhenItsOtherFieldsDiffer() {
        var claimed = rows[1]
        claimed.balanceMonths = 12
        claimed.createdAt = at(2026, 3, 11)
        let answer = statement(of: rows, asserting: claimed)
        #expect(answer.assertion == .conflictingEntry(index: 1))
        #expect(answer.assertion.isPrefix)
        #expect(answer.statement == Statement(entries: Array(rows[2...]), previousEntryId: "e2"))
        // also in the opening form, which applies only to statements that attach to nothing
        #expect(statement(of: rows, asserting: claimed, unattached: .opening).statement
                == Statement(entries: Array(rows[2...]), previousEntryId: "e2"))
    }

    @Test func openingForm() {
        var claimed = rows[1]
        claimed.entryId = "not-ours"
        let answer = statement(of: rows, asserting: claimed, unattached: .opening)
        #expect(answer.statement == Statement(entries: [rows[3].openingRestatement]))
        #expect(checkLedger(answer.statement.entries, purchaseBadgeType: .supporter) == nil)
        // The client then asserts the opening it holds: the same position as the row it restates.
        let next = statement(of: rows, asserting: rows[3].openingRestatement, unattached: .opening)
        #expect(next.assertion == .prefix(index: 3))
        #expect(next.statement == Statement(entries: [], previousEntryId: "e4"))
        #expect(statement(of: [], asserting: nil, unattached: .opening).statement == Statement(entries: []))
    }
}
