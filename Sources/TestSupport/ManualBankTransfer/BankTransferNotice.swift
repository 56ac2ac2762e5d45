import BadgeCore
import JSON
import Providers

/// The bank's signed notice that a transfer arrived (or went back): `Bank-Signature:
/// sha256=<hex HMAC-SHA256 of the body>` over `{"id", "type", "reference", "orderId", "amount",
/// "currency"}`, `amount` decimal text in whole units.
struct BankTransferNotice {
    static let signatureHeader = "Bank-Signature"

    /// The notice read into a payment event, once its signature checks.
    static func event(_ body: [UInt8], signature header: String?, secret: BodyHMAC) throws(WebhookRefusal) -> PaymentEvent {
        try secret.verify(body, header: header)
        guard let json = try? JSONParser().parse(body), json.objectValue != nil else { throw .malformedEvent("not a JSON object") }
        guard let id = json["id"]?.stringValue, !id.isEmpty, let type = json["type"]?.stringValue else {
            throw .malformedEvent("no id or type")
        }
        guard type == "transfer.received" else { return PaymentEvent(id: id, change: .other(type)) }
        guard let reference = json["reference"]?.stringValue, !reference.isEmpty else { throw .malformedEvent("no reference") }
        let currency = json["currency"]?.stringValue
        let amount = json["amount"]?.stringValue.flatMap { text in currency.flatMap { CurrencyUnits.minorUnits(decimalText: text, currency: $0) } }
        return PaymentEvent(id: id, change: .settled(PaymentSettlement(providerRef: reference, orderId: json["orderId"]?.stringValue,
                                                                      amount: amount, currency: currency, paymentRef: id)))
    }
}
