import BadgeCore
import Crypto
import Dispatch
import GooglePlay
import Handlers
import Locking
import Schema
import Storage
import TestSupport
import Testing

/// The purchase path's budget of Play subscription checks is the deployment's: two gateways over
/// one PostgreSQL database (whatever backend the suite runs on) share 300 checks a minute, and a
/// subscription transferBadge credits for the first time spends from the same budget.
@Suite(.serialized) struct SharedPlayBudgetTests {
    /// A gateway over `store` whose Play budget counts through it, asking `fake` at `base`.
    static func gateway(over store: PostgresBadgeStore, _ fake: FakeGoogle, _ base: String) throws -> Harness {
        try Harness(over: store, googlePlay: { clock in
            let endpoint = GooglePlayEndpoint(packageName: fake.package, apiURL: base, tokenURL: base + "/token",
                                              timeoutSeconds: 10, maxResponseBytes: 64 * 1024)
            let client = GooglePlayClient(endpoint: endpoint, key: try! ServiceAccountKey(json: Array(PeerServiceAccount.shared.keyJSON.utf8)),
                                          clock: { clock().seconds })
            return GooglePlayFunding(client: client, subscriptionChecks: PlayCheckLimiter(clock: clock))
                .countingChecks(through: store)
        })
    }

    static func token(_ i: Int) -> String { "sharedbudget.AO-J1OwSub_\(i)" }

    @Test func twoGatewaysOverOneDatabaseAskPlayAboutAtMostThreeHundredSubscriptionsAMinute() throws {
        let fake = FakeGoogle()
        let tokens = (0..<601).map(Self.token)
        for token in tokens {
            fake.script("GET", GooglePlayPurchaseTests.subscriptionRoute(token),
                        .json(200, GooglePlayPurchaseTests.subscription(acknowledged: true)))
        }
        let database = try StoreBackend.postgres.makeDatabase(in: TemporaryDirectory("shared-budget"))
        guard case .postgres(let settings) = database else { Issue.record("not a PostgreSQL database"); return }
        try fake.serve { base in
            let gateways = [try Self.gateway(over: try PostgresBadgeStore(settings: settings), fake, base),
                            try Self.gateway(over: try PostgresBadgeStore(settings: settings), fake, base)]
            // Both on one minute of the clock, as instances started together are.
            for g in gateways { g.clock.now = Timestamp(CivilDate(year: 2026, month: 3, day: 10), hour: 11) }
            let outcomes = LockedValueBox<[ErrorCode?]>([])
            DispatchQueue.concurrentPerform(iterations: 600) { i in
                let out = GooglePlayPurchaseTests.buy(gateways[i % 2], token: tokens[i], product: GooglePlayPurchaseTests.subscriptionProduct)
                outcomes.withLock { $0.append(out.credential != nil ? nil : out.error) }
            }
            let reads = fake.apiCalls.filter { $0.route.contains("subscriptionsv2") }.count
            #expect(reads == 300, "Play was asked about \(reads) subscriptions in the minute")
            let answers = outcomes.withLock { $0 }
            #expect(answers.filter { $0 == nil }.count == 300)
            #expect(answers.filter { $0 == .rateLimited }.count == 300)

            // transferBadge crediting a subscription no key holds is a purchase: the spent budget
            // holds it off too, and Play is not asked.
            let transfer = gateways[1].send(.transferBadge(masterKey: SecureRandom.bytes(32),
                                                           payment: .google(productId: GooglePlayPurchaseTests.subscriptionProduct,
                                                                            token: tokens[600])), by: Ed25519PrivateKey())
            #expect(transfer.error == .rateLimited, "\(transfer.response)")
            #expect(fake.apiCalls.filter { $0.route.contains("subscriptionsv2") }.count == 300)

            // The next minute of the clock has its own 300.
            for g in gateways { g.clock.now = g.clock.now.adding(seconds: 60) }
            let later = gateways[0].send(.transferBadge(masterKey: SecureRandom.bytes(32),
                                                        payment: .google(productId: GooglePlayPurchaseTests.subscriptionProduct,
                                                                         token: tokens[600])), by: Ed25519PrivateKey())
            #expect(later.credential != nil, "\(later.response)")
        }
    }
}
