import BadgeCore
import Crypto
import RequestAuth
import Testing

/// A gateway prechecks on its event loop and verifies on a worker from what the precheck kept
/// (`prepare`, then `verify(_:now:)` of the prechecked request): every verdict must be the one
/// a full verification of the same request at the worker's time gives.
@Suite struct PrecheckedVerificationTests {
    let key = Ed25519PrivateKey()
    let verifier = RequestSignatureVerifier()

    var requests: [(String, SignedRequest)] {
        var tampered = Fixture.signed(key: key)
        tampered.body[3] ^= 0x01
        var forged = Fixture.signed(key: key)
        forged = forged.setting("Signature", "sig1=:\(Base64URL.encodeStandard([UInt8](repeating: 7, count: 64))):")
        return [
            ("valid", Fixture.signed(key: key)),
            ("unsigned", Fixture.request()),
            ("tampered body", tampered),
            ("forged signature", forged),
            ("no digest", Fixture.signed(Fixture.request().setting("Content-Digest", nil), key: key)),
            ("expires soon", Fixture.signed(key: key, components: Fixture.defaultComponents,
                                            parameters: ";created=\(Fixture.now.seconds);keyid=\"\(key.publicKey.purchaseKeyText)\";expires=\(Fixture.now.seconds + 10)")),
        ]
    }

    @Test(arguments: [Int64(0), 5, 20, 299, 301, 3600])
    func sameVerdictAsAFullVerificationLater(by seconds: Int64) {
        let later = Fixture.now.adding(seconds: seconds)
        for (name, request) in requests {
            for bodyReceived in [true, false] {
                let expected = verifier.verify(request, now: later)
                switch verifier.prepare(request, now: Fixture.now, bodyReceived: bodyReceived) {
                case .failure(let failure):
                    // Refused up front: a full verification then refuses it for the same reason.
                    #expect(verifier.verify(request, now: Fixture.now) == .invalid(failure), "\(name)")
                case .success(let prechecked):
                    #expect(verifier.verify(prechecked, now: later) == expected, "\(name), \(seconds) s later, body \(bodyReceived)")
                }
            }
        }
    }

    @Test func theAuthenticatorCarriesPrechecksToo() {
        let authenticator = RequestAuthenticator()
        let later = Fixture.now.adding(seconds: 400)
        guard case .success(let prechecked) = authenticator.prepare(Fixture.signed(key: key), now: Fixture.now, bodyReceived: true)
        else { Issue.record("a valid request failed its precheck"); return }
        guard case .valid(let signer) = authenticator.authenticate(prechecked, now: Fixture.now) else {
            Issue.record("a valid request failed its verification"); return
        }
        #expect(signer.publicKey == key.publicKey)
        // Queued past the freshness window: stale, as a full verification at that time says.
        #expect(authenticator.authenticate(prechecked, now: later) == .invalid(.signatureStale))
    }
}
