import BadgeCore
import JSON

/// A verified BTCPay delivery. It is only a hint: settlement re-reads the invoice it names.
public struct BTCPayDelivery: Hashable, Sendable {
    /// `originalDeliveryId` when this is a redelivery, else `deliveryId`: one id per event.
    public var eventId: String
    /// `InvoiceSettled`, `InvoiceExpired`, …
    public var type: String
    /// BTCPay's invoice id, when the event is about an invoice.
    public var invoiceId: String?
    public var storeId: String?

    public init(eventId: String, type: String, invoiceId: String?, storeId: String?) {
        self.eventId = eventId
        self.type = type
        self.invoiceId = invoiceId
        self.storeId = storeId
    }
}

/// Verifies `BTCPay-Sig: sha256=<hex HMAC-SHA256 of the raw body>` keyed by the webhook secret,
/// in constant time (``BodyHMAC``), and reads the delivery.
public struct BTCPayWebhook: Sendable {
    let signature: BodyHMAC

    public init(secret: String) { signature = BodyHMAC(secret: secret, scheme: "sha256=") }

    public func delivery(body: [UInt8], signatureHeader: String?) throws(WebhookRefusal) -> BTCPayDelivery {
        try signature.verify(body, header: signatureHeader)
        guard let json = try? JSONParser().parse(body), json.objectValue != nil else { throw .malformedEvent("not a JSON object") }
        guard let type = json["type"]?.stringValue else { throw .malformedEvent("no type") }
        let original = json["originalDeliveryId"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 }
        guard let eventId = original ?? json["deliveryId"]?.stringValue, !eventId.isEmpty else {
            throw .malformedEvent("no deliveryId")
        }
        return BTCPayDelivery(eventId: eventId, type: type, invoiceId: json["invoiceId"]?.stringValue,
                              storeId: json["storeId"]?.stringValue)
    }
}
