import BadgeCore
import Crypto
import Foundation
import JSON
import Ledger
import Providers
import RequestAuth
import Schema
import Storage

/// Who sent a request, as the gateway verified it.
public enum Caller: Sendable, Equatable {
    /// No signature: only the unsigned catalog is answered.
    case anonymous
    /// A verified Ed25519 signer (RFC 9421 or the trusted front).
    case signer(Ed25519PublicKey)
}

/// A command's answer: the response, its encoded bytes, and what the log and metrics record.
public struct RPCOutcome: Sendable {
    public let response: RPCResponse
    /// The response as sent: compact JSON, valid against the schema's `response`.
    public let body: [UInt8]
    /// The command's wire name, when the request got that far.
    public let command: String?
    /// The request needed a signature it did not have, or its signer did not match.
    public let unauthenticated: Bool

    /// `ok` or the error code, for logs and metrics.
    public var result: String { response.errorCode?.rawValue ?? "ok" }
}

/// The badge service's RPC layer: envelope rules of the spec, then one handler per command.
/// Synchronous and thread-safe: it may block on SQLite, BBS signing and the stores, so the gateway
/// calls it off the event loop except through ``answerFromMemory(body:)`` and
/// ``answerWithoutWaiting(body:signer:)``.
public final class BadgeService: Sendable {
    /// Protocol versions this service answers.
    public static let supportedVersions = 1...1

    /// Stores and payment providers this version has a verifier for: the payment providers of
    /// the catalog, the App Store and Google Play. The service warns at start about configured
    /// sections it does not use.
    public static let deployedVerifiers: Set<String> = Set(ProviderCatalog.deployed.map { $0.name }).union(["apple", "google"])

    /// Hooks and tuning of the RPC layer.
    public struct Configuration: Sendable {
        /// How long a catalog read is reused, in seconds (operator changes show within this).
        public var catalogCacheSeconds: Int64
        /// Receives details of internal failures for the operator's log (never sent to clients).
        public var reportInternalError: @Sendable (String) -> Void
        /// Receives a line for each payment provider call that failed (no secret, no body).
        public var reportProviderFailure: @Sendable (String) -> Void
        /// Receives a line for each store notification handled: its type and outcome, no token or id.
        public var reportStoreNotification: @Sendable (String) -> Void
        /// Receives a line for each payment settled that can never be credited (its key holds a
        /// badge another payment funded), naming the provider's reference so the operator refunds it.
        public var reportStrandedPayment: @Sendable (String) -> Void

        public init(catalogCacheSeconds: Int64 = 1,
                    reportInternalError: @escaping @Sendable (String) -> Void = { _ in },
                    reportProviderFailure: @escaping @Sendable (String) -> Void = { _ in },
                    reportStoreNotification: @escaping @Sendable (String) -> Void = { _ in },
                    reportStrandedPayment: @escaping @Sendable (String) -> Void = { _ in }) {
            self.catalogCacheSeconds = catalogCacheSeconds
            self.reportInternalError = reportInternalError
            self.reportProviderFailure = reportProviderFailure
            self.reportStoreNotification = reportStoreNotification
            self.reportStrandedPayment = reportStrandedPayment
        }
    }

    let store: any BadgeStore
    let issuer: any CredentialIssuing
    let clock: @Sendable () -> Timestamp
    let newEntryId: @Sendable () -> String
    let newInvoiceId: @Sendable () -> String
    /// The payment providers configured here, and the kinds this binary knows.
    let providers: ProviderRegistry
    /// The App Store verifier and products; nil without an `[apple]` section.
    let appStore: AppStoreFunding?
    /// The Play Developer API client and products; nil without a `[google]` section.
    let googlePlay: GooglePlayFunding?
    /// The stores whose subscriptions this deployment can read, by `SubscriptionStore.name`;
    /// a store missing here answers its subscriptions provider_not_configured.
    let subscriptionStores: [any SubscriptionStore]
    let configuration: Configuration
    /// Listeners of verified store refunds after the badge ledger's (``storeNotificationListeners``).
    let extraStoreListeners: [any StoreNotificationListener]
    let schema = BadgeRPCSchema.shared
    /// Anonymous bodies decoded on the event loop, by their bytes (``RecentRequests``).
    let recentAnonymousRequests = RecentRequests()
    let catalog: CatalogCache
    let products: StoreProductCache

