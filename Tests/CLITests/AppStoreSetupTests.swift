import BadgeCore
import CLI
import Glibc
import Foundation
import Handlers
import JSON
import TestSupport
import Testing

/// What `serve` deploys for `[apple]`: the subscription store only with the App Store Server API
/// key, built on the section's URLs and limits; a key file that is no key stops it in one line.
@Suite(.timeLimit(.minutes(5))) struct AppStoreSetupTests {
    @Test func theSubscriptionStoreIsDeployedWithTheAPIKeyOnly() async throws {
        // The fake starts on a thread of its own, never holding one of the test pool's few threads.
        let fake = try await onOwnThread { try FakeAppStore() }
        var settings = AppleStoreSettings()
        settings.bundleID = fake.bundleId
        settings.rootCertificates = fake.files.file("root.pem")
        #expect(try settings.deployment(creditsSandbox: false).subscriptions(products: { .upstream }) == nil)

        settings.issuerID = fake.issuerId
        settings.keyID = fake.keyId
        settings.privateKeyFile = fake.files.file("key.p8")
        settings.apiURL = fake.productionURL + "/"
        settings.sandboxAPIURL = fake.sandboxURL
        settings.timeout = 3
        settings.maxResponseBytes = 65536
        let store = try #require(try settings.deployment(creditsSandbox: false).subscriptions(products: { .upstream }))
        #expect(store.name == "apple" && store.api.productionURL == fake.productionURL && store.api.sandboxURL == fake.sandboxURL)
        #expect(store.api.timeoutSeconds == 3 && store.api.maxResponseBytes == 65536)
        // The deployed store reads through the configured URL with the configured key.
        let now = Timestamp(seconds: Int64(Date().timeIntervalSince1970))
        let ms = Int(now.seconds) * 1000
        try fake.script("2000000500000001", transaction: ["purchaseDate": .number(JSONNumber(ms - 86_400_000)),
                                                         "expiresDate": .number(JSONNumber(ms + 29 * 86_400_000))])
        #expect(try store.read(reference: "2000000500000001", now: now).state == .renewing)
        #expect(try fake.requests().first?["tokenAccepted"] == .bool(true))
        // An answer over the cap is internal.
        try fake.script("2000000500000002", mode: "huge")
        #expect(throws: SubscriptionRefusal.self) { try store.read(reference: "2000000500000002", now: now) }

        settings.privateKeyFile = fake.files.file("root.pem")
        chmod(fake.files.file("root.pem"), 0o644)
        #expect { try settings.deployment(creditsSandbox: false) } throws: {
            "\($0)" == "[apple] private_key \(fake.files.file("root.pem")) has mode 0644: readable by others; chmod 600 it"
        }
        chmod(fake.files.file("root.pem"), 0o600)
        do {
            _ = try settings.deployment(creditsSandbox: false)
            Issue.record("a certificate taken for a .p8")
        } catch {
            let line = "\(error)"
            #expect(line.hasPrefix("[apple] private_key: \(fake.files.file("root.pem")): ") && !line.contains("\n"), "\(line)")
        }
    }
}
