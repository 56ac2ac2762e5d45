import AppStore
import AppStoreSigning
import FuzzSupport
import JSON

/// An App Store Server Notification V2 as `POST /webhooks/apple` reads it: the body's
/// `{"signedPayload": …}`, then `AppStoreVerifier.notification` (the payload's JWS, chain and
/// signature, its fields, `data` or a summary's bundle id, and the nested
/// `signedTransactionInfo` verified as a transaction). The first byte picks how the rest is used:
///
/// - even: the request body as it is;
/// - odd: the notification payload, signed by the test PKI's leaf; when bit 1 is set and the
///   payload's `data.signedTransactionInfo` is a JSON object, that object is signed too and put
///   there as its JWS, so the nested transaction is decoded as well.
///
/// Beyond not crashing: a verified notification has a non-empty UUID, and its transaction (if
/// any) is for this bundle in the notification's environment.
let signer = AppStoreSigner()
let verifier = AppStoreVerifier(roots: AppleRootCertificates(der: [signer.rootDER])!, bundleId: signer.bundleId)

fuzzMain { bytes in
    var input = FuzzInput(bytes)
    let mode = input.byte()
    let rest = Array(input.rest)
    let signed: String
    if mode & 1 == 0 {
        guard let json = try? JSONParser().parse(rest), let text = json["signedPayload"]?.stringValue else { return }
        signed = text
    } else if mode & 2 != 0, case .object(var payload)? = try? JSONParser().parse(rest),
              case .object(var data)? = payload["data"], let inner = data["signedTransactionInfo"], inner.objectValue != nil {
        data["signedTransactionInfo"] = .string(signer.jws(payload: inner.serialized()))
        payload["data"] = .object(data)
        signed = signer.jws(payload: JSONValue.object(payload).serialized())
    } else {
        signed = signer.jws(payload: rest)
    }
    guard let notification = try? verifier.notification(signedPayload: signed) else { return }
    guard !notification.notificationUUID.isEmpty else { fatalError("a notification without its UUID verified") }
    if let transaction = notification.transaction {
        guard transaction.bundleId == signer.bundleId, transaction.environment == notification.environment else {
            fatalError("a notification's transaction for another bundle or environment verified")
        }
    }
}
