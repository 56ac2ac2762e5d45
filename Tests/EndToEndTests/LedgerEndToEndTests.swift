import BadgeCore
import Crypto
import Foundation
import Glibc
import JSON
import Ledger
import Locking
import Schema
import Storage
import TestSupport
import Testing

@Suite(.serialized, .timeLimit(.minutes(5))) struct LedgerEndToEndTests {
    func issuerPublicKey(_ service: ServiceProcess) throws -> String {
        let shown = try service.cli(["issuer", "show"])
        #expect(shown.status == 0)
        let json = try JSONValue.parse(shown.stdout)
        let active = try #require(json["active"]?.numberValue?.exactInt)
        return try #require(json["keys"]?[String(active)]?.stringValue)
    }

    func ledgerRows(_ service: ServiceProcess, _ key: String) throws -> [LedgerEntry] {
        let shown = try service.cli(["ledger", "show", key])
        guard shown.status == 0 else { return [] }
        return try shown.stdout.split(separator: "\n").filter { $0.hasPrefix("{") }.map { try LedgerEntry(json: JSONValue.parse(String($0))) }
    }

    /// Issue 4's acceptance: a 3-month supporter code redeemed by an independent client; the
    /// credential verifies under an independent BLS12-381 implementation; a repeat replays;
    /// another key finds the code used.
    @Test func redeemOverHTTPWithIndependentPeers() throws {
        let service = try ServiceProcess()
        let code = try service.cli(["codes", "create", "--type", "supporter", "--months", "3"]).stdout
            .trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(code.count == 26 && code.hasPrefix("SB-"))
        let seed = Hex.encode(SecureRandom.bytes(32))
        let master = SecureRandom.bytes(32)
        let body = #"{"version":1,"purchaseKey":"$PURCHASE_KEY","request":{"type":"redeemBadgeCode","masterKey":"\#(Base64URL.encode(master))","code":"\#(code)"}}"#
        let first = try PythonClient.send([.init(url: service.url + "/rpc", body: body, seed_hex: seed)])[0]
        #expect(first.status == 200)
        let response = try #require(first.response)
        let entries = try #require(response.statement?.entries)
        #expect(entries.map(\.changeMonths) == [3, -1])
        #expect(entries.map(\.entryType) == [.credit(.code), .debit(.badge)])
        let credential = try #require(response.credential)
        #expect(credential.masterKey == master && credential.badgeType == .supporter)
        #expect(credential.expiry.date.isoWeekday == 2 && credential.expiry.secondOfDay == 0)

        // an independent BLS12-381 implementation verifies it; one flipped bit anywhere does not
        let publicKey = try issuerPublicKey(service)
        var flippedSignature = credential
        flippedSignature.signature[17] ^= 0x04
        var otherMaster = credential
        otherMaster.masterKey[0] ^= 1
        var otherType = credential
        otherType.badgeType = "legend"
        var otherExpiry = credential
        otherExpiry.expiry = credential.expiry.adding(seconds: 7 * 86_400)
        let verdicts = try BBSPeer.verify(publicKey: publicKey, credentials: [credential, flippedSignature, otherMaster, otherType, otherExpiry].map(\.json))
        #expect(verdicts == ["valid", "invalid", "invalid", "invalid", "invalid"])

        // the same request again: the same credential, nothing written
        let rowsBefore = try ledgerRows(service, first.purchase_key)
        let again = try PythonClient.send([.init(url: service.url + "/rpc", body: body, seed_hex: seed)])[0]
        #expect(again.status == 200)
        #expect(again.response?.credential == credential)
        #expect(try ledgerRows(service, first.purchase_key) == rowsBefore)
        #expect(rowsBefore == entries)

        // another key
        let other = try PythonClient.send([.init(url: service.url + "/rpc", body: body)])[0]
        #expect(other.status == 409 && other.response?.errorCode == .codeUsed)
        #expect(service.stop() == 0)
    }

    @Test func twentyIdenticalRequestsAtOnceOverHTTP() throws {
        let service = try ServiceProcess()
        let code = try service.cli(["codes", "create", "--type", "legend", "--months", "2"]).stdout
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let key = Ed25519PrivateKey()
        let envelope = HTTP.envelope(["type": "redeemBadgeCode", "masterKey": .string(Base64URL.encode(SecureRandom.bytes(32))),
                                      "code": .string(code)], key: key)
        let replies = Replies()
        DispatchQueue.concurrentPerform(iterations: 20) { _ in
            replies.add(Result { try HTTP.rpc(service, envelope, key: key) })
        }
        let all = try replies.all.map { try $0.get() }
        #expect(all.allSatisfy { $0.status == 200 })
        #expect(Set(all.compactMap { $0.response?.credential }).count == 1)
        let rows = try ledgerRows(service, key.publicKey.purchaseKeyText)
        #expect(rows.map(\.entryType) == [.credit(.code), .debit(.badge)])
        #expect(try service.cli(["codes", "list"]).stdout.contains("1/1 used"))
        #expect(service.stop() == 0)
    }

    /// SIGTERM while requests are in flight: every request that was accepted gets its whole
    /// response, the service exits 0.
    @Test func sigtermDuringLoadFinishesInFlightRequestsAndExitsZero() throws {
        let service = try ServiceProcess()
        let codes = try service.cli(["codes", "create", "--type", "supporter", "--months", "12", "--count", "200"]).stdout
            .split(separator: "\n").map(String.init)
        #expect(codes.count == 200)
        let replies = Replies()
        let started = Date()
        let group = DispatchGroup()
        for worker in 0..<8 {
            group.enter()
            Thread {
                defer { group.leave() }
                var i = worker
                while i < codes.count && Date().timeIntervalSince(started) < 10 {
                    let key = Ed25519PrivateKey()
                    let env = HTTP.envelope(["type": "redeemBadgeCode", "masterKey": .string(Base64URL.encode(SecureRandom.bytes(32))),
                                             "code": .string(codes[i])], key: key)
                    let r = Result { try HTTP.rpc(service, env, key: key) }
                    replies.add(r)
                    if case .failure = r { return }  // the service has stopped accepting
                    i += 8
                }
            }.start()
        }
        #expect(waitUntil(timeout: .seconds(10)) { replies.all.count >= 8 }, "requests are flowing")
        let status = service.stop(SIGTERM)
        group.wait()
        #expect(status == 0)
        let answered = replies.all.compactMap { try? $0.get() }
        #expect(answered.count >= 8)
        // the load was still running when the signal came
        #expect(answered.count < codes.count)
        // every answer is a whole, valid response: nothing was cut off by the shutdown
        for reply in answered {
            #expect(reply.status == 200)
            #expect(reply.response?.credential != nil)
        }
        #expect(service.stderr.contains("badge-service stopped"))
    }

    /// kill -9 at random moments during redemptions and issuance: after a restart the ledger
    /// satisfies the invariants and the retried request completes the work exactly once.
    @Test func killNineAtAnyMomentLeavesAConsistentLedger() throws {
        let data = TemporaryDirectory("e2e-kill")
        var service = try ServiceProcess(data: data)
        let codes = try service.cli(["codes", "create", "--type", "supporter", "--months", "6", "--count", "13"]).stdout
            .split(separator: "\n").map(String.init)
        var generator = SystemRandomNumberGenerator()
        // kill delays spread over 1.5 round trips of the same request, measured here
        let calibrationKey = Ed25519PrivateKey()
        let roundTrip = try microseconds {
            _ = try HTTP.rpc(service, HTTP.envelope(["type": "redeemBadgeCode", "masterKey": .string(Base64URL.encode(SecureRandom.bytes(32))),
                                                      "code": .string(codes[12])], key: calibrationKey), key: calibrationKey)
        }
        var outcomes = [0, 0]  // rounds killed before the commit, after it
        for round in 0..<12 {
            let key = Ed25519PrivateKey()
            let redeem = HTTP.envelope(["type": "redeemBadgeCode", "masterKey": .string(Base64URL.encode(SecureRandom.bytes(32))),
                                        "code": .string(codes[round])], key: key)
            // fire the request and kill the service after a random delay: before, during or after the commit
            let replies = Replies()
            let running = service
            let sender = Thread { replies.add(Result { try HTTP.rpc(running, redeem, key: key) }) }
            sender.start()
            usleep(UInt32.random(in: 0...roundTrip * 3 / 2, using: &generator))
            service.stop(SIGKILL)
            #expect(waitUntil(timeout: .seconds(30)) { sender.isFinished })
            service = try ServiceProcess(data: data)
            let rows = try ledgerRows(service, key.publicKey.purchaseKeyText)
            outcomes[rows.isEmpty ? 0 : 1] += 1
            #expect(rows.isEmpty || rows.map(\.entryType) == [.credit(.code), .debit(.badge)], "round \(round): \(rows)")
            #expect(checkLedger(rows, purchaseBadgeType: .supporter) == nil)
            // the retry completes the work exactly once
            let retry = try HTTP.rpc(service, redeem, key: key)
            #expect(retry.status == 200, "round \(round): \(retry.text)")
            let after = try ledgerRows(service, key.publicKey.purchaseKeyText)
            #expect(after.map(\.entryType) == [.credit(.code), .debit(.badge)])
            if !rows.isEmpty { #expect(after == rows) }
            #expect(retry.response?.statement?.entries == after)
        }
        print("kill -9 rounds: \(outcomes[0]) before the commit, \(outcomes[1]) after it")
        #expect(service.stop() == 0)
    }
}

extension LedgerEndToEndTests {
    /// The same for a due month of issueBadge (BBS signing, then the badge row and the issuance
    /// in one transaction). A month falls due only with time, so each purchase is written into
    /// the service's database already a month old, as another process (the CLI) would write it.
    @Test func killNineDuringADueMonth() throws {
        let data = TemporaryDirectory("e2e-kill-issue")
        var service = try ServiceProcess(data: data)
        let store = try SQLiteBadgeStore(path: data.file("badge-data/badges.sqlite"))
        let now = Timestamp(seconds: Int64(Date().timeIntervalSince1970))
        let funded = now.adding(seconds: -40 * 86_400)  // the first month ended ten days ago
        var generator = SystemRandomNumberGenerator()
        var outcomes = [0, 0]
        var roundTrip: UInt32 = 0
        for round in -1..<10 {  // round -1 measures a normal round trip for the kill delays
            let key = Ed25519PrivateKey()
            var ids = 0
            let plan = try planFirstFunding(months: 6, credit: .code, badgeType: .supporter, now: funded,
                                            newId: { ids += 1; return "seed-\(round)-\(ids)" })
            try store.write { w in
                let p = try w.insertPurchase(key: key.publicKey.purchaseKeyText, masterKey: SecureRandom.bytes(32), badgeType: .supporter, at: funded)
                try w.appendLedger(purchaseId: p.id, expectedCount: 0, entries: plan.rows)
            }
            let issue = HTTP.envelope(["type": "issueBadge", "balance": ["lastEntry": plan.rows[1].json]], key: key)
            if round < 0 {
                roundTrip = try microseconds { _ = try HTTP.rpc(service, issue, key: key) }
                continue
            }
            let running = service
            let sender = Thread { _ = try? HTTP.rpc(running, issue, key: key) }
            sender.start()
            usleep(UInt32.random(in: 0...roundTrip * 3 / 2, using: &generator))
            service.stop(SIGKILL)
            #expect(waitUntil(timeout: .seconds(30)) { sender.isFinished })
            service = try ServiceProcess(data: data)
            let rows = try ledgerRows(service, key.publicKey.purchaseKeyText)
            #expect(rows.count == 2 || rows.count == 3, "round \(round): \(rows)")
            #expect(checkLedger(rows, purchaseBadgeType: .supporter) == nil)
            outcomes[rows.count == 2 ? 0 : 1] += 1
            // the retry issues the month exactly once
            let retry = try HTTP.rpc(service, issue, key: key)
            #expect(retry.status == 200, "round \(round): \(retry.text)")
            let after = try ledgerRows(service, key.publicKey.purchaseKeyText)
            #expect(after.map(\.entryType) == [.credit(.code), .debit(.badge), .debit(.badge)], "round \(round)")
            #expect(checkLedger(after, purchaseBadgeType: .supporter) == nil)
            let issuance = try store.read { r in try r.latestIssuance(purchaseId: r.purchase(key: key.publicKey.purchaseKeyText)!.id) }
            #expect(issuance?.entryId == after.last?.entryId)
            #expect(retry.response?.credential?.signature == issuance?.signature)
        }
        print("kill -9 during issueBadge: \(outcomes[0]) before the commit, \(outcomes[1]) after it")
        #expect(service.stop() == 0)
    }
}

/// How long `body` takes, in microseconds.
func microseconds(_ body: () throws -> Void) rethrows -> UInt32 {
    let start = DispatchTime.now().uptimeNanoseconds
    try body()
    return UInt32(min(10_000_000, (DispatchTime.now().uptimeNanoseconds - start) / 1000))
}

/// Replies collected from several threads.
final class Replies: Sendable {
    private let items = LockedValueBox<[Result<HTTPReply, any Error>]>([])
    func add(_ r: Result<HTTPReply, any Error>) { items.withLock { $0.append(r) } }
    var all: [Result<HTTPReply, any Error>] { items.withLock { $0 } }
}
