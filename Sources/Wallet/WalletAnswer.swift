import BadgeCore
import JSON
import Storage

/// One answer of a wallet route: the HTTP status, the JSON body, and a short result for the
/// access log and metrics (`credited`, `replayed`, or the error code).
public struct WalletAnswer: Sendable, Equatable {
    public let status: Int
    public let body: [UInt8]
    /// Seconds for `Retry-After`, with payment_pending and provider_unavailable.
    public let retryAfter: UInt32?
    public let result: String

    init(_ value: JSONValue, result: String) {
        status = 200
        body = value.serialized()
        retryAfter = nil
        self.result = result
    }

    init(_ refusal: WalletRefusal) {
        var error: JSONObject = ["code": .string(refusal.code.rawValue), "message": .string(refusal.message)]
        if let retryAfter = refusal.retryAfter { error["retryAfter"] = .number(JSONNumber(Int(retryAfter))) }
        status = refusal.code.httpStatus
        body = JSONValue.object(["error": .object(error)]).serialized()
        retryAfter = refusal.retryAfter
        result = refusal.code.rawValue
    }

    /// The refusal of a request whose signature did not verify (`reason` names the check).
    public static func unauthenticated(_ reason: String) -> WalletAnswer { WalletAnswer(WalletRefusal(.unauthenticated, reason)) }

    /// Too many failed attempts from this address; retry after `retryAfter` seconds.
    public static func rateLimited(_ reason: String, retryAfter: UInt32) -> WalletAnswer {
        WalletAnswer(WalletRefusal(.rateLimited, reason, retryAfter: retryAfter))
    }

    /// A body that is not JSON of the route's request definition.
    public static func badRequest(_ reason: String) -> WalletAnswer { WalletAnswer(WalletRefusal(.badRequest, reason)) }
}

/// The wire forms of `schema/wallet.schema.json`.
enum WalletWire {
    static func row(_ row: CoinRow) -> JSONValue {
        var o: JSONObject = [
            "kind": .string(row.kind.rawValue), "channel": .string(row.channel), "packId": .string(row.packId),
            "coins": .number(JSONNumber(Int(row.coins))), "grossUsdCents": .number(JSONNumber(Int(row.grossUsdCents))),
            "netUsdCents": .number(JSONNumber(Int(row.netUsdCents))), "createdAt": .string(RFC3339.format(row.createdAt)),
        ]
        if let ref = row.externalRef { o["externalRef"] = .string(ref) }
        return .object(o)
    }

    static func packages(_ table: CoinPackTable) -> JSONValue {
        let packs: [JSONValue] = table.packs.map { pack in
            ["packId": .string(pack.packId), "coins": .number(JSONNumber(Int(pack.coins))),
             "grossUsdCents": .number(JSONNumber(Int(pack.grossUsdCents))),
             "netUsdCents": .number(JSONNumber(Int(table.netUsdCents(gross: pack.grossUsdCents)))),
             "appStoreProductId": .string(pack.appStoreProductId), "playProductId": .string(pack.playProductId)]
        }
        return ["storeFeePercent": .number(JSONNumber(table.storeFeePercent)), "packs": .array(packs)]
    }

    static func wallet(sum: Int64, rows: [CoinRow]) -> JSONValue {
        ["balance": .number(JSONNumber(Int(max(0, sum)))), "debt": .number(JSONNumber(Int(max(0, -sum)))),
         "rows": .array(rows.map(row))]
    }
}

extension WalletAnswer {
    /// A deployment without the wallet.
    public static let notDeployed = WalletAnswer(WalletRefusal(.providerNotConfigured, "this deployment has no coin wallet"))
    /// The worker queue, or this address's share of it, is full.
    public static let busy = WalletAnswer(WalletRefusal(.providerUnavailable, "the service is busy; retry", retryAfter: 1))

    /// `answer` with another status (415 for a body that is not JSON by its media type).
    public init(status: Int, _ answer: WalletAnswer) {
        self.status = status
        body = answer.body
        retryAfter = answer.retryAfter
        result = answer.result
    }
}
