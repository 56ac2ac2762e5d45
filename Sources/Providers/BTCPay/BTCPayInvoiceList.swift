import BadgeCore
import JSON

extension BTCPayInvoices {
    /// Invoices asked for per page (`take`).
    public static let listPageSize = 100

    /// The settled invoices of the store created at or after `since`:
    /// `GET /api/v1/stores/{storeId}/invoices` with `startDate`, `status=Settled`, `skip` and
    /// `take`, page after page until one comes back short. Late payments are `Settled` too.
    public func settlements(createdSince since: Timestamp) throws(PaymentProviderError) -> [ListedSettlement] {
        var listed: [ListedSettlement] = []
        var skip = 0
        for _ in 0..<maximumListPages {
            let query = [("startDate", String(since.seconds)), ("status", "Settled"), ("skip", String(skip)),
                         ("take", String(Self.listPageSize))]
            let page = try call("GET", storePath + "?" + String(decoding: FormEncoding.encode(query), as: UTF8.self), body: nil,
                                what: "listing invoices")
            guard let invoices = page.arrayValue else { throw .unavailable("listing invoices: the answer is not a list") }
            for invoice in invoices {
                guard let id = invoice["id"]?.stringValue, !id.isEmpty, id.allSatisfy({ $0.isLetter || $0.isNumber }) else {
                    throw .unavailable("listing invoices: an invoice without a usable id")
                }
                let state = try Self.state(of: invoice, what: "listing invoices")
                listed.append(ListedSettlement(providerRef: id, orderId: state.orderId, change: state.change(providerRef: id)))
            }
            guard invoices.count == Self.listPageSize else { return listed }
            skip += invoices.count
        }
        throw .unavailable("listing invoices: more than \(maximumListPages) pages")
    }
}