    public init(store: any BadgeStore, issuer: any CredentialIssuing, clock: @escaping @Sendable () -> Timestamp,
                newEntryId: @escaping @Sendable () -> String = randomEntryId,
                newInvoiceId: @escaping @Sendable () -> String = randomInvoiceId, providers: ProviderRegistry = .init(),
                appStore: AppStoreFunding? = nil, googlePlay: GooglePlayFunding? = nil,
                subscriptionStores: [any SubscriptionStore] = [], configuration: Configuration = .init(),
                storeNotificationListeners: [any StoreNotificationListener] = []) {
        self.extraStoreListeners = storeNotificationListeners
        self.appStore = appStore
        self.googlePlay = googlePlay
        let products = StoreProductCache(store: store, lifetime: configuration.catalogCacheSeconds, clock: clock)
        self.products = products
        // With [google], Play's subscriptions are read for renewal checks as well.
        self.subscriptionStores = subscriptionStores
            + (googlePlay.map { [$0.subscriptions(products: { try products.current().playMap })] } ?? [])
        self.store = store
        self.newInvoiceId = newInvoiceId
        self.providers = providers
        self.issuer = issuer
        self.clock = clock
        self.newEntryId = newEntryId
        self.configuration = configuration
        catalog = CatalogCache(store: store, lifetime: configuration.catalogCacheSeconds, clock: clock)
    }

    /// Answers one request body from `caller`.
    public func handle(body: [UInt8], caller: Caller) -> RPCOutcome {
        // With the whole reach there is always an answer.
        answer(body: body, caller: caller, reach: .everything)!
    }

    /// Answers an unsigned request when that needs no database read (the catalog is cached, or
    /// the request is refused): what an event loop may call. Nil means call ``handle(body:caller:)``
    /// where blocking is allowed.
    public func answerFromMemory(body: [UInt8]) -> RPCOutcome? {
        answer(body: body, caller: .anonymous, reach: .memory)
    }

    /// Answers a verified signer's request when that needs no wait, no write and no signing: a
    /// refusal of the body, or an `issueBadge` whose credential is already issued (the commonest
    /// request), read from a store that can read without waiting. What an event loop may call;
    /// nil means call ``handle(body:caller:)`` where blocking is allowed.
    public func answerWithoutWaiting(body: [UInt8], signer: Ed25519PublicKey) -> RPCOutcome? {
        answer(body: body, caller: .signer(signer), reach: .withoutWaiting)
    }

    /// How far an answer may go for its data.
    enum Reach {
        /// Memory only: the cached anonymous catalog.
        case memory
        /// Reads that wait for nothing (``BadgeStore/readWithoutWaiting(_:)``); no write, no
        /// signing, no outside call.
        case withoutWaiting
        /// Anything the command needs.
        case everything
    }

    private func answer(body: [UInt8], caller: Caller, reach: Reach) -> RPCOutcome? {
        let request: RPCRequest
        let fromMemoryOnly = reach == .memory
        if fromMemoryOnly, let known = recentAnonymousRequests.request(for: body) {
            request = known
        } else {
            switch decode(body) {
            case .refused(let refusal): return refusal
            case .request(let decoded): request = decoded
            }
            if fromMemoryOnly { recentAnonymousRequests.remember(request, for: body) }
        }
        let name = request.command.name
        let key: Ed25519PublicKey?
        switch caller {
        case .anonymous:
            guard case .getBadgeCatalog = request.command, request.purchaseKey == nil else {
                return outcome(.init(.badRequest("this request must be signed by its purchase key")), command: name,
                               unauthenticated: true)
            }
            key = nil
        case .signer(let signer):
            guard let stated = request.purchaseKey, PurchaseKey.matches(stated, signer) else {
                return outcome(.init(.badRequest("purchaseKey differs from the key that signed the request")), command: name)
            }
            key = signer
        }
        do {
            guard let key else {  // the unsigned catalog, the one command an anonymous caller reaches
                return try catalog.anonymousOutcome(cachedOnly: fromMemoryOnly) {
                    outcome(.badgeCatalog(catalog: $0, badgeStatement: nil), command: name)
                }
            }
            guard reach == .everything else {
                guard case .issueBadge(let balance) = request.command,
                      let cached = try issuedBadgeWithoutWaiting(key: key, balance: balance, now: clock()) else { return nil }
                return outcome(cached, command: name)
            }
            return outcome(try dispatch(request.command, key: key), command: name)
        } catch StorageError.busy {
            // Another process (an operator command, a backup) held the write lock past the busy
            // timeout: transient, and nothing of this request was written.
            return outcome(.init(.databaseBusy(retryAfter: 1)), command: name)
        } catch StorageError.unavailable(let reason) {
            // The PostgreSQL server cannot be reached or answer now (a restart, a lost connection,
            // a statement past its timeout): nothing of this request landed, and a retry may succeed.
            configuration.reportProviderFailure("\(name): database: \(reason)")
            return outcome(.init(.providerUnavailable(retryAfter: 1, detail: "database: \(reason)")), command: name)
        } catch let error as BadgeServiceError {
            if case .internal(let detail) = error { configuration.reportInternalError("\(name): \(detail)") }
            if case .providerUnavailable(_, let detail) = error { configuration.reportProviderFailure("\(name): \(detail)") }
            return outcome(.init(error), command: name)
        } catch {
            configuration.reportInternalError("\(name): \(error)")
            return outcome(.init(.internal(detail: "\(error)")), command: name)
        }
    }

