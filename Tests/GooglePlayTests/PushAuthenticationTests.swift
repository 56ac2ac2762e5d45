import BadgeCore
import Foundation
import GooglePlay
import JSON
import Locking
import TestSupport
import Testing

/// The Pub/Sub push authentication of `POST /webhooks/google`: OIDC tokens made by google-auth's
/// own signer (Tests/Peers/google_auth_peer.py), keys served as a JWKS by ``FakeGoogle`` on
/// 127.0.0.1, which also plays the JWKS failing.
@Suite(.serialized, .timeLimit(.minutes(5))) struct PushAuthenticationTests {
    static let audience = "https://badges.example/webhooks/google"
    static let email = "pubsub-push@badge-test.iam.gserviceaccount.com"
    static let route = "/oauth2/v3/certs"

    static func key(kid: String) throws -> (pem: String, jwks: String) { try PushAuthenticationKeys.make(kid: kid) }

    static func token(_ pem: String, kid: String, now: Int64, _ changes: JSONObject = [:]) throws -> String {
        try PushAuthenticationKeys.token(pem, kid: kid, audience: audience, email: email, now: now, changes)
    }

    static func authenticator(_ base: String, floor: Int64 = 60, timeout: Double = 2) -> PushAuthenticator {
        PushAuthenticator(audience: audience, serviceAccountEmail: email,
                          keys: GoogleKeyCache(url: base + route, timeoutSeconds: timeout, maxResponseBytes: 64 * 1024,
                                               refetchFloorSeconds: floor))
    }

    static func verdict(_ push: PushAuthenticator, _ token: String, now: Int64) -> PushRefusal? {
        do throws(PushRefusal) { try push.authenticate(authorization: "Bearer " + token, now: Timestamp(seconds: now)); return nil } catch {
            return error
        }
    }

    /// Every variant judged by this service and by google-auth's `verify_token` (with
    /// `verify_oauth2_token`'s issuer check) against the same JWKS: they agree, except where this
    /// service checks more than google-auth does (the push account's `email` and
    /// `email_verified`, which Google documents for push authentication), each named.
    @Test func everyVariantIsJudgedAsGoogleAuthJudgesIt() throws {
        let (pem, jwks) = try Self.key(kid: "k-1")
        let (otherPEM, _) = try Self.key(kid: "k-1")
        let fake = FakeGoogle()
        fake.script("GET", Self.route, .json(200, jwks, headers: ["Cache-Control": "public, max-age=600"]))
        let now = Int64(Date().timeIntervalSince1970)
        let variants: [(String, String, Bool)] = [
            ("valid", try Self.token(pem, kid: "k-1", now: now), true),
            ("issuer without scheme", try Self.token(pem, kid: "k-1", now: now, ["iss": "accounts.google.com"]), true),
            ("audience in a list", try Self.token(pem, kid: "k-1", now: now, ["aud": [.string(Self.audience)]]), true),
            ("another audience", try Self.token(pem, kid: "k-1", now: now, ["aud": "https://elsewhere.example/push"]), false),
            ("another issuer", try Self.token(pem, kid: "k-1", now: now, ["iss": "https://evil.example"]), false),
            ("expired an hour ago", try Self.token(pem, kid: "k-1", now: now, ["iat": .number(JSONNumber(Int(now) - 7200)),
                                                                           "exp": .number(JSONNumber(Int(now) - 3600))]), false),
            ("issued an hour ahead", try Self.token(pem, kid: "k-1", now: now, ["iat": .number(JSONNumber(Int(now) + 3600)),
                                                                            "exp": .number(JSONNumber(Int(now) + 7200))]), false),
            ("signed by another key under the same kid", try Self.token(otherPEM, kid: "k-1", now: now), false),
            ("an unknown kid", try Self.token(pem, kid: "k-2", now: now), false),
        ]
        let serviceOnly: [(String, String)] = [
            ("another service account", try Self.token(pem, kid: "k-1", now: now, ["email": "someone@badge-test.iam.gserviceaccount.com"])),
            ("email not verified", try Self.token(pem, kid: "k-1", now: now, ["email_verified": false])),
            ("no email", try Self.token(pem, kid: "k-1", now: now, ["email": .null])),
        ]
        try fake.serve { base in
            let push = Self.authenticator(base)
            func googleAuth(_ token: String) throws -> Bool {
                let out = try PeerPython.run(script: "google_auth_peer.py", arguments: ["verify-id-token", base + Self.route, Self.audience],
                                             input: Data(token.utf8))
                return try JSONValue.parse(Array(out))["ok"] == .bool(true)
            }
            for (name, token, accepted) in variants {
                let ours = Self.verdict(push, token, now: now)
                #expect((ours == nil) == accepted, "\(name): \(String(describing: ours))")
                #expect(try googleAuth(token) == accepted, "\(name): google-auth disagrees")
            }
            // google-auth's verify_token does not look at the email: accepted there, refused here.
            for (name, token) in serviceOnly {
                #expect(Self.verdict(push, token, now: now) != nil, "\(name)")
                #expect(try googleAuth(token), "\(name): google-auth refused it")
            }
            // One fetch served them all (the unknown kid came within the refetch floor).
            #expect(push.keys.fetches == 1)
            // What google-auth never sees: the header.
            let tampered = try Self.token(pem, kid: "k-1", now: now).split(separator: ".").map(String.init)
            let otherClaims = Base64URL.encode(Array(#"{"iss":"https://accounts.google.com","aud":"x"}"#.utf8), padded: false)
            for (name, authorization) in [("no bearer", "Basic abc"), ("not a JWT", "Bearer abc.def"),
                                          ("claims swapped", "Bearer \(tampered[0]).\(otherClaims).\(tampered[2])"),
                                          ("alg none", "Bearer " + Base64URL.encode(Array(#"{"alg":"none","kid":"k-1"}"#.utf8), padded: false)
                                            + "." + tampered[1] + ".")] {
                do throws(PushRefusal) {
                    try push.authenticate(authorization: authorization, now: Timestamp(seconds: now))
                    Issue.record("\(name) accepted")
                } catch {
                    guard case .refused = error else { Issue.record("\(name): \(error)"); continue }
                }
            }
            do throws(PushRefusal) {
                try push.authenticate(authorization: nil, now: Timestamp(seconds: now))
                Issue.record("no header accepted")
            } catch {
                #expect(error == .refused("no Authorization header"))
            }
        }
    }

    /// The key set is kept for its max-age; an unknown kid fetches again at most once per floor;
    /// a JWKS that times out, fails, is garbage or over the cap is `unavailable` (503), not
    /// fetched again for five seconds, and the next fetch after that recovers.
    @Test func theKeySetIsCachedRefetchedWithAFloorAndItsOutagesAreUnavailable() throws {
        let (pem, jwks) = try Self.key(kid: "k-1")
        let (newPEM, newJWKS) = try Self.key(kid: "k-2")
        let now = Int64(Date().timeIntervalSince1970)
        let valid = try Self.token(pem, kid: "k-1", now: now)
        let rotated = try Self.token(newPEM, kid: "k-2", now: now)
        let fake = FakeGoogle()
        fake.script("GET", Self.route, .json(200, jwks, headers: ["Cache-Control": "public, max-age=300, must-revalidate"]))
        try fake.serve { base in
            let push = Self.authenticator(base, floor: 60, timeout: 1)
            #expect(Self.verdict(push, valid, now: now) == nil)
            #expect(Self.verdict(push, valid, now: now + 299) == nil)
            #expect(push.keys.fetches == 1)
            // Past max-age: fetched again.
            #expect(Self.verdict(push, valid, now: now + 301) == nil)
            #expect(push.keys.fetches == 2)
            // Google rotates: the new kid fetches once; until the floor, another unknown kid does not.
            fake.script("GET", Self.route, .json(200, newJWKS, headers: ["Cache-Control": "max-age=300"]))
            #expect(Self.verdict(push, rotated, now: now + 302) != nil)  // fetched at +301: within the floor
            #expect(push.keys.fetches == 2)
            #expect(Self.verdict(push, rotated, now: now + 362) == nil)
            #expect(push.keys.fetches == 3)
            #expect(Self.verdict(push, valid, now: now + 363) == .refused("the token's key id is not one of Google's current keys"))
            #expect(push.keys.fetches == 3)

            // Outages once the set has expired: each unavailable, and nothing fetched again within the floor.
            var t = now + 1000
            for (name, answer) in [("5xx", FakeGoogle.Answer.json(503, "busy")), ("garbage", .json(200, "<html>")),
                                   ("no RSA key", .json(200, #"{"keys":[{"kty":"EC","kid":"k-2"}]}"#)),
                                   ("over the cap", .json(200, String(repeating: " ", count: 70 * 1024) + newJWKS)),
                                   // 4 s, so the answer cannot race the 1 s timeout (or its 2 s backstop) on a loaded machine; 2 s left it 1 s.
                                   ("slow", .json(200, newJWKS, delay: 4))] {
                fake.script("GET", Self.route, answer)
                let fetches = push.keys.fetches
                guard case .unavailable? = Self.verdict(push, rotated, now: t) else {
                    Issue.record("\(name): not unavailable")
                    continue
                }
                #expect(push.keys.fetches == fetches + 1, "\(name)")
                guard case .unavailable? = Self.verdict(push, rotated, now: t + 4) else { Issue.record("\(name): refetched"); continue }
                #expect(push.keys.fetches == fetches + 1, "\(name): fetched within the failure floor")
                t += 6
            }
            fake.script("GET", Self.route, .json(200, newJWKS))
            #expect(Self.verdict(push, rotated, now: t) == nil)
        }
    }

    /// A fetch that hangs holds no push back whose key is kept: it is answered from the set at
    /// once, one that needs the fetch is unavailable, and the fetch still lands.
    @Test func aSlowFetchHoldsNoPushWhoseKeyIsKept() throws {
        let (pem, jwks) = try Self.key(kid: "k-1")
        let (newPEM, newJWKS) = try Self.key(kid: "k-2")
        let keys = try [jwks, newJWKS].flatMap { try #require(try JSONValue.parse(Array($0.utf8))["keys"]?.arrayValue) }
        let both = String(decoding: JSONValue.object(["keys": .array(keys)]).serialized(), as: UTF8.self)
        let now = Int64(Date().timeIntervalSince1970)
        let valid = try Self.token(pem, kid: "k-1", now: now)
        let rotated = try Self.token(newPEM, kid: "k-2", now: now)
        let fake = FakeGoogle()
        fake.script("GET", Self.route, .json(200, jwks, headers: ["Cache-Control": "max-age=300"]),
                    .json(200, both, delay: 3, headers: ["Cache-Control": "max-age=300"]))
        try fake.serve { base in
            let push = Self.authenticator(base, floor: 60, timeout: 8)
            #expect(Self.verdict(push, valid, now: now) == nil)
            let slow = LockedValueBox<PushRefusal??>(nil)
            let landed = DispatchSemaphore(value: 0)
            DispatchQueue.global().async {
                let verdict = Self.verdict(push, rotated, now: now + 100)
                slow.withLock { $0 = .some(verdict) }
                landed.signal()
            }
            while push.keys.fetches < 2 { Thread.sleep(forTimeInterval: 0.01) }
            let started = Date()
            #expect(Self.verdict(push, valid, now: now + 100) == nil)
            #expect(Self.verdict(push, rotated, now: now + 100) == .unavailable("Google's keys are being fetched"))
            #expect(Date().timeIntervalSince(started) < 2, "a kept key waited for the fetch")
            #expect(slow.withLock { $0 } == nil, "the fetch ended before the kept key was asked for")
            landed.wait()
            #expect(slow.withLock { $0 } == .some(nil))
            #expect(Self.verdict(push, rotated, now: now + 101) == nil)
            #expect(push.keys.fetches == 2)
        }
    }
}
