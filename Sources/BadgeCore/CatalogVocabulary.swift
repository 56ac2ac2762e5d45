/// Whether a catalog item is offered: deprecated items are still sent and accepted at
/// invoice creation; disabled ones are omitted and refused (spec "Catalog").
public enum ItemStatus: String, Hashable, Sendable, CaseIterable {
    case active, deprecated, disabled
}

/// The discount an offer states (wire `offerDiscount`).
public enum OfferDiscount: Hashable, Sendable {
    /// Months given free within the offer's duration.
    case freeMonths(Int)
    /// A percentage off `months × monthPrice` (wire tag `discount`).
    case percent(Int)
}
