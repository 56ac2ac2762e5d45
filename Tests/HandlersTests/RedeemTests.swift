import BadgeCore
import Crypto
import Foundation
import Handlers
import JSON
import Ledger
import Locking
import Schema
import Storage
import Testing

@Suite(.timeLimit(.minutes(5))) struct RedeemTests {
    let h: Harness
    init() throws { h = try Harness() }

    @Test func redeemingCreditsTheCodeAndIssuesTheFirstMonth() throws {
        let key = Ed25519PrivateKey()
        let master = SecureRandom.bytes(32)
        let out = h.redeem(try h.code(months: 3), by: key, masterKey: master)
        let entries = try #require(out.statement?.entries)
        #expect(entries.map(\.changeMonths) == [3, -1])
        #expect(entries.map(\.balanceMonths) == [3, 2])
        #expect(entries.map(\.entryType) == [.credit(.code), .debit(.badge)])
        #expect(out.statement?.previousEntryId == nil)
        let credential = try #require(out.credential)
        #expect(credential.masterKey == master)
        #expect(credential.badgeType == .supporter)
        // period [03-10 11:00, 04-10 11:00) ends on a Friday → Tuesday 2026-04-14
        #expect(credential.expiry == Timestamp(CivilDate(year: 2026, month: 4, day: 14)))
        #expect(entries[1].balanceStartTs == at(2026, 4, 10))
        #expect(try h.ledger(of: key) == entries)
        #expect(h.issuer.count == 1)
    }

    @Test func aRepeatBySameKeyWritesNothingAndReplays() throws {
        let key = Ed25519PrivateKey()
        let code = try h.code()
        let master = SecureRandom.bytes(32)
        let first = h.redeem(code, by: key, masterKey: master)
        h.clock.now = h.clock.now.adding(seconds: 3600)
        let again = h.redeem(code, by: key, masterKey: master)
        #expect(again.credential == first.credential)
        #expect(again.statement == first.statement)
        #expect(try h.ledger(of: key).count == 2)
        #expect(h.issuer.count == 1)
        // a different spelling of the same code is the same code
        let lower = code.lowercased().replacingOccurrences(of: "-", with: " ")
        #expect(h.redeem(lower, by: key, masterKey: master).credential == first.credential)
    }

    /// A code revoked after its redemption: the key that redeemed it still gets its answer from
    /// the record (its months were credited), every other key `code_invalid`.
    @Test func theRedeemersRepeatOfACodeRevokedSinceIsAnsweredFromTheRecord() throws {
        let key = Ed25519PrivateKey(), master = SecureRandom.bytes(32)
        let code = try h.code(uses: 2)
        let first = h.redeem(code, by: key, masterKey: master)
        #expect(first.error == nil)
        try h.codes.revoke(code)
        let again = h.redeem(code, by: key, masterKey: master)
        #expect(again.error == nil && again.credential == first.credential && again.statement == first.statement)
        #expect(try h.ledger(of: key).count == 2)
        #expect(h.issuer.count == 1)
        #expect(h.redeem(code, by: Ed25519PrivateKey()).error == .codeInvalid)
    }

    @Test func anotherKeyFindsTheCodeUsed() throws {
        let code = try h.code()
        #expect(h.redeem(code, by: Ed25519PrivateKey()).error == nil)
        #expect(h.redeem(code, by: Ed25519PrivateKey()).error == .codeUsed)
    }

    @Test func codesWithSeveralUses() throws {
        let code = try h.code(uses: 2)
        #expect(h.redeem(code, by: Ed25519PrivateKey()).error == nil)
        #expect(h.redeem(code, by: Ed25519PrivateKey()).error == nil)
        #expect(h.redeem(code, by: Ed25519PrivateKey()).error == .codeUsed)
    }

    @Test func unknownMalformedAndRevokedAreIndistinguishable() throws {
        let revoked = try h.code()
        try h.codes.revoke(revoked)
        let unknown = BadgeCode(randomBytes: [UInt8](repeating: 7, count: 19))!.display
        var wrongCheck = Array(unknown)
        wrongCheck[wrongCheck.count - 1] = wrongCheck.last == "0" ? "1" : "0"
        let outcomes = [revoked, unknown, String(wrongCheck), "SB-nonsense", "", "🙂"].map { h.redeem($0, by: Ed25519PrivateKey()) }
        for out in outcomes {
            #expect(out.error == .codeInvalid)
            #expect(out.body == outcomes[0].body)
        }
        #expect(h.issuer.count == 0)
    }

    @Test func unpaidCodesArePending() throws {
        let out = h.redeem(try h.code(payment: .unpaid), by: Ed25519PrivateKey())
        #expect(out.error == .paymentPending)
        guard case .error(_, _, let retryAfter) = out.response else { return }
        #expect(retryAfter == 300)
    }

    @Test func expiredCodes() throws {
        let code = try h.code(expires: h.clock.now.adding(seconds: 60))
        h.clock.now = h.clock.now.adding(seconds: 60)
        #expect(h.redeem(code, by: Ed25519PrivateKey()).error == .codeExpired)
    }

    @Test func aKeyWithAPurchaseCannotRedeemAnotherCode() throws {
        let key = Ed25519PrivateKey()
        #expect(h.redeem(try h.code(), by: key).error == nil)
        let second = try h.code()
        #expect(h.redeem(second, by: key).error == .badRequest)
        // and the second code is still there for someone else
        #expect(h.redeem(second, by: Ed25519PrivateKey()).error == nil)
    }

    @Test func legendAndInvestorCodesIssueTheirType() throws {
        for type in ["legend", "investor"] {
            let out = h.redeem(try h.code(type, months: 12), by: Ed25519PrivateKey())
            #expect(out.credential?.badgeType == BadgeType(type))
            #expect(out.statement?.entries.first?.balanceBadgeType == BadgeType(type))
        }
    }

    @Test func aFailedSignatureWritesNothing() throws {
        let key = Ed25519PrivateKey()
        let code = try h.code()
        h.issuer.failing = true
        #expect(h.redeem(code, by: key).error == .internal)
        #expect(try h.ledger(of: key).isEmpty)
        #expect(try h.store.read { try $0.purchase(key: key.publicKey.purchaseKeyText) } == nil)
        h.issuer.failing = false
        #expect(h.redeem(code, by: key).error == nil)
    }

    @Test func twentyIdenticalRequestsAtOnceCreditOnce() throws {
        let key = Ed25519PrivateKey()
        let code = try h.code()
        let master = SecureRandom.bytes(32)
        let body = RPCRequest(purchaseKey: key.publicKey.purchaseKeyText, command: .redeemBadgeCode(masterKey: master, code: code))
            .json.serialized()
        let results = LockedValueBox<[RPCOutcome]>([])
        DispatchQueue.concurrentPerform(iterations: 20) { _ in
            let outcome = h.service.handle(body: body, caller: .signer(key.publicKey))
            results.withLock { $0.append(outcome) }
        }
        let outs = results.withLock { $0 }
        #expect(outs.count == 20)
        #expect(outs.allSatisfy { $0.error == nil })
        #expect(Set(outs.compactMap(\.credential)).count == 1)
        #expect(try h.ledger(of: key).count == 2)
        let issuances = try h.store.read { r in try r.latestIssuance(purchaseId: r.purchase(key: key.publicKey.purchaseKeyText)!.id) }
        #expect(issuances != nil)
        #expect(try h.store.read { try $0.redemptions(codeHash: SHA256.hash(BadgeCode(parsing: code)!.hashInput)) }.count == 1)
    }

    @Test func racingKeysForTheLastUseGetOneWinner() throws {
        let code = try h.code()
        let keys = (0..<12).map { _ in Ed25519PrivateKey() }
        let results = LockedValueBox<[RPCOutcome]>([])
        DispatchQueue.concurrentPerform(iterations: keys.count) { i in
            let outcome = h.redeem(code, by: keys[i])
            results.withLock { $0.append(outcome) }
        }
        let outs = results.withLock { $0 }
        #expect(outs.filter { $0.error == nil }.count == 1)
        #expect(outs.filter { $0.error == .codeUsed }.count == keys.count - 1)
    }
}

