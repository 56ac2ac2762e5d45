import Storage

/// What one pass of a credential-issuing command decided from its snapshot: the answer, and
/// the write that must land for the answer to stand (nil when the pass only reads, as a replay
/// or a credential still current does).
struct StagedAnswer<Answer> {
    let answer: Answer
    /// Runs in one transaction and re-checks what the pass read (a conditional write): it
    /// throws ``StorageError/conflict(constraint:)`` when another writer got there first.
    let write: ((any StoreWriter) throws -> Void)?

    /// An answer that writes nothing.
    static func answer(_ answer: Answer) -> StagedAnswer { StagedAnswer(answer: answer, write: nil) }

    /// An answer that stands once `write` lands.
    static func answer(_ answer: Answer, after write: @escaping (any StoreWriter) throws -> Void) -> StagedAnswer {
        StagedAnswer(answer: answer, write: write)
    }
}

extension BadgeService {
    /// Passes a command makes before a write that keeps losing races is reported as internal.
    package static let conditionalWriteAttempts = 3

    /// The loop every command that signs before it writes runs (redemption, issuance, purchases):
    /// read a snapshot, plan and sign from it outside any transaction, then land the rows with a
    /// write that re-checks the snapshot. A conflict (another writer moved the tip or took the
    /// key) re-runs the pass on what that writer left; any other failure, a broken invariant
    /// included, is thrown at once and never retried.
    ///
    /// - Parameters:
    ///   - read: the snapshot, taken in one read transaction.
    ///   - decide: plans and signs from the snapshot; throws the command's refusals.
    ///   - first: the first pass's snapshot when the caller read it already, in the transaction
    ///     that found the purchase (one read transaction for the common answer, not two).
    func conditionalWrite<Snapshot, Answer>(first: Snapshot? = nil, read: (any StoreReader) throws -> Snapshot,
                                            decide: (Snapshot) throws -> StagedAnswer<Answer>) throws -> Answer {
        var given = first
        for _ in 0..<Self.conditionalWriteAttempts {
            let snapshot = try given ?? store.read(read)
            given = nil
            let staged = try decide(snapshot)
            guard let write = staged.write else { return staged.answer }
            do {
                try store.write(write)
            } catch StorageError.conflict {
                continue
            }
            return staged.answer
        }
        throw BadgeServiceError.internal(detail: "the write conflicted \(Self.conditionalWriteAttempts) times")
    }
}
