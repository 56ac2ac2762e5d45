import BadgeCore

// Partial refunds and disputes of provider payments (migration 16).
extension SQLStoreTransaction {
    func refundProgress(provider: String, paymentRef: String) throws -> RefundProgress? {
        try conn.query("""
            SELECT refunded, amount, months_debited FROM badge_refund_amounts WHERE provider = ? AND payment_ref = ?
            """, [.text(provider), .text(paymentRef)]).first.map { r in
            RefundProgress(provider: provider, paymentRef: paymentRef, refunded: UInt64(try r.int(0)), amount: UInt64(try r.int(1)),
                           monthsDebited: Int(try r.int(2)))
        }
    }

    func saveRefundProgress(_ p: RefundProgress, at: Timestamp) throws {
        try conn.query("""
            INSERT INTO badge_refund_amounts (provider, payment_ref, refunded, amount, months_debited, updated_at)
            VALUES (?, ?, ?, ?, ?, ?)
            ON CONFLICT (provider, payment_ref) DO UPDATE SET refunded = excluded.refunded, amount = excluded.amount,
                months_debited = excluded.months_debited, updated_at = excluded.updated_at
            """, [.text(p.provider), .text(p.paymentRef), .integer(Int64(clamping: p.refunded)), .integer(Int64(clamping: p.amount)),
                  .integer(Int64(p.monthsDebited)), .integer(at.seconds)])
    }

    func isDisputed(provider: String, paymentRef: String) throws -> Bool {
        try !conn.query("SELECT 1 FROM badge_disputes WHERE provider = ? AND payment_ref = ? AND status = 'open'",
                        [.text(provider), .text(paymentRef)]).isEmpty
    }

    func holdsOpenDispute(purchaseId: Int64) throws -> Bool {
        try !conn.query("""
            SELECT 1 FROM badge_payments p
            JOIN badge_invoices i ON i.invoice_id = p.provider_ref AND i.provider = p.provider
            JOIN badge_disputes d ON d.provider = i.provider AND d.payment_ref = i.payment_ref
            WHERE p.purchase_id = ? AND d.status = 'open'
            """, [.integer(purchaseId)]).isEmpty
    }

    func recordDispute(provider: String, disputeId: String, paymentRef: String, status: String, at: Timestamp) throws -> Bool {
        if status == "open" {
            try conn.query("""
                INSERT INTO badge_disputes (provider, dispute_id, payment_ref, status, opened_at) VALUES (?, ?, ?, 'open', ?)
                ON CONFLICT (provider, dispute_id) DO NOTHING
                """, [.text(provider), .text(disputeId), .text(paymentRef), .integer(at.seconds)])
            return conn.changes > 0
        }
        // A close delivered before its opening is recorded closed (the opening then changes nothing).
        try conn.query("""
            INSERT INTO badge_disputes (provider, dispute_id, payment_ref, status, opened_at, closed_at) VALUES (?, ?, ?, ?, ?, ?)
            ON CONFLICT (provider, dispute_id) DO UPDATE SET status = excluded.status, closed_at = excluded.closed_at
            WHERE badge_disputes.status = 'open'
            """, [.text(provider), .text(disputeId), .text(paymentRef), .text(status), .integer(at.seconds), .integer(at.seconds)])
        return conn.changes > 0
    }
}