    private enum Decoded {
        case request(RPCRequest)
        case refused(RPCOutcome)
    }

    /// The request a body holds, or the answer refusing it.
    private func decode(_ body: [UInt8]) -> Decoded {
        let json: JSONValue
        do { json = try JSONParser().parse(body) } catch {
            return .refused(outcome(.init(.badRequest(RequestRejection(.malformedJSON(error)).message)), command: nil))
        }
        // A version outside the range is answered as such even when the rest of the
        // envelope is from a protocol this service does not know.
        if let v = json["version"]?.numberValue?.exactInt, !Self.supportedVersions.contains(v) {
            return .refused(outcome(.init(.unsupportedVersion(v)), command: nil))
        }
        do { return .request(try schema.decodeRequest(json)) } catch {
            return .refused(outcome(.init(.badRequest(error.message)), command: json["request"]?["type"]?.stringValue.flatMap {
                RPCCommand.names.contains($0) ? $0 : nil
            }))
        }
    }

    private func dispatch(_ command: RPCCommand, key: Ed25519PublicKey) throws -> RPCResponse {
        let now = clock()
        switch command {
        case .getBadgeCatalog:
            return try getBadgeCatalog(key: key)
        case .redeemBadgeCode(let masterKey, let code):
            return try redeemBadgeCode(key: key, masterKey: masterKey, code: code, now: now)
        case .issueBadge(let balance):
            return try issueBadge(key: key, balance: balance, now: now)
        case .purchaseBadge(let masterKey, let payment, let upgrade):
            switch payment {
            case .apple(let jws):
                return try purchaseByAppStore(key: key, masterKey: masterKey, jws: jws, upgrade: upgrade, now: now)
            case .google(let productId, let token):
                return try purchaseByGooglePlay(key: key, masterKey: masterKey, productId: productId, token: token,
                                                upgrade: upgrade, now: now)
            case .invoice(let invoiceId):
                // A non-store upgrade is priced by getBadgeInvoice.upgrade; its invoice carries it.
                if upgrade != nil { throw BadgeServiceError.badRequest("an invoice's upgrade is sent with getBadgeInvoice") }
                return try purchaseByInvoice(key: key, masterKey: masterKey, invoiceId: invoiceId, now: now)
            case .receipt(let receipt):
                if upgrade != nil { throw BadgeServiceError.badRequest("funding by receipt moves months; it upgrades nothing") }
                return try purchaseByReceipt(key: key, masterKey: masterKey, receipt: receipt, now: now)
            }
        case .getBadgeInvoice(let priceId, let offerId, let badgeInfo, let paymentVia, let upgrade):
            return try getBadgeInvoice(key: key, priceId: priceId, offerId: offerId, badgeInfo: badgeInfo,
                                       paymentVia: paymentVia, upgrade: upgrade, now: now)
        case .transferBadge(let masterKey, let payment):
            return try transferBadge(key: key, masterKey: masterKey, payment: payment, now: now)
        case .upgradeBadgeSubscription(let payment, let balance):
            return try upgradeBadgeSubscription(key: key, payment: payment, balance: balance, now: now)
        case .pauseBadge:
            return try pauseBadge(key: key, now: now)
        }
    }

    /// The purchase of a signer that must have one.
    func knownPurchase(_ key: Ed25519PublicKey) throws -> PurchaseRecord {
        guard let purchase = try store.read({ try $0.purchase(key: key.purchaseKeyText) }) else {
            throw BadgeServiceError.unknownPurchaseKey
        }
        return purchase
    }

    /// Encodes `response` as ``handle(body:caller:)`` would (for answers the gateway makes itself).
    public func encode(_ response: RPCResponse, command: String?) -> RPCOutcome {
        outcome(response, command: command)
    }

    /// Encodes and checks a response: anything that would not validate against the schema's
    /// `response` is logged and answered `internal` instead, so clients only see valid documents.
    func outcome(_ response: RPCResponse, command: String?, unauthenticated: Bool = false) -> RPCOutcome {
        let json = response.json
        if let problem = schema.validateResponse(json, maxErrors: 1).first {
            configuration.reportInternalError("\(command ?? "request"): invalid response at \(problem.instancePointer)")
            let fallback = RPCResponse.failure(.internal)
            return RPCOutcome(response: fallback, body: fallback.encodedBytes(), command: command, unauthenticated: false)
        }
        return RPCOutcome(response: response, body: json.serialized(), command: command, unauthenticated: unauthenticated)
    }
}
