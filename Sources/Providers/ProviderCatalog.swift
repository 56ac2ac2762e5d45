/// The payment provider kinds this binary deploys, each a folder of this target. Adding a
/// provider is its folder and one line here: its configuration section, its webhook route
/// (`/webhooks/<name>`, labelled `webhook_<name>`), the invoices of its methods and `reconcile`
/// follow from the registry.
public enum ProviderCatalog {
    public static let deployed: [any ConfiguredProvider.Type] = [
        StripeProvider.self,
        BTCPayProvider.self,
    ]
}
