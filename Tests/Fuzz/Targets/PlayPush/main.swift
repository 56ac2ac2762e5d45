@testable import GooglePlay
import BadgeCore
import FuzzSupport
import JSON

/// A Pub/Sub push of a Play developer notification (`PlayDeveloperNotification.read`: the push
/// envelope, base64 `message.data`, the DeveloperNotification inside), and the claims check of
/// the push's OIDC token (`PushAuthenticator.check`, on the same bytes read as a claims object).
/// Beyond not crashing: what is read carries a non-empty message id of at most 256 bytes, and a
/// voided or subscription event names a non-empty purchase token.
let authenticator = PushAuthenticator(audience: "https://badges.example.net/webhooks/google",
                                      serviceAccountEmail: "push@example.iam.gserviceaccount.com",
                                      keys: GoogleKeyCache(timeoutSeconds: 1, maxResponseBytes: 1))

fuzzMain { bytes in
    let body = Array(bytes)
    if let notification = try? PlayDeveloperNotification.read(body) {
        guard !notification.messageId.isEmpty, notification.messageId.utf8.count <= 256 else {
            fatalError("a message id of \(notification.messageId.utf8.count) bytes was read")
        }
        switch notification.event {
        case .voided(let token, _, _), .subscription(_, let token):
            guard !token.isEmpty else { fatalError("an event without a purchase token was read") }
        case .testNotification, .other:
            break
        }
    }
    if let claims = try? JSONValue.parse(body).objectValue {
        _ = try? authenticator.check(claims, now: 1_767_225_600)
    }
}
