import OutsideHTTP
import Providers

/// The payment providers of the configuration's sections, built one way for `serve` and for
/// `reconcile`: one for every kind of the catalog whose section is present. A present section
/// must be complete: a missing key is one line naming it.
extension ServiceConfiguration {
    /// The registry of `catalog`'s configured providers. `storeCall(provider, outcome)` hears how
    /// each call to a provider ended (`badge_store_calls_total`).
    public func paymentProviders(catalog: [any ConfiguredProvider.Type] = ProviderCatalog.deployed,
                                 storeCall: @escaping @Sendable (String, String) -> Void = { _, _ in }) throws -> ProviderRegistry {
        do {
            return try ProviderRegistry(catalog: catalog, settings: { paymentSections[$0]?.settings },
                                        transport: { name in CountedTransport { storeCall(name, $0) } })
        } catch {
            throw CommandFailure(error.description)
        }
    }
}
