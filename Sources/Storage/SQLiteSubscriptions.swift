import BadgeCore

// Store subscriptions (migration 5): the record, its charges and the purchases it funded.
extension SQLStoreTransaction {
    private static var subscriptionColumns: String {
        """
        subscription_id, store, reference, purchase_id, state, read_at, latest_charge_id, latest_charge_revoked,
        granted_charge_id, purchase_checked_at, transfer_checked_at, renewal_checked_at, moved_from_purchase_id, moved_at
        """
    }

    private func subscriptionRecord(_ r: SQLRow) throws -> SubscriptionRecord {
        func time(_ i: Int) throws -> Timestamp? { try r.optionalInt(i).map { Timestamp(seconds: $0) } }
        var checked: [SubscriptionCheckPath: Timestamp] = [:]
        checked[.purchase] = try time(9)
        checked[.transfer] = try time(10)
        checked[.renewal] = try time(11)
        return SubscriptionRecord(id: try r.int(0), store: try r.text(1), reference: try r.text(2),
                                  purchaseId: try r.optionalInt(3), state: try r.optionalText(4), readAt: try time(5),
                                  latestChargeId: try r.optionalText(6), latestChargeRevoked: try r.int(7) != 0,
                                  grantedChargeId: try r.optionalText(8), checkedAt: checked,
                                  movedFromPurchaseId: try r.optionalInt(12), movedAt: try time(13))
    }

    func subscription(store: String, reference: String) throws -> SubscriptionRecord? {
        try conn.query("SELECT \(Self.subscriptionColumns) FROM badge_subscriptions WHERE store = ? AND reference = ?",
                       [.text(store), .text(reference)]).first.map(subscriptionRecord)
    }

    func subscription(id: Int64) throws -> SubscriptionRecord? {
        try conn.query("SELECT \(Self.subscriptionColumns) FROM badge_subscriptions WHERE subscription_id = ?",
                       [.integer(id)]).first.map(subscriptionRecord)
    }

    func subscriptionFunding(purchaseId: Int64) throws -> SubscriptionFunding? {
        try conn.query("""
            SELECT purchase_id, subscription_id, moved_away_at FROM badge_subscription_funding WHERE purchase_id = ?
            """, [.integer(purchaseId)]).first.map { r in
            SubscriptionFunding(purchaseId: try r.int(0), subscriptionId: try r.int(1),
                                movedAwayAt: try r.optionalInt(2).map { Timestamp(seconds: $0) })
        }
    }

    func subscriptionCharges(subscriptionId: Int64) throws -> [SubscriptionChargeRecord] {
        try conn.query("""
            SELECT subscription_id, charge_id, product_id, badge_type, months, period_start, period_end, seen_at, granted_at
            FROM badge_subscription_charges WHERE subscription_id = ? ORDER BY period_start, seen_at, charge_id
            """, [.integer(subscriptionId)]).map { r in
            SubscriptionChargeRecord(subscriptionId: try r.int(0), chargeId: try r.text(1), productId: try r.text(2),
                                     badgeType: BadgeType(try r.text(3)), months: Int(try r.int(4)),
                                     periodStart: Timestamp(seconds: try r.int(5)), periodEnd: Timestamp(seconds: try r.int(6)),
                                     seenAt: Timestamp(seconds: try r.int(7)),
                                     grantedAt: try r.optionalInt(8).map { Timestamp(seconds: $0) })
        }
    }

    func setPurchaseBadgeType(purchaseId: Int64, _ badgeType: BadgeType) throws {
        try conn.query("UPDATE badge_purchases SET badge_type = ? WHERE purchase_id = ?",
                       [.text(badgeType.rawValue), .integer(purchaseId)])
    }

    func insertSubscription(store: String, reference: String) throws -> SubscriptionRecord {
        try conn.query("INSERT INTO badge_subscriptions (store, reference) VALUES (?, ?)", [.text(store), .text(reference)])
        guard let record = try subscription(store: store, reference: reference) else {
            throw StorageError.corrupt("subscription vanished after insert")
        }
        return record
    }

    func updateSubscription(_ s: SubscriptionRecord) throws {
        func time(_ t: Timestamp?) -> SQLValue { t.map { .integer($0.seconds) } ?? .null }
        func text(_ t: String?) -> SQLValue { t.map { .text($0) } ?? .null }
        try conn.query("""
            UPDATE badge_subscriptions SET purchase_id = ?, state = ?, read_at = ?, latest_charge_id = ?,
                latest_charge_revoked = ?, granted_charge_id = ?, purchase_checked_at = ?, transfer_checked_at = ?,
                renewal_checked_at = ?, moved_from_purchase_id = ?, moved_at = ?
            WHERE subscription_id = ?
            """, [s.purchaseId.map { .integer($0) } ?? .null, text(s.state), time(s.readAt), text(s.latestChargeId),
                  .integer(s.latestChargeRevoked ? 1 : 0), text(s.grantedChargeId), time(s.checkedAt[.purchase]),
                  time(s.checkedAt[.transfer]), time(s.checkedAt[.renewal]),
                  s.movedFromPurchaseId.map { .integer($0) } ?? .null, time(s.movedAt), .integer(s.id)])
        guard conn.changes == 1 else { throw StorageError.corrupt("no subscription \(s.id) to update") }
    }

    func recordSubscriptionCharge(_ c: SubscriptionChargeRecord) throws -> Bool {
        // A conditional insert: a charge already recorded is left as it is.
        try conn.query("""
            INSERT INTO badge_subscription_charges (subscription_id, charge_id, product_id, badge_type, months,
                period_start, period_end, seen_at, granted_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (subscription_id, charge_id) DO NOTHING
            """, [.integer(c.subscriptionId), .text(c.chargeId), .text(c.productId), .text(c.badgeType.rawValue),
                  .integer(Int64(c.months)), .integer(c.periodStart.seconds), .integer(c.periodEnd.seconds),
                  .integer(c.seenAt.seconds), c.grantedAt.map { .integer($0.seconds) } ?? .null])
        return conn.changes > 0
    }

    func grantSubscriptionCharge(subscriptionId: Int64, chargeId: String, at: Timestamp) throws -> Bool {
        try conn.query("""
            UPDATE badge_subscription_charges SET granted_at = ?
            WHERE subscription_id = ? AND charge_id = ? AND granted_at IS NULL
            """, [.integer(at.seconds), .integer(subscriptionId), .text(chargeId)])
        return conn.changes > 0
    }

    func insertSubscriptionFunding(_ f: SubscriptionFunding) throws {
        try conn.query("""
            INSERT INTO badge_subscription_funding (purchase_id, subscription_id, moved_away_at) VALUES (?, ?, ?)
            """, [.integer(f.purchaseId), .integer(f.subscriptionId), f.movedAwayAt.map { .integer($0.seconds) } ?? .null])
    }

    func markSubscriptionMovedAway(purchaseId: Int64, at: Timestamp) throws -> Bool {
        try conn.query("""
            UPDATE badge_subscription_funding SET moved_away_at = ? WHERE purchase_id = ? AND moved_away_at IS NULL
            """, [.integer(at.seconds), .integer(purchaseId)])
        return conn.changes > 0
    }
}
