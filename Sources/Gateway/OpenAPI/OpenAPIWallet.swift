import JSON
import Schema
import Wallet

/// The coin wallet's part of the OpenAPI document: its schemas translated from
/// `schema/wallet.schema.json` (served by no route of its own: it is in this document), and its
/// three routes with the statuses ``WalletRefusal/Code/httpStatus`` gives.
extension OpenAPIDocument {
    static func walletComponents() -> JSONObject {
        do {
            return try JSONSchemaTranslation(try JSONValue.parse(WalletSchema.text), options: .openAPI).definitionsObject
        } catch {
            // The embedded schema is a constant the tests check; failing here is a build defect.
            fatalError("the embedded wallet schema does not translate: \(error)")
        }
    }

    static func walletPaths() -> JSONObject {
        var paths = JSONObject()
        paths["/wallet/coin-packages"] = ["get": operation(
            id: "coinPackages", summary: "The coin packs on sale, with their coins, gross and net cents and store product ids (README, Coin wallet).",
            responses: walletResponses(codes: [.providerNotConfigured], success: ("coinPackages", "The pack table.")))]
        paths["/wallet"] = ["get": operation(
            id: "wallet", summary: "The signing account's coin balance, debt and newest ledger rows. Signed as `POST /rpc` is (the body is empty).",
            responses: walletResponses(codes: [.unauthenticated, .rateLimited, .internal, .providerNotConfigured, .providerUnavailable],
                                       success: ("wallet", "The balance and rows."))
            , security: [["httpMessageSignature": []], ["trustedFront": []]])]
        var purchase = walletResponses(codes: WalletRefusal.Code.allCases,
                                       success: ("walletPurchase", "Credited, or the same purchase presented again by the same account: the original row."))
        purchase["415"] = ["description": "`bad_request`: without `Content-Type: application/json`.",
                           "content": ["application/json": ["schema": ref("walletError")]]]
        paths["/wallet/coins/purchase"] = ["post": operation(
            id: "purchaseCoins",
            summary: "Credits a coin pack once its store confirmed the purchase server to server (Apple: Get Transaction Info; Google: purchases.products.get with the pack's product id); without `payment`, a dev grant when `[wallet] allow_dev_coin_grants` is on. One purchase funds one account, once.",
            requestBody: ["required": true, "content": ["application/json": ["schema": ref("walletPurchaseRequest")]]],
            responses: sortedByStatus(purchase), security: [["httpMessageSignature": []], ["trustedFront": []]])]
        return paths
    }

    /// The route's 200, its refusals by status (with the HTTP layer's where they share one), and the HTTP layer's others.
    static func walletResponses(codes: [WalletRefusal.Code], success: (schema: String, text: String)) -> JSONObject {
        var byStatus: [Int: [WalletRefusal.Code]] = [:]
        for code in codes { byStatus[code.httpStatus, default: []].append(code) }
        var responses = httpLayerResponses(besides: Set(byStatus.keys))
        responses["200"] = ["description": .string(success.text), "content": ["application/json": ["schema": ref(success.schema)]]]
        for (status, codes) in byStatus {
            var text = codes.map { "`\($0.rawValue)`" }.joined(separator: ", ")
            var schema = ref("walletError")
            if let refusal = HTTPLayerRefusal.statuses[status] {
                text += "; the HTTP layer's refusal (`httpError`): " + refusal
                schema = ["oneOf": [ref("walletError"), ref("httpError")]]
            }
            var response: JSONObject = ["description": .string(text), "content": ["application/json": ["schema": schema]]]
            if codes.contains(where: { $0 == .paymentPending || $0 == .providerUnavailable || $0 == .rateLimited }) || HTTPLayerRefusal.withRetryAfter.contains(status) {
                response["headers"] = retryAfterHeader
            }
            responses[String(status)] = .object(response)
        }
        return sortedByStatus(responses)
    }
}
