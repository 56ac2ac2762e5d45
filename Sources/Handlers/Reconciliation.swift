import BadgeCore
import Providers
import Storage

/// What applying one listed settlement did, or would do (`badge-service reconcile`).
public enum ReconcileOutcome: Hashable, Sendable {
    /// The invoice was settled (or refunded, its refund having come first), as its webhook would have.
    case applied(invoiceId: String, what: String)
    /// The database holds it already: the invoice is paid or refunded.
    case present
    /// Settled for another order, amount or currency than its invoice: never credited.
    case unmatched(invoiceId: String)
    /// It names an order id, but no invoice here has its provider reference: an invoice made
    /// after the backup (or another application's order).
    case notInDatabase(orderId: String)
    /// It carries no order id: not this service's.
    case others
    /// Listed but not settled: nothing to apply.
    case notSettled
    /// The database failed: nothing of this one was written.
    case failed(String)
}

extension BadgeService {
    /// A service that settles invoices and never issues a credential, so it needs no issuer key:
    /// what `reconcile` drives.
    public static func settlingOnly(store: any BadgeStore, clock: @escaping @Sendable () -> Timestamp,
                                    providers: ProviderRegistry) -> BadgeService {
        BadgeService(store: store, issuer: NoIssuer(), clock: clock, providers: providers)
    }

    /// Where a provider's list is read from to find every settlement made at or after `since`:
    /// its payment objects are created with the invoice, which may settle until it expires and,
    /// late, for as long as the provider still settles it (the late windows purchaseBadge uses).
    public func listingStart(provider: String, since: Timestamp) -> Timestamp {
        since.adding(seconds: -(Self.invoiceLifetimeSeconds + providers.lateSettlement(of: provider).seconds))
    }

    /// Applies one settlement a provider's list reports, through the webhook's own rules (the
    /// same matching of session, order, amount and currency), in one transaction and without an
    /// event id: an invoice already paid or refunded is `present`, so a second run changes
    /// nothing. With `dryRun` the transaction is rolled back: the outcome is what it would do.
    public func reconcile(_ listed: ListedSettlement, from provider: String, dryRun: Bool = false) -> ReconcileOutcome {
        let now = clock()
        struct RolledBack: Error { let outcome: ReconcileOutcome }
        do {
            return try store.write { w in
                let outcome = try reconcile(listed, from: provider, in: w, at: now)
                if dryRun { throw RolledBack(outcome: outcome) }
                return outcome
            }
        } catch let rolledBack as RolledBack {
            return rolledBack.outcome
        } catch {
            return .failed("\(error)")
        }
    }

    private func reconcile(_ listed: ListedSettlement, from provider: String, in w: any StoreWriter,
                           at now: Timestamp) throws -> ReconcileOutcome {
        guard case .settled = listed.change else { return .notSettled }
        guard let invoice = try w.invoice(provider: provider, providerRef: listed.providerRef) else {
            return listed.orderId.map { .notInDatabase(orderId: $0) } ?? .others
        }
        guard invoice.status != .paid, invoice.status != .refunded else { return .present }
        switch try apply(listed.change, from: provider, in: w, at: now) {
        case .applied(let what): return .applied(invoiceId: invoice.invoiceId, what: what)
        case .ignored(Self.unmatchedSettlement): return .unmatched(invoiceId: invoice.invoiceId)
        case .ignored, .duplicate: return .present
        case .retryLater(let why): return .failed(why)
        }
    }
}

/// The issuer of a service that only settles: settling signs nothing, so there is no key to load.
private struct NoIssuer: CredentialIssuing {
    func issue(masterKey: [UInt8], badgeType: BadgeType, expiry: Timestamp) throws -> BadgeCredential {
        throw BadgeServiceError.internal(detail: "this service only settles invoices: it issues no credential")
    }

    var readiness: Readiness { .notReady(reason: "no issuer key: this service only settles invoices") }
}
