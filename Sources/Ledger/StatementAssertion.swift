import BadgeCore

/// The `statement` of a response: entries, attached after `previousEntryId` when present.
public struct Statement: Hashable, Sendable {
    public var entries: [LedgerEntry]
    /// The client's asserted entry the entries follow; absent when they attach to nothing.
    public var previousEntryId: String?

    public init(entries: [LedgerEntry], previousEntryId: String? = nil) {
        self.entries = entries
        self.previousEntryId = previousEntryId
    }
}

/// How the client's asserted `lastEntry` relates to the stored ledger.
public enum BalanceAssertion: Hashable, Sendable {
    /// It equals the stored row at `index` (or that row's opening restatement): a prefix.
    case prefix(index: Int)
    /// No entry was asserted.
    case absent
    /// Its id is not in this ledger.
    case unknownEntry
    /// Its id is the stored row at `index`, but other fields differ from it. Still a prefix
    /// (the protocol: an assertion naming an entry the service holds is a prefix); told apart
    /// so a caller can see that the client's replica disagrees with the stored row.
    case conflictingEntry(index: Int)

    /// Whether the statement attaches after the asserted entry.
    public var isPrefix: Bool {
        switch self {
        case .prefix, .conflictingEntry: true
        case .absent, .unknownEntry: false
        }
    }
}

/// What a statement that attaches to nothing holds.
public enum UnattachedStatementForm: Hashable, Sendable {
    /// Every stored row (the MVP choice; the spec's "complete history").
    case completeHistory
    /// One `opening` credit restating the last row (`openingRestatement`), for long histories.
    case opening
}

/// A statement together with how the assertion was judged, so the handler can log a conflict.
public struct StatementAnswer: Hashable, Sendable {
    public var statement: Statement
    public var assertion: BalanceAssertion

    public init(statement: Statement, assertion: BalanceAssertion) {
        self.statement = statement
        self.assertion = assertion
    }
}

/// The statement answering `asserted` against the purchase's stored `rows` (oldest first):
/// the rows after it with `previousEntryId` when the service holds it, otherwise an
/// unattached statement in the form `unattached` — the complete history by default.
///
/// The entry is found by its id alone (docs/protocol.md, Statements): where its other fields
/// differ from the stored row, what follows is still returned after it, and the client's
/// replica check judges the rows it cannot re-derive. An assertion of a row's opening
/// restatement (what an `.opening` statement sent) is the same position as the row itself.
public func statement(of rows: [LedgerEntry], asserting asserted: LedgerEntry?,
                      unattached: UnattachedStatementForm = .completeHistory) -> StatementAnswer {
    let assertion: BalanceAssertion
    if let asserted {
        if let index = rows.lastIndex(where: { $0.entryId == asserted.entryId }) {
            let held = rows[index]
            assertion = held == asserted || held.openingRestatement == asserted
                ? .prefix(index: index) : .conflictingEntry(index: index)
        } else {
            assertion = .unknownEntry
        }
    } else {
        assertion = .absent
    }
    switch assertion {
    case .prefix(let index), .conflictingEntry(let index):
        return StatementAnswer(statement: Statement(entries: Array(rows[(index + 1)...]),
                                                    previousEntryId: rows[index].entryId),
                               assertion: assertion)
    case .absent, .unknownEntry:
        break
    }
    let entries: [LedgerEntry]
    switch unattached {
    case .completeHistory: entries = rows
    case .opening: entries = rows.last.map { [$0.openingRestatement] } ?? []
    }
    return StatementAnswer(statement: Statement(entries: entries), assertion: assertion)
}
