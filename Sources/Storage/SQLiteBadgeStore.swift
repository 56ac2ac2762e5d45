import BadgeCore
import Ledger

/// The columns `LedgerRowCoding.entry` reads, in its order.
private let ledgerRowColumnNames = ["entry_id", "change_months", "balance_months", "balance_start_ts", "balance_anchor_ts",
                                    "balance_badge_type", "was_paused_since", "created_at", "entry_kind", "entry_reason",
                                    "invoice_id", "charge_id", "other_purchase_key"]
private let ledgerRowColumns = ledgerRowColumnNames.joined(separator: ", ")

/// The columns `issuanceRecord` reads, in its order.
private let issuanceColumnNames = ["entry_id", "purchase_id", "badge_type", "period_start", "period_end", "expiry", "key_index",
                                   "signature"]
/// The latest issuance of a purchase, as `latestIssuance` reads it.
private let latestIssuanceSQL = """
    SELECT \(issuanceColumnNames.joined(separator: ", ")) FROM badge_issuances WHERE purchase_id = ?
    ORDER BY period_end DESC LIMIT 1
    """

/// The rows of a ledger from a `seq` on, built once rather than interpolated per call (issue 17).
private let ledgerTailSQL = "SELECT \(ledgerRowColumns) FROM badge_ledger WHERE purchase_id = ? AND seq >= ? ORDER BY seq"
/// `issueView`'s first statement: the purchase (columns 0–4, as `purchaseRecord` reads them), its
/// funding (5–6), pause (7), the ledger's last `seq` (8), the asserted entry's `seq` (9, the
/// purchase must match), the latest issuance (10–17, as `issuanceRecord` reads them) and the
/// asserted row itself (from `issueViewAssertedRow`, as `LedgerRowCoding.entry` reads them): what
/// took seven statements. When the asserted entry is the tip, the commonest request, that row is
/// the whole tail and no second statement runs. Bound: the asserted entry id (or NULL), then the
/// purchase key.
private let issueViewSQL = """
    SELECT p.purchase_id, p.purchase_key, p.master_key, p.badge_type, p.created_at,
           f.subscription_id, f.moved_away_at,
           (SELECT paused_since FROM badge_pauses WHERE purchase_id = p.purchase_id),
           (SELECT MAX(seq) FROM badge_ledger WHERE purchase_id = p.purchase_id),
           a.seq,
           \(issuanceColumnNames.map { "i." + $0 }.joined(separator: ", ")),
           \(ledgerRowColumnNames.map { "a." + $0 }.joined(separator: ", "))
    FROM badge_purchases p
    LEFT JOIN badge_subscription_funding f ON f.purchase_id = p.purchase_id
    LEFT JOIN badge_issuances i ON i.entry_id = (SELECT entry_id FROM badge_issuances WHERE purchase_id = p.purchase_id
                                                 ORDER BY period_end DESC LIMIT 1)
    LEFT JOIN badge_ledger a ON a.entry_id = ? AND a.purchase_id = p.purchase_id
    WHERE p.purchase_key = ?
    """
/// The first of `issueViewSQL`'s columns that hold the asserted row.
private let issueViewAssertedRow = 10 + issuanceColumnNames.count
/// The ledger's last `seq` (see `ledgerCount`) and the asserted entry's, in one row.
private let ledgerCountAndAssertedSQL = """
    SELECT (SELECT MAX(seq) FROM badge_ledger WHERE purchase_id = ?),
           (SELECT seq FROM badge_ledger WHERE entry_id = ? AND purchase_id = ?)
    """

/// ``BadgeStore`` on the embedded SQLite database.
public final class SQLiteBadgeStore: BadgeStore {
    public let database: SQLiteDatabase

    /// Opens (creating and migrating if needed, unless `migrate` is false) the database file at
    /// `path`; see ``SQLiteDatabase/init(path:busyTimeoutMilliseconds:readerCount:checkpointPages:migrate:acceptingOlderSchema:report:)``.
    public init(path: String, busyTimeoutMilliseconds: Int = SQLiteDatabase.defaultBusyTimeoutMilliseconds, readerCount: Int = 2,
                checkpointPages: Int32 = SQLiteDatabase.defaultCheckpointPages, migrate: Bool = true, report: SchemaReport = { _ in }) throws {
        database = try SQLiteDatabase(path: path, busyTimeoutMilliseconds: busyTimeoutMilliseconds, readerCount: readerCount,
                                      checkpointPages: checkpointPages, migrate: migrate, report: report)
    }

