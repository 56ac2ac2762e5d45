/// The end of a purchase's ledger that a statement needs: a request reads the tip, and what
/// follows an asserted entry, rather than the whole history (issue 17: cost that grew with it).
///
/// Which rows to read is ``firstPosition(count:assertedPosition:completeHistoryLimit:)``; the
/// store reads them, and ``statement(of:asserting:completeHistoryLimit:)`` answers from them
/// exactly what ``statement(of:asserting:unattached:)`` answers from the whole ledger.
public struct LedgerTail: Hashable, Sendable {
    /// How many rows the ledger holds: the tip's position, counted from 1.
    public var count: Int
    /// The ledger's last `rows.count` rows, oldest first.
    public var rows: [LedgerEntry]

    public init(count: Int, rows: [LedgerEntry]) {
        precondition(rows.count <= count, "a tail longer than its ledger")
        self.count = count
        self.rows = rows
    }

    /// The ledger's last row, if it has any.
    public var tip: LedgerEntry? { rows.last }

    /// This tail with `entries` appended after the tip (a plan's new rows).
    public func appending(_ entries: [LedgerEntry]) -> LedgerTail {
        LedgerTail(count: count + entries.count, rows: rows + entries)
    }

    /// The position (from 1) of the first row to read for a statement: the asserted entry's,
    /// when the ledger holds it (its fields are compared and what follows it is answered);
    /// otherwise the first row while the whole history is answered, else the tip alone (the
    /// `opening` form). Past the tip (an empty ledger) nothing is read.
    public static func firstPosition(count: Int, assertedPosition: Int?, completeHistoryLimit: Int) -> Int {
        if let assertedPosition { return assertedPosition }
        return count <= completeHistoryLimit ? 1 : max(count, 1)
    }

    /// The tail a store reads from a whole ledger `rows` (oldest first) for an assertion of
    /// `assertedEntryId`: the same rule as the store's indexed read, on an array.
    public init(of rows: [LedgerEntry], asserting assertedEntryId: String?, completeHistoryLimit: Int) {
        let asserted = assertedEntryId.flatMap { id in rows.lastIndex { $0.entryId == id } }.map { $0 + 1 }
        let first = Self.firstPosition(count: rows.count, assertedPosition: asserted,
                                       completeHistoryLimit: completeHistoryLimit)
        self.init(count: rows.count, rows: Array(rows[min(first - 1, rows.count)...]))
    }
}

extension Statement {
    /// Past this many rows, a statement that attaches to nothing is one `opening` credit
    /// restating the tip instead of the complete history (the spec allows either; about
    /// 300 bytes a row, so at most about 30 KB). docs/protocol.md, Statements.
    public static let completeHistoryLimit = 100
}

/// The statement answering `asserted` from `tail`, read by
/// ``LedgerTail/firstPosition(count:assertedPosition:completeHistoryLimit:)``: an attached
/// statement as from the whole ledger; an unattached one the complete history up to
/// `completeHistoryLimit` rows, past it one `opening` credit. Assertion indices are positions
/// in the whole ledger (from 0), as ``statement(of:asserting:unattached:)`` gives them.
public func statement(of tail: LedgerTail, asserting asserted: LedgerEntry?,
                      completeHistoryLimit: Int = Statement.completeHistoryLimit) -> StatementAnswer {
    // A partial tail cannot give the complete history; the read rule never leaves one here,
    // and the opening form is a valid answer anyway.
    let partial = tail.rows.count < tail.count
    let form: UnattachedStatementForm = tail.count > completeHistoryLimit || partial ? .opening : .completeHistory
    var answer = statement(of: tail.rows, asserting: asserted, unattached: form)
    let offset = tail.count - tail.rows.count
    switch answer.assertion {
    case .prefix(let index): answer.assertion = .prefix(index: index + offset)
    case .conflictingEntry(let index): answer.assertion = .conflictingEntry(index: index + offset)
    case .absent, .unknownEntry: break
    }
    return answer
}
