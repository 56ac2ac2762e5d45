import BadgeCore
import Crypto
import FuzzSupport
import Providers

/// The payment webhooks: `Stripe-Signature` (its `t=…,v1=…` list, the timestamp, the HMAC) with
/// Stripe's event parsing, and `BTCPay-Sig` (`sha256=<hex>`) with BTCPay's delivery parsing.
/// The input's first line is the signature header, the rest the body. The first byte picks
/// whether the header is used as it is (the header parsers) or replaced by a correct signature
/// of the body (so the body parsers behind the HMAC are reached too).
///
/// Beyond not crashing: a correctly signed body is never refused as mis-signed, a header as it
/// is never verifies unless it carries that correct signature, and Stripe's event is the same
/// read through the verified path or directly.
let secret = "whsec_fuzz-secret"
let stripe = StripeWebhook(secret: secret, toleranceSeconds: 300)
let btcpay = BTCPayWebhook(secret: secret)
let now = Timestamp(seconds: 1_767_225_600)

fuzzMain { bytes in
    var input = FuzzInput(bytes)
    let signBody = input.byte() & 1 == 1
    let rest = Array(input.rest)
    let newline = rest.firstIndex(of: 0x0A) ?? rest.count
    let header = lossyText(rest[..<newline])
    let body = newline < rest.count ? Array(rest[(newline + 1)...]) : []
    let stripeMAC = Hex.encode(HMACSHA256.authenticate(Array("\(now.seconds).".utf8) + body, key: Array(secret.utf8)))
    let btcpayMAC = Hex.encode(HMACSHA256.authenticate(body, key: Array(secret.utf8)))

    let stripeHeader = signBody ? "t=\(now.seconds),v1=\(stripeMAC)" : header
    do throws(WebhookRefusal) {
        let event = try stripe.event(body: body, signatureHeader: stripeHeader, now: now)
        guard (try? StripeWebhook.parse(body)) == event else { fatalError("Stripe event differs read directly") }
        guard signBody || header.lowercased().contains(stripeMAC) else { fatalError("Stripe-Signature \(header) verified without the MAC") }
    } catch {
        if signBody, refusesSignature(error) { fatalError("a correctly signed Stripe body was refused: \(error)") }
    }

    let btcpayHeader = signBody ? "sha256=\(btcpayMAC)" : header
    do throws(WebhookRefusal) {
        _ = try btcpay.delivery(body: body, signatureHeader: btcpayHeader)
        guard signBody || header.lowercased().contains(btcpayMAC) else { fatalError("BTCPay-Sig \(header) verified without the MAC") }
    } catch {
        if signBody, refusesSignature(error) { fatalError("a correctly signed BTCPay body was refused: \(error)") }
    }
}

/// A refusal of the signature itself rather than of the event it signs.
func refusesSignature(_ refusal: WebhookRefusal) -> Bool {
    switch refusal {
    case .missingSignature, .malformedSignature, .signatureMismatch, .stale: true
    default: false
    }
}
