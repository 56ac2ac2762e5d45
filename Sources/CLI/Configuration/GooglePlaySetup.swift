import BadgeCore
import GooglePlay
import Handlers
import OutsideHTTP

extension GooglePlaySettings {
    /// What `serve` deploys for a present `[google]` section: the Play Developer API client with
    /// the service account's key read now, so a missing or unreadable key file stops the start
    /// with one line naming the key and the path (never the key itself); every problem of the
    /// section is reported, one line each.
    public func funding(creditsTestPurchases: Bool, clock: @escaping @Sendable () -> Timestamp,
                        transport: any OutsideHTTPTransport = URLSessionTransport()) throws -> GooglePlayFunding {
        var problems: [String] = []
        let package = packageName.flatMap { $0.isEmpty ? nil : $0 }
        if package == nil {
            problems.append("[google] package_name: required when [google] is present (the app's package, e.g. chat.simplex.app)")
        }
        var key: ServiceAccountKey?
        var push: PushAuthenticator?
        do { key = try serviceAccountKey() } catch { problems.append("\(error)") }
        do { push = try pushAuthenticator() } catch { problems.append("\(error)") }
        guard problems.isEmpty, let package, let key else { throw ConfigurationErrors(problems.map(ConfigurationError.deployment)) }
        let endpoint = GooglePlayEndpoint(packageName: package, apiURL: apiURL ?? GooglePlayEndpoint.defaultAPIURL,
                                          tokenURL: tokenURL ?? GooglePlayEndpoint.defaultTokenURL,
                                          timeoutSeconds: Double(timeout), maxResponseBytes: maxResponseBytes)
        return GooglePlayFunding(client: GooglePlayClient(endpoint: endpoint, key: key, transport: transport),
                                 creditsTestPurchases: creditsTestPurchases, subscriptionChecks: PlayCheckLimiter(clock: clock),
                                 push: push)
    }

    /// The push authentication of `POST /webhooks/google`: both `push_audience` and
    /// `push_service_account`, or neither (then the route answers 501); the JWKS is fetched with
    /// the section's `timeout` and `max_response_bytes`.
    public func pushAuthenticator() throws -> PushAuthenticator? {
        switch (pushAudience.flatMap { $0.isEmpty ? nil : $0 }, pushServiceAccount) {
        case (nil, nil):
            if pushJWKSURL != nil { throw CommandFailure("[google] push_jwks_url: needs push_audience and push_service_account") }
            return nil
        case (let audience?, let account?):
            return PushAuthenticator(audience: audience, serviceAccountEmail: account,
                                     keys: GoogleKeyCache(url: pushJWKSURL ?? GoogleKeyCache.defaultURL, timeoutSeconds: Double(timeout),
                                                          maxResponseBytes: maxResponseBytes))
        case (nil, _?):
            throw CommandFailure("[google] push_audience: required with push_service_account (the push subscription's audience)")
        case (_?, nil):
            throw CommandFailure("[google] push_service_account: required with push_audience (the push subscription's service account email)")
        }
    }

    /// The service account's JSON key file, read and its RSA key parsed.
    public func serviceAccountKey() throws -> ServiceAccountKey {
        guard let path = serviceAccountFile, !path.isEmpty else {
            throw CommandFailure("[google] service_account: required when [google] is present (the service account's JSON key file)")
        }
        try FileSystem.refuseShared(path, naming: "[google] service_account")
        switch ConfiguredFile.read(path) {
        case .success(let bytes):
            do { return try ServiceAccountKey(json: bytes) } catch {
                throw CommandFailure("[google] service_account: \(path): \(error.reason)")
            }
        case .failure(let failure):
            throw CommandFailure("[google] service_account: \(failure)")
        }
    }
}
