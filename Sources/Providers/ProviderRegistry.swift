import OutsideHTTP
import Settings

/// The payment providers of one deployment, built from its configuration: what the invoice
/// handler asks for a method, settlement for a provider's name, the gateway for its webhook
/// routes and `reconcile` for the lists it reads. `catalog` holds every kind this binary knows,
/// deployed or not: a kind without a section still has its route (answered 501) and still
/// names its section when its methods are asked for (`provider_not_configured`).
public struct ProviderRegistry: Sendable {
    /// The providers deployed, in catalog order.
    public let providers: [any PaymentProvider]
    /// Every kind this binary knows.
    public let catalog: [any ConfiguredProvider.Type]

    /// A registry of `providers`, deployed by hand (tests), beside the kinds of `catalog`.
    public init(_ providers: [any PaymentProvider] = [], catalog: [any ConfiguredProvider.Type] = ProviderCatalog.deployed) {
        self.providers = providers
        self.catalog = catalog
    }

    /// The providers of every kind in `catalog` whose section `settings` holds, each calling out
    /// through `transport(name)`. A present section must be complete: its first missing required
    /// key is the error, naming it.
    public init(catalog: [any ConfiguredProvider.Type] = ProviderCatalog.deployed,
                settings: (String) -> (any StoreSettings)?,
                transport: (String) -> any OutsideHTTPTransport) throws(MissingProviderKey) {
        var deployed: [any PaymentProvider] = []
        for kind in catalog {
            guard let section = settings(kind.name) else { continue }
            deployed.append(try Self.deploy(kind, section, transport: transport(kind.name)))
        }
        self.init(deployed, catalog: catalog)
    }

    private static func deploy<Kind: ConfiguredProvider>(_ kind: Kind.Type, _ section: any StoreSettings,
                                                         transport: any OutsideHTTPTransport) throws(MissingProviderKey) -> Kind {
        let settings = section as? Kind.Settings ?? Kind.Settings()
        if let key = settings.missingRequiredKeys.first { throw MissingProviderKey(section: Kind.name, key: key) }
        return Kind(settings: settings, transport: transport)
    }

    /// The provider deployed for `method`, if any.
    public func provider(for method: PaymentMethod) -> (any PaymentProvider)? {
        providers.first { $0.methods.contains(method) }
    }

    /// The provider deployed under `name`, if any.
    public func provider(named name: String) -> (any PaymentProvider)? {
        providers.first { $0.name == name }
    }

    /// The section that configures `method`: a deployed provider's, else the first kind's that
    /// collects it (what `provider_not_configured` names).
    public func section(for method: PaymentMethod) -> String {
        provider(for: method)?.name ?? catalog.first { $0.methods.contains(method) }?.name ?? method.rawValue
    }

    /// How late the invoices of the provider `name` may still settle, deployed or not.
    public func lateSettlement(of name: String) -> LateSettlement {
        provider(named: name)?.lateSettlement ?? catalog.first { $0.name == name }?.lateSettlement ?? .unknownProvider
    }

    /// The fresh reads of the provider `name`, when it is deployed and offers them.
    public func invoiceStates(of name: String) -> (any InvoiceStateReading)? {
        provider(named: name) as? any InvoiceStateReading
    }

    /// The deployed providers whose settlements can be listed.
    public var listings: [any SettlementListing] { providers.compactMap { $0 as? any SettlementListing } }

    /// One webhook route per provider this binary knows, in catalog order (then any deployed by
    /// hand outside it): its name and the provider, nil when it is not deployed.
    public var webhooks: [(name: String, provider: (any PaymentProvider)?)] {
        let known = catalog.map { kind in (name: kind.name, provider: provider(named: kind.name)) }
        let others = providers.filter { p in !catalog.contains { $0.name == p.name } }.map { (name: $0.name, provider: Optional($0)) }
        return known + others
    }
}

/// A present provider section without a key it cannot work without.
public struct MissingProviderKey: Error, Equatable, CustomStringConvertible {
    public let section: String
    public let key: String

    public init(section: String, key: String) {
        self.section = section
        self.key = key
    }

    public var description: String { "[\(section)] \(key) is required when [\(section)] is present" }
}