    public func read<T>(_ body: (any StoreReader) throws -> T) throws -> T {
        try database.read { try body(SQLStoreTransaction(conn: $0)) }
    }

    public func write<T>(_ body: (any StoreWriter) throws -> T) throws -> T {
        try database.write { try body(SQLStoreTransaction(conn: $0)) }
    }

    public func readiness() -> Readiness { database.readiness() }

    /// A read on a pooled reader that is free now; nil when every reader is taken.
    public func readWithoutWaiting<T>(_ body: (any StoreReader) throws -> T) throws -> T? {
        try database.readWithoutWaiting { try body(SQLStoreTransaction(conn: $0)) }
    }

    /// Whether any purchase was ever made (then issued credentials depend on the issuer key).
    public func holdsPurchases() throws -> Bool {
        try database.read { try !$0.query("SELECT 1 FROM badge_purchases LIMIT 1").isEmpty }
    }
}

/// Reads and writes on one connection inside a transaction the caller opened: the same queries
/// on SQLite and on PostgreSQL, where writes run SERIALIZABLE so a read-then-write here holds
/// as it does under SQLite's single writer.
struct SQLStoreTransaction<Connection: SQLConnection>: StoreWriter {
    let conn: Connection

    // MARK: catalog

    func prices() throws -> [BadgePrice] {
        try conn.query("""
            SELECT price_id, badge_type, month_price, currency, status, created_at
            FROM badge_prices ORDER BY created_at, price_id
            """).map { r in
            BadgePrice(priceId: try r.text(0), badgeType: BadgeType(try r.text(1)),
                        monthPrice: UInt32(try r.int(2)), currency: try r.text(3),
                        status: try status(r.text(4)), createdAt: Timestamp(seconds: try r.int(5)))
        }
    }

    func offers() throws -> [BadgeOffer] {
        try conn.query("""
            SELECT offer_id, price_id, months, discount_type, discount_value, status, created_at
            FROM badge_offers ORDER BY created_at, offer_id
            """).map { r in
            let value = Int(try r.int(4))
            let discount: OfferDiscount
            switch try r.text(3) {
            case "freeMonths": discount = .freeMonths(value)
            case "discount": discount = .percent(value)
            case let other: throw StorageError.corrupt("offer discount type \(other)")
            }
            return BadgeOffer(offerId: try r.text(0), priceId: try r.optionalText(1), months: Int(try r.int(2)),
                               discount: discount, status: try status(r.text(5)),
                               createdAt: Timestamp(seconds: try r.int(6)))
        }
    }

    func insertPrice(_ p: BadgePrice) throws {
        try conn.query("""
            INSERT INTO badge_prices (price_id, badge_type, month_price, currency, status, created_at)
            VALUES (?, ?, ?, ?, ?, ?)
            """, [.text(p.priceId), .text(p.badgeType.rawValue), .integer(Int64(p.monthPrice)), .text(p.currency),
                  .text(p.status.rawValue), .integer(p.createdAt.seconds)])
    }

    func insertOffer(_ o: BadgeOffer) throws {
        let (type, value): (String, Int) = switch o.discount {
        case .freeMonths(let n): ("freeMonths", n)
        case .percent(let n): ("discount", n)
        }
        try conn.query("""
            INSERT INTO badge_offers (offer_id, price_id, months, discount_type, discount_value, status, created_at)
            VALUES (?, ?, ?, ?, ?, ?, ?)
            """, [.text(o.offerId), o.priceId.map { .text($0) } ?? .null, .integer(Int64(o.months)), .text(type),
                  .integer(Int64(value)), .text(o.status.rawValue), .integer(o.createdAt.seconds)])
    }

    func setPriceStatus(priceId: String, _ status: ItemStatus) throws -> Bool {
        try conn.query("UPDATE badge_prices SET status = ? WHERE price_id = ?", [.text(status.rawValue), .text(priceId)])
        return conn.changes > 0
    }

    func setOfferStatus(offerId: String, _ status: ItemStatus) throws -> Bool {
        try conn.query("UPDATE badge_offers SET status = ? WHERE offer_id = ?", [.text(status.rawValue), .text(offerId)])
        return conn.changes > 0
    }

    private func status(_ text: String) throws -> ItemStatus {
        guard let s = ItemStatus(rawValue: text) else { throw StorageError.corrupt("item status \(text)") }
        return s
    }

