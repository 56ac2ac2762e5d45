import BadgeCore
import JSON

extension StripeCheckout {
    /// Sessions asked for per page: Stripe's largest `limit`.
    public static let listPageSize = 100

    /// The paid Checkout Sessions created at or after `since`: `GET /v1/checkout/sessions` with
    /// `created[gte]`, `status=complete` and `limit`, following `starting_after` while `has_more`.
    /// A complete session not paid yet (a delayed payment method) is left out: its
    /// `async_payment_succeeded` makes it paid.
    public func settlements(createdSince since: Timestamp) throws(PaymentProviderError) -> [ListedSettlement] {
        var listed: [ListedSettlement] = []
        var after: String?
        for _ in 0..<maximumListPages {
            var query = [("created[gte]", String(since.seconds)), ("status", "complete"), ("limit", String(Self.listPageSize))]
            if let after { query.append(("starting_after", after)) }
            let url = account.api.baseURL + "/v1/checkout/sessions?" + String(decoding: FormEncoding.encode(query), as: UTF8.self)
            let page = try send("GET", url: url, headers: [
                ("Authorization", "Bearer " + account.secretKey), ("Accept", "application/json"),
            ], body: nil, call: "listing Checkout Sessions")
            guard let sessions = page["data"]?.arrayValue, case .bool(let hasMore)? = page["has_more"] else {
                throw .unavailable("listing Checkout Sessions: the answer is not a list")
            }
            for session in sessions {
                guard let id = session["id"]?.stringValue, !id.isEmpty else {
                    throw .unavailable("listing Checkout Sessions: a session without an id")
                }
                guard session["status"]?.stringValue == "complete", session["payment_status"]?.stringValue == "paid" else { continue }
                // Matched on client_reference_id as the webhook's session is; the metadata tag
                // (which our sessions carry too) names the order in the operator's report.
                let reference = session["client_reference_id"]?.stringValue
                let paid = PaymentSettlement(providerRef: id, orderId: reference,
                                             amount: session["amount_total"]?.numberValue?.exactInt.flatMap(UInt64.init(exactly:)),
                                             currency: session["currency"]?.stringValue,
                                             paymentRef: session["payment_intent"]?.stringValue)
                listed.append(ListedSettlement(providerRef: id, orderId: session["metadata"]?["invoice_id"]?.stringValue ?? reference,
                                               change: .settled(paid)))
            }
            guard hasMore else { return listed }
            guard let last = sessions.last?["id"]?.stringValue else {
                throw .unavailable("listing Checkout Sessions: has_more with an empty page")
            }
            after = last
        }
        throw .unavailable("listing Checkout Sessions: more than \(maximumListPages) pages")
    }
}
