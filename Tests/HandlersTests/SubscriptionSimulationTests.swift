import BadgeCore
import Crypto
import Handlers
import Ledger
import Schema
import Storage
import TestSupport
import Testing

/// Randomised months of a store subscription — renewals, plan and tier changes, billing retries,
/// revocations, an end, store outages — against issueBadge's renewal checks. After every request
/// the client's replica, built only from the statements it received, must re-derive row by row
/// (LedgerInvariants) and equal the service's ledger; no charge is credited twice; every
/// credential answer carries `subscription`.
@Suite struct SubscriptionSimulationTests {
    /// The store's side: its charges and what it would answer at a time.
    struct World {
        var charges: [StoreCharge] = []
        var ended = false
        var cancelled = false
        var revoked = false
        var down = false

        var current: StoreCharge { charges[charges.count - 1] }

        mutating func renew(at t: Timestamp, _ rng: inout SplitMix64) {
            let months = rng.chance(20) ? 12 : 1
            let type: BadgeType = rng.chance(15) ? (current.badgeType == .supporter ? .legend : .supporter) : current.badgeType
            let start = current.periodEnd
            charges.append(StoreCharge(chargeId: "c\(charges.count + 1)", productId: "P-\(type)-\(months)", badgeType: type,
                                       months: months, periodStart: start, periodEnd: addMonths(months, to: start)))
            revoked = false
        }

        func reading(at now: Timestamp) -> Result<SubscriptionReading, SubscriptionRefusal> {
            if down { return .failure(SubscriptionRefusal(.providerUnavailable(retryAfter: nil), "down")) }
            let pending = SubscriptionRefusal(.paymentPending(retryAfter: SubscriptionRefusal.day), "not grantable")
            if ended { return .success(.refused(pending, state: .ended, latestChargeId: current.chargeId)) }
            if revoked { return .success(.charged(current, revoked: true)) }
            if now >= current.periodEnd {
                return .success(.refused(pending, state: .billingRetry, latestChargeId: current.chargeId))
            }
            return .success(.charged(current, state: cancelled ? .cancelled : .renewing))
        }
    }

    @Test(arguments: [UInt64(1), 11, 2026])
    func monthsOfRandomStoreAnswersKeepTheReplicaValid(seed: UInt64) async throws {
        // Hundreds of requests: on a thread of their own, so the test pool's few threads stay free.
        let problems = try await onOwnThread { try Self.simulate(seed: seed) }
        #expect(problems == [])
    }

    /// Runs the simulation; what went wrong, one line each (empty when nothing did).
    static func simulate(seed: UInt64) throws -> [String] {
        var problems: [String] = []
        func check(_ ok: Bool, _ problem: @autoclosure () -> String) { if !ok { problems.append(problem()) } }
        var rng = SplitMix64(seed: seed)
        let s = try SubscriptionHarness(at: at(2026, 1, 5))
        var world = World()
        let months = rng.chance(50) ? 12 : 1
        world.charges = [StoreCharge(chargeId: "c1", productId: "P", badgeType: .supporter, months: months,
                                     periodStart: at(2026, 1, 4), periodEnd: addMonths(months, to: at(2026, 1, 4)))]
        s.apple.answer("sim", world.reading(at: s.now))
        let key = Ed25519PrivateKey()
        let bought = try s.purchase("sim", by: key, masterKey: SecureRandom.bytes(32))
        guard var replica = bought.entries else { return ["the purchase was refused: \(bought)"] }
        check(checkLedger(replica, purchaseBadgeType: .supporter) == nil, "the purchase's rows do not re-derive")

        for step in 0..<80 {
            let days = rng.int(1...(rng.chance(15) ? 50 : 12))  // now and then the client stays away for weeks
            s.now = s.now.adding(seconds: Int64(days) * 86_400 + Int64(rng.int(0...7_200)))
            // The store moves on: a renewal at period end unless cancelled or ended, now and then a change.
            while !world.ended && !world.cancelled && world.current.periodEnd <= s.now && !rng.chance(10) {
                world.renew(at: s.now, &rng)
            }
            if rng.chance(4) { world.cancelled.toggle() }
            if rng.chance(3) { world.revoked = true }
            if rng.chance(2) { world.ended = true }
            world.down = rng.chance(10)
            s.apple.answer("sim", world.reading(at: s.now))

            for _ in 0..<(rng.chance(30) ? 2 : 1) {
                let out = s.issue(by: key, asserting: replica[replica.count - 1])
                if out.error != nil {
                    check(out.error == .providerUnavailable, "step \(step): \(out.response)")
                    continue
                }
                check(out.response.subscriptionState != nil, "step \(step): no subscription")
                guard let statement = out.statement else { return problems + ["step \(step): no statement"] }
                check(statement.previousEntryId == replica.last?.entryId, "step \(step): the statement does not attach")
                let violation = checkLedger(statement.entries, after: replica.last, purchaseBadgeType: .supporter)
                check(violation == nil, "step \(step): \(String(describing: violation))")
                replica += statement.entries
                s.now = s.now.adding(seconds: Int64(rng.int(0...1_800)))
            }
            let ledger = try s.h.store.read { r in try r.ledger(purchaseId: try r.purchase(key: key.publicKey.purchaseKeyText)!.id) }
            check(ledger == replica, "step \(step): replica and ledger differ")
            let credited = replica.compactMap { e -> String? in
                if case .credit(.charge(let id)) = e.entryType { return id }
                return nil
            }
            check(Set(credited).count == credited.count, "step \(step): a charge credited twice: \(credited)")
            if world.ended && !world.down { break }
        }
        return problems
    }
}