    // MARK: purchases

    func purchase(key: String) throws -> PurchaseRecord? {
        try conn.query("""
            SELECT purchase_id, purchase_key, master_key, badge_type, created_at FROM badge_purchases WHERE purchase_key = ?
            """, [.text(key)]).first.map(purchaseRecord)
    }

    func purchase(id: Int64) throws -> PurchaseRecord? {
        try conn.query("""
            SELECT purchase_id, purchase_key, master_key, badge_type, created_at FROM badge_purchases WHERE purchase_id = ?
            """, [.integer(id)]).first.map(purchaseRecord)
    }

    private func purchaseRecord(_ r: SQLRow) throws -> PurchaseRecord {
        PurchaseRecord(id: try r.int(0), purchaseKey: try r.text(1), masterKey: try r.blob(2),
                       badgeType: BadgeType(try r.text(3)), createdAt: Timestamp(seconds: try r.int(4)))
    }

    func insertPurchase(key: String, masterKey: [UInt8], badgeType: BadgeType, at: Timestamp) throws -> PurchaseRecord {
        try conn.query("""
            INSERT INTO badge_purchases (purchase_key, master_key, badge_type, created_at) VALUES (?, ?, ?, ?)
            """, [.text(key), .blob(masterKey), .text(badgeType.rawValue), .integer(at.seconds)])
        guard let record = try purchase(key: key) else { throw StorageError.corrupt("purchase vanished after insert") }
        return record
    }

    // MARK: ledger

    func ledger(purchaseId: Int64) throws -> [LedgerEntry] {
        try conn.query("SELECT \(ledgerRowColumns) FROM badge_ledger WHERE purchase_id = ? ORDER BY seq",
                       [.integer(purchaseId)]).map(LedgerRowCoding.entry)
    }

    func ledgerTail(purchaseId: Int64, asserting assertedEntryId: String?, completeHistoryLimit: Int) throws -> LedgerTail {
        let count: Int, asserted: Int64?
        if let assertedEntryId {
            // One statement for both seeks. entry_id is UNIQUE (its own index); the purchase must
            // match, or the entry is not ours.
            let row = try conn.query(ledgerCountAndAssertedSQL, [.integer(purchaseId), .text(assertedEntryId), .integer(purchaseId)]).first
            count = Int(try row?.optionalInt(0) ?? 0)
            asserted = try row?.optionalInt(1)
        } else {
            count = try ledgerCount(purchaseId: purchaseId)
            asserted = nil
        }
        return try ledgerTail(purchaseId: purchaseId, count: count, assertedPosition: asserted, completeHistoryLimit: completeHistoryLimit)
    }

    /// The rows from the position the assertion calls for, once the ledger's length and the
    /// asserted entry's position are known.
    private func ledgerTail(purchaseId: Int64, count: Int, assertedPosition: Int64?, completeHistoryLimit: Int) throws -> LedgerTail {
        let first = LedgerTail.firstPosition(count: count, assertedPosition: assertedPosition.map { Int($0) },
                                             completeHistoryLimit: completeHistoryLimit)
        let rows = try conn.query(ledgerTailSQL, [.integer(purchaseId), .integer(Int64(first))]).map(LedgerRowCoding.entry)
        guard rows.count == max(0, count - first + 1) else {
            throw StorageError.corrupt("ledger of purchase \(purchaseId) is not numbered 1…\(count)")
        }
        return LedgerTail(count: count, rows: rows)
    }

    func issueView(purchaseKey: String, asserting assertedEntryId: String?, completeHistoryLimit: Int) throws -> IssueView? {
        guard let r = try conn.query(issueViewSQL, [assertedEntryId.map { .text($0) } ?? .null, .text(purchaseKey)]).first else {
            return nil
        }
        let purchase = try purchaseRecord(r)
        if let subscriptionId = try r.optionalInt(5) {
            let funding = SubscriptionFunding(purchaseId: purchase.id, subscriptionId: subscriptionId,
                                              movedAwayAt: try r.optionalInt(6).map { Timestamp(seconds: $0) })
            return IssueView(purchase: purchase, funding: funding, tail: nil, latestIssuance: nil, pausedSince: nil)
        }
        let latest = try r.optionalText(10) == nil ? nil : issuanceRecord(r, from: 10)
        let count = Int(try r.optionalInt(8) ?? 0), asserted = try r.optionalInt(9)
        let tail: LedgerTail
        if let asserted, asserted == count {
            tail = LedgerTail(count: count, rows: [try LedgerRowCoding.entry(r, from: issueViewAssertedRow)])
        } else {
            tail = try ledgerTail(purchaseId: purchase.id, count: count, assertedPosition: asserted,
                                  completeHistoryLimit: completeHistoryLimit)
        }
        return IssueView(purchase: purchase, funding: nil, tail: tail, latestIssuance: latest,
                         pausedSince: try r.optionalInt(7).map { Timestamp(seconds: $0) })
    }

