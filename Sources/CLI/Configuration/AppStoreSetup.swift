import AppStore
import BadgeCore
import Handlers
import OutsideHTTP
import Storage

extension AppleStoreSettings {
    /// What `serve` deploys for a present `[apple]` section: the offline verifier over the
    /// configured roots, and, when the App Store Server API key is configured whole, the
    /// subscription store that reads statuses with it. Every problem is reported, one line each
    /// naming the key or the file (every root certificate file, the key file); nothing starts
    /// with a half-read section. A part of the API key is not deployed:
    /// ``ServiceConfiguration/incompletePaymentSections()`` names what is missing.
    public func deployment(creditsSandbox: Bool, transport: any OutsideHTTPTransport = URLSessionTransport()) throws -> AppStoreDeployment {
        var problems: [String] = []
        let bundle = bundleID.flatMap { $0.isEmpty ? nil : $0 }
        if bundle == nil {
            problems.append("[apple] bundle_id: required when [apple] is present (the app's bundle id, e.g. chat.simplex.app)")
        }
        let files = rootCertificateFiles
        if files.isEmpty {
            problems.append("[apple] root_certificates: required when [apple] is present (Apple Root CA - G3, DER or PEM)")
        }
        var certificates: [[UInt8]] = []
        var unreadRoots = false
        for file in files {
            switch ConfiguredFile.read(file) {
            case .success(let bytes):
                do { certificates += try AppleRootCertificates.certificates(in: bytes, name: file) } catch {
                    problems.append("[apple] root_certificates: \(error)")
                    unreadRoots = true
                }
            case .failure(let failure):
                problems.append("[apple] root_certificates: \(failure)")
                unreadRoots = true
            }
        }
        let roots = AppleRootCertificates(der: certificates)
        if roots == nil, !files.isEmpty, !unreadRoots {
            problems.append("[apple] root_certificates: no certificate could be read")
        }
        var key: AppStoreAPIKey?
        if let path = privateKeyFile, !path.isEmpty {
            do {
                try FileSystem.refuseShared(path, naming: "[apple] private_key")
                switch ConfiguredFile.read(path) {
                case .success(let bytes):
                    do { key = try AppStoreAPIKey(p8: bytes, keyId: keyID ?? "", issuerId: issuerID ?? "", bundleId: bundle ?? "") } catch {
                        problems.append("[apple] private_key: \(path): \(error)")
                    }
                case .failure(let failure):
                    problems.append("[apple] private_key: \(failure)")
                }
            } catch {
                problems.append("\(error)")
            }
        }
        guard problems.isEmpty, let bundle, let roots else { throw ConfigurationErrors(problems.map(ConfigurationError.deployment)) }
        if [issuerID, keyID].contains(where: { ($0 ?? "").isEmpty }) { key = nil }
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
