import BadgeCore
import Ledger

/// Maps ledger rows to columns and back. Entry types are stored as a kind, a reason and
/// the one reference the reason carries, so the table stays queryable.
enum LedgerRowCoding {
    static func values(_ e: LedgerEntry) -> [SQLValue] {
        var invoice: SQLValue = .null, charge: SQLValue = .null, other: SQLValue = .null
        let kind: String, reason: String
        switch e.entryType {
        case .credit(let c):
            kind = "credit"
            switch c {
            case .payment(let invoiceId): reason = "payment"; invoice = invoiceId.map { .text($0) } ?? .null
            case .code: reason = "code"
            case .charge(let chargeId): reason = "charge"; charge = .text(chargeId)
            case .support: reason = "support"
            case .transferIn(let key): reason = "transferIn"; other = .text(key)
            case .opening: reason = "opening"
            }
        case .debit(let d):
            kind = "debit"
            switch d {
            case .refund: reason = "refund"
            case .upgrade(let key): reason = "upgrade"; other = .text(key)
            case .transferOut(let key): reason = "transferOut"; other = .text(key)
            case .support: reason = "support"
            case .badge: reason = "badge"
            case .lapse: reason = "lapse"
            }
        }
        return [
            .text(e.entryId), .integer(Int64(e.changeMonths)), .integer(Int64(e.balanceMonths)),
            .integer(e.balanceStartTs.seconds), .integer(e.balanceAnchorTs.seconds), .text(e.balanceBadgeType.rawValue),
            e.wasPausedSince.map { .integer($0.seconds) } ?? .null, .integer(e.createdAt.seconds),
            .text(kind), .text(reason), invoice, charge, other,
        ]
    }

    static func entry(_ r: SQLRow) throws -> LedgerEntry { try entry(r, from: 0) }

    /// The entry in the columns from `c` on of `r`, in the order `values(_:)` writes them.
    static func entry(_ r: SQLRow, from c: Int) throws -> LedgerEntry {
        let kind = try r.text(c + 8), reason = try r.text(c + 9)
        func other() throws -> String {
            guard let key = try r.optionalText(c + 12) else { throw StorageError.corrupt("\(reason) row without its key") }
            return key
        }
        let type: LedgerEntryType
        switch (kind, reason) {
        case ("credit", "payment"): type = .credit(.payment(invoiceId: try r.optionalText(c + 10)))
        case ("credit", "code"): type = .credit(.code)
        case ("credit", "charge"):
            guard let charge = try r.optionalText(c + 11) else { throw StorageError.corrupt("charge row without chargeId") }
            type = .credit(.charge(chargeId: charge))
        case ("credit", "support"): type = .credit(.support)
        case ("credit", "transferIn"): type = .credit(.transferIn(fromPurchaseKey: try other()))
        case ("credit", "opening"): type = .credit(.opening)
        case ("debit", "refund"): type = .debit(.refund)
        case ("debit", "upgrade"): type = .debit(.upgrade(toPurchaseKey: try other()))
        case ("debit", "transferOut"): type = .debit(.transferOut(toPurchaseKey: try other()))
        case ("debit", "support"): type = .debit(.support)
        case ("debit", "badge"): type = .debit(.badge)
        case ("debit", "lapse"): type = .debit(.lapse)
        default: throw StorageError.corrupt("ledger entry type \(kind)/\(reason)")
        }
        return LedgerEntry(
            entryId: try r.text(c), changeMonths: Int(try r.int(c + 1)), balanceMonths: Int(try r.int(c + 2)),
            balanceStartTs: Timestamp(seconds: try r.int(c + 3)), balanceAnchorTs: Timestamp(seconds: try r.int(c + 4)),
            balanceBadgeType: BadgeType(try r.text(c + 5)),
            wasPausedSince: try r.optionalInt(c + 6).map { Timestamp(seconds: $0) },
            createdAt: Timestamp(seconds: try r.int(c + 7)), entryType: type)
    }
}