    /// Rows in the purchase's ledger: its last `seq`, since `appendLedger` numbers rows 1, 2, …
    /// (a seek on the primary key, where `COUNT(*)` walked every row).
    private func ledgerCount(purchaseId: Int64) throws -> Int {
        Int(try conn.query("SELECT MAX(seq) FROM badge_ledger WHERE purchase_id = ?", [.integer(purchaseId)])
            .first?.optionalInt(0) ?? 0)
    }

    func appendLedger(purchaseId: Int64, expectedCount: Int, entries: [LedgerEntry]) throws {
        let count = try ledgerCount(purchaseId: purchaseId)
        guard count == expectedCount else { throw StorageError.conflict(constraint: "ledger tip moved") }
        for (i, e) in entries.enumerated() {
            // (purchase_id, seq) is the primary key, so a second writer from the same tip fails here too.
            try conn.query("""
                INSERT INTO badge_ledger (purchase_id, seq, entry_id, change_months, balance_months, balance_start_ts,
                    balance_anchor_ts, balance_badge_type, was_paused_since, created_at, entry_kind, entry_reason,
                    invoice_id, charge_id, other_purchase_key)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, [.integer(purchaseId), .integer(Int64(expectedCount + i + 1))] + LedgerRowCoding.values(e))
        }
    }

    // MARK: issuances

    func latestIssuance(purchaseId: Int64) throws -> IssuanceRecord? {
        try conn.query(latestIssuanceSQL, [.integer(purchaseId)]).first.map { try issuanceRecord($0, from: 0) }
    }

    /// The issuance in the columns `issuanceColumnNames` lists, from column `c` of `r`.
    private func issuanceRecord(_ r: SQLRow, from c: Int) throws -> IssuanceRecord {
        IssuanceRecord(entryId: try r.text(c), purchaseId: try r.int(c + 1), badgeType: BadgeType(try r.text(c + 2)),
                       periodStart: Timestamp(seconds: try r.int(c + 3)), periodEnd: Timestamp(seconds: try r.int(c + 4)),
                       expiry: Timestamp(seconds: try r.int(c + 5)), keyIndex: Int(try r.int(c + 6)), signature: try r.blob(c + 7))
    }

    func insertIssuance(_ i: IssuanceRecord) throws {
        try conn.query("""
            INSERT INTO badge_issuances (entry_id, purchase_id, badge_type, period_start, period_end, expiry, key_index, signature)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            """, [.text(i.entryId), .integer(i.purchaseId), .text(i.badgeType.rawValue), .integer(i.periodStart.seconds),
                  .integer(i.periodEnd.seconds), .integer(i.expiry.seconds), .integer(Int64(i.keyIndex)), .blob(i.signature)])
    }

    // MARK: codes

    private static var codeColumns: String { "code_hash, badge_type, months, max_uses, payment, expires_at, revoked_at, created_at" }

    func code(hash: [UInt8]) throws -> CodeRecord? {
        try conn.query("SELECT \(Self.codeColumns) FROM badge_codes WHERE code_hash = ?", [.blob(hash)]).first.map(codeRecord)
    }

    func codes() throws -> [CodeRecord] {
        try conn.query("SELECT \(Self.codeColumns) FROM badge_codes ORDER BY created_at DESC, code_hash").map(codeRecord)
    }

    private func codeRecord(_ r: SQLRow) throws -> CodeRecord {
        guard let payment = CodePayment(rawValue: try r.text(4)) else { throw StorageError.corrupt("code payment") }
        return CodeRecord(hash: try r.blob(0), badgeType: BadgeType(try r.text(1)), months: Int(try r.int(2)),
                          maxUses: Int(try r.int(3)), payment: payment,
                          expiresAt: try r.optionalInt(5).map { Timestamp(seconds: $0) },
                          revokedAt: try r.optionalInt(6).map { Timestamp(seconds: $0) },
                          createdAt: Timestamp(seconds: try r.int(7)))
    }

    func insertCode(_ c: CodeRecord) throws {
        try conn.query("INSERT INTO badge_codes (\(Self.codeColumns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?)", [
            .blob(c.hash), .text(c.badgeType.rawValue), .integer(Int64(c.months)), .integer(Int64(c.maxUses)),
            .text(c.payment.rawValue), c.expiresAt.map { .integer($0.seconds) } ?? .null,
            c.revokedAt.map { .integer($0.seconds) } ?? .null, .integer(c.createdAt.seconds),
        ])
    }

    func revokeCode(hash: [UInt8], at: Timestamp) throws -> Bool {
        try conn.query("UPDATE badge_codes SET revoked_at = ? WHERE code_hash = ? AND revoked_at IS NULL",
                       [.integer(at.seconds), .blob(hash)])
        return conn.changes > 0
    }

    func redemptions(codeHash: [UInt8]) throws -> [Int64] {
        try conn.query("SELECT purchase_id FROM badge_code_redemptions WHERE code_hash = ? ORDER BY redeemed_at, purchase_id",
                       [.blob(codeHash)]).map { try $0.int(0) }
    }

    func insertRedemption(codeHash: [UInt8], purchaseId: Int64, at: Timestamp) throws {
        try conn.query("INSERT INTO badge_code_redemptions (code_hash, purchase_id, redeemed_at) VALUES (?, ?, ?)",
                       [.blob(codeHash), .integer(purchaseId), .integer(at.seconds)])
    }

    // MARK: invoices and payments

    private static var invoiceColumns: String {
        """
        invoice_id, purchase_key, badge_type, months, price, discount, credit, amount, currency, price_id, offer_id,
        provider, method, provider_ref, payment_url, address, crypto_amount, status, created_at, expires_at, paid_at,
        payment_ref
        """
    }

    private func invoiceRecord(_ r: SQLRow) throws -> InvoiceRecord {
        guard let status = InvoiceStatus(rawValue: try r.text(17)) else { throw StorageError.corrupt("invoice status") }
        return InvoiceRecord(
            invoiceId: try r.text(0), purchaseKey: try r.text(1), badgeType: BadgeType(try r.text(2)),
            months: Int(try r.int(3)), price: UInt32(try r.int(4)), discount: UInt32(try r.int(5)),
            credit: UInt32(try r.int(6)), amount: UInt32(try r.int(7)), currency: try r.text(8), priceId: try r.text(9),
            offerId: try r.optionalText(10), provider: try r.text(11), method: try r.text(12),
            providerRef: try r.text(13), paymentURL: try r.optionalText(14), address: try r.optionalText(15),
            cryptoAmount: try r.optionalText(16), status: status, createdAt: Timestamp(seconds: try r.int(18)),
            expiresAt: Timestamp(seconds: try r.int(19)), paidAt: try r.optionalInt(20).map { Timestamp(seconds: $0) },
            paymentRef: try r.optionalText(21))
    }

    func invoice(id: String) throws -> InvoiceRecord? {
        try conn.query("SELECT \(Self.invoiceColumns) FROM badge_invoices WHERE invoice_id = ?", [.text(id)])
            .first.map(invoiceRecord)
    }

    func invoice(provider: String, providerRef: String) throws -> InvoiceRecord? {
        try conn.query("SELECT \(Self.invoiceColumns) FROM badge_invoices WHERE provider = ? AND provider_ref = ?",
                       [.text(provider), .text(providerRef)]).first.map(invoiceRecord)
    }

    func invoice(provider: String, paymentRef: String) throws -> InvoiceRecord? {
        try conn.query("SELECT \(Self.invoiceColumns) FROM badge_invoices WHERE provider = ? AND payment_ref = ?",
                       [.text(provider), .text(paymentRef)]).first.map(invoiceRecord)
    }

    func invoices(purchaseKey: String) throws -> [InvoiceRecord] {
        try conn.query("""
            SELECT \(Self.invoiceColumns) FROM badge_invoices WHERE purchase_key = ? ORDER BY created_at DESC, invoice_id
            """, [.text(purchaseKey)]).map(invoiceRecord)
    }

    func creditedPurchase(provider: String, providerRef: String) throws -> Int64? {
        try conn.query("SELECT purchase_id FROM badge_payments WHERE provider = ? AND provider_ref = ?",
                       [.text(provider), .text(providerRef)]).first?.int(0)
    }

    func insertInvoice(_ i: InvoiceRecord) throws {
        func text(_ s: String?) -> SQLValue { s.map { .text($0) } ?? .null }
        try conn.query("INSERT INTO badge_invoices (\(Self.invoiceColumns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", [
            .text(i.invoiceId), .text(i.purchaseKey), .text(i.badgeType.rawValue), .integer(Int64(i.months)),
            .integer(Int64(i.price)), .integer(Int64(i.discount)), .integer(Int64(i.credit)), .integer(Int64(i.amount)),
            .text(i.currency), .text(i.priceId), text(i.offerId), .text(i.provider), .text(i.method), .text(i.providerRef),
            text(i.paymentURL), text(i.address), text(i.cryptoAmount), .text(i.status.rawValue),
            .integer(i.createdAt.seconds), .integer(i.expiresAt.seconds), i.paidAt.map { .integer($0.seconds) } ?? .null,
            text(i.paymentRef),
        ])
    }

    func setInvoiceStatus(invoiceId: String, from: Set<InvoiceStatus>, to: InvoiceStatus, paidAt: Timestamp?,
                          paymentRef: String?) throws -> Bool {
        guard let current = try invoice(id: invoiceId), from.contains(current.status) else { return false }
        try conn.query("""
            UPDATE badge_invoices SET status = ?, paid_at = COALESCE(?, paid_at), payment_ref = COALESCE(?, payment_ref)
            WHERE invoice_id = ? AND status = ?
            """, [.text(to.rawValue), paidAt.map { .integer($0.seconds) } ?? .null, paymentRef.map { .text($0) } ?? .null,
                  .text(invoiceId), .text(current.status.rawValue)])
        return conn.changes > 0
    }

    func recordProviderEvent(provider: String, eventId: String, at: Timestamp) throws -> Bool {
        // A conditional insert: of two deliveries racing, the database lets one record it.
        try conn.query("""
            INSERT INTO badge_provider_events (provider, event_id, received_at) VALUES (?, ?, ?)
            ON CONFLICT (provider, event_id) DO NOTHING
            """, [.text(provider), .text(eventId), .integer(at.seconds)])
        return conn.changes > 0
    }

    func recordRefund(_ refund: ProviderRefund, at: Timestamp) throws -> Bool {
        try conn.query("""
            INSERT INTO badge_refunds (provider, kind, reference, refunded_at) VALUES (?, ?, ?, ?)
            ON CONFLICT (provider, kind, reference) DO NOTHING
            """, [.text(refund.provider), .text(refund.kind.rawValue), .text(refund.reference), .integer(at.seconds)])
        return conn.changes > 0
    }

    func isRefunded(_ refund: ProviderRefund) throws -> Bool {
        try !conn.query("SELECT 1 FROM badge_refunds WHERE provider = ? AND kind = ? AND reference = ?",
                        [.text(refund.provider), .text(refund.kind.rawValue), .text(refund.reference)]).isEmpty
    }

    func insertPayment(paymentId: String, provider: String, providerRef: String, purchaseId: Int64, at: Timestamp) throws {
        try conn.query("""
            INSERT INTO badge_payments (payment_id, provider, provider_ref, purchase_id, created_at) VALUES (?, ?, ?, ?, ?)
            """, [.text(paymentId), .text(provider), .text(providerRef), .integer(purchaseId), .integer(at.seconds)])
    }

    func insertReceipt(hash: [UInt8], purchaseId: Int64) throws {
        try conn.query("INSERT INTO badge_receipts (receipt_hash, purchase_id) VALUES (?, ?)",
                       [.blob(hash), .integer(purchaseId)])
    }

    func storeProducts() throws -> [StoreProduct] {
        try conn.query("""
            SELECT store, product_id, base_plan_id, badge_type, months, kind FROM badge_store_products
            ORDER BY store, product_id, base_plan_id
            """).map { r in
            let kindText = try r.text(5)
            guard let kind = StoreProduct.Kind(rawValue: kindText) else { throw StorageError.corrupt("store product kind \(kindText)") }
            let plan = try r.text(2)
            return StoreProduct(store: try r.text(0), productId: try r.text(1), basePlanId: plan.isEmpty ? nil : plan,
                                badgeType: BadgeType(try r.text(3)), months: Int(try r.int(4)), kind: kind)
        }
    }

    func setStoreProduct(_ p: StoreProduct) throws {
        _ = try removeStoreProduct(store: p.store, productId: p.productId, basePlanId: p.basePlanId)
        try conn.query("""
            INSERT INTO badge_store_products (store, product_id, base_plan_id, badge_type, months, kind) VALUES (?, ?, ?, ?, ?, ?)
            """, [.text(p.store), .text(p.productId), .text(p.basePlanId ?? ""), .text(p.badgeType.rawValue),
                  .integer(Int64(p.months)), .text(p.kind.rawValue)])
    }

    func removeStoreProduct(store: String, productId: String, basePlanId: String?) throws -> Bool {
        try conn.query("DELETE FROM badge_store_products WHERE store = ? AND product_id = ? AND base_plan_id = ?",
                       [.text(store), .text(productId), .text(basePlanId ?? "")])
        return conn.changes > 0
    }

    func receiptHolder(hash: [UInt8]) throws -> Int64? {
        try conn.query("SELECT purchase_id FROM badge_receipts WHERE receipt_hash = ?", [.blob(hash)]).first?.int(0)
    }

    func receiptTransfer(hash: [UInt8]) throws -> (from: Int64, to: Int64)? {
        try conn.query("SELECT from_purchase_id, to_purchase_id FROM badge_receipt_transfers WHERE receipt_hash = ?",
                       [.blob(hash)]).first.map { (from: try $0.int(0), to: try $0.int(1)) }
    }

    func retireReceipt(hash: [UInt8], from: Int64, to: Int64, at: Timestamp) throws {
        // Conditional on the holder: of two writers retiring the same receipt, one deletes it.
        try conn.query("DELETE FROM badge_receipts WHERE receipt_hash = ? AND purchase_id = ?", [.blob(hash), .integer(from)])
        guard conn.changes == 1 else { throw StorageError.conflict(constraint: "receipt moved") }
        try conn.query("""
            INSERT INTO badge_receipt_transfers (receipt_hash, from_purchase_id, to_purchase_id, transferred_at)
            VALUES (?, ?, ?, ?)
            """, [.blob(hash), .integer(from), .integer(to), .integer(at.seconds)])
    }

    // MARK: upgrade invoices

    func invoiceUpgrade(invoiceId: String) throws -> InvoiceUpgrade? {
        try conn.query("SELECT invoice_id, from_purchase_id, months FROM badge_invoice_upgrades WHERE invoice_id = ?",
                       [.text(invoiceId)]).first.map(Self.invoiceUpgrade)
    }

    func invoiceUpgrades(fromPurchaseId: Int64) throws -> [InvoiceUpgrade] {
        try conn.query("""
            SELECT u.invoice_id, u.from_purchase_id, u.months FROM badge_invoice_upgrades u
            JOIN badge_invoices i ON i.invoice_id = u.invoice_id
            WHERE u.from_purchase_id = ? ORDER BY i.created_at, u.invoice_id
            """, [.integer(fromPurchaseId)]).map(Self.invoiceUpgrade)
    }

    func insertInvoiceUpgrade(_ upgrade: InvoiceUpgrade) throws {
        try conn.query("INSERT INTO badge_invoice_upgrades (invoice_id, from_purchase_id, months) VALUES (?, ?, ?)",
                       [.text(upgrade.invoiceId), .integer(upgrade.fromPurchaseId), .integer(Int64(upgrade.months))])
    }

    private static func invoiceUpgrade(_ row: SQLRow) throws -> InvoiceUpgrade {
        InvoiceUpgrade(invoiceId: try row.text(0), fromPurchaseId: try row.int(1), months: Int(try row.int(2)))
    }

    // MARK: pauses

    func pausedSince(purchaseId: Int64) throws -> Timestamp? {
        try conn.query("SELECT paused_since FROM badge_pauses WHERE purchase_id = ?", [.integer(purchaseId)])
            .first.map { Timestamp(seconds: try $0.int(0)) }
    }

    func setPause(purchaseId: Int64, since: Timestamp?) throws {
        try conn.query("DELETE FROM badge_pauses WHERE purchase_id = ?", [.integer(purchaseId)])
        if let since {
            try conn.query("INSERT INTO badge_pauses (purchase_id, paused_since) VALUES (?, ?)",
                           [.integer(purchaseId), .integer(since.seconds)])
        }
    }
}
