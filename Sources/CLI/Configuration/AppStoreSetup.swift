import AppStore
import BadgeCore
import Handlers
import OutsideHTTP
import Storage

extension AppleStoreSettings {
    /// What `serve` deploys for a present `[apple]` section: the offline verifier over the
    /// configured roots, and, when the App Store Server API key is configured, the subscription
    /// store that reads statuses with it. Every mistake is one line naming the key or the file;
    /// nothing starts with a half-read section.
    public func deployment(creditsSandbox: Bool, transport: any OutsideHTTPTransport = URLSessionTransport()) throws -> AppStoreDeployment {
        guard let bundle = bundleID, !bundle.isEmpty else {
            throw CommandFailure("[apple] bundle_id: required when [apple] is present (the app's bundle id, e.g. chat.simplex.app)")
        }
        let files = rootCertificateFiles
        guard !files.isEmpty else {
            throw CommandFailure("[apple] root_certificates: required when [apple] is present (Apple Root CA - G3, DER or PEM)")
        }
        var certificates: [[UInt8]] = []
        for file in files {
            switch FileSystem.read(file) {
            case .success(let bytes):
                do { certificates += try AppleRootCertificates.certificates(in: bytes, name: file) } catch {
                    throw CommandFailure("[apple] root_certificates: \(error)")
                }
            case .failure(let failure):
                throw CommandFailure("[apple] root_certificates: \(failure)")
            }
        }
        guard let roots = AppleRootCertificates(der: certificates) else {
            throw CommandFailure("[apple] root_certificates: no certificate could be read")
        }
        var key: AppStoreAPIKey?
        let named = [("issuer_id", issuerID), ("key_id", keyID), ("private_key", privateKeyFile)]
        if named.contains(where: { $0.1 != nil }) {
            let missing = named.filter { ($0.1 ?? "").isEmpty }.map(\.0)
            guard missing.isEmpty else {
                throw CommandFailure("[apple] \(missing.joined(separator: ", ")): required with the other App Store Server API keys (issuer_id, key_id, private_key)")
            }
            let path = privateKeyFile!
            try FileSystem.refuseShared(path, naming: "[apple] private_key")
            switch FileSystem.read(path) {
            case .success(let bytes):
                do { key = try AppStoreAPIKey(p8: bytes, keyId: keyID!, issuerId: issuerID!, bundleId: bundle) } catch {
                    throw CommandFailure("[apple] private_key: \(path): \(error)")
                }
            case .failure(let failure):
                throw CommandFailure("[apple] private_key: \(failure)")
            }
        }
        let funding = AppStoreFunding(verifier: AppStoreVerifier(roots: roots, bundleId: bundle, creditsSandbox: creditsSandbox))
        let serverAPI = key.map { key in
            AppStoreServerAPI(key: key, verifier: funding.verifier, productionURL: apiURL ?? AppStoreServerAPI.defaultProductionURL,
                              sandboxURL: sandboxAPIURL ?? AppStoreServerAPI.defaultSandboxURL, timeoutSeconds: Double(timeout),
                              maxResponseBytes: maxResponseBytes, transport: transport)
        }
        return AppStoreDeployment(funding: funding, serverAPI: serverAPI)
    }
}

/// The App Store as `serve` deploys it: offline verification always; subscription statuses
/// only with the App Store Server API key (without it, subscriptions answer provider_not_configured).
public struct AppStoreDeployment: Sendable {
    public let funding: AppStoreFunding
    /// The App Store Server API client; nil without the API key.
    public let serverAPI: AppStoreServerAPI?

    /// The subscription store, judging charges by the products `products` reads (the database's,
    /// as an operator changes them); nil without the API key.
    public func subscriptions(products: @escaping @Sendable () throws -> StoreProducts) -> AppStoreSubscriptions? {
        serverAPI.map { AppStoreSubscriptions(api: $0, products: products) }
    }
}
