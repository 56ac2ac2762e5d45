import BadgeCore

/// The expiry signed into the credential for a period ending at `periodEnd` (upstream
/// `endOfMondayAfter`, the model's `sundayAfter`): Tuesday 00:00:00 UTC after the ISO week
/// (Monday–Sunday, by UTC date) holding the period end's date.
///
/// The time of day is ignored on purpose: every credential whose period ends in the same week
/// carries the same expiry, so an expiry never singles out its holder within that week. The
/// expiry falls more than 1 and at most 8 days after the period end.
public func credentialExpiry(periodEnd: Timestamp) -> Timestamp {
    let date = periodEnd.date
    return Timestamp(date.adding(days: 9 - date.isoWeekday))
}
