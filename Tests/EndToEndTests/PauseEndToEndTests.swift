import BadgeCore
import Crypto
import Foundation
import JSON
import Ledger
import Schema
import TestSupport
import Testing

/// The pause rules of docs/protocol.md, Pause, on the release binary over HTTP, each step at its
/// date under libfaketime (see `FakeTimeDeployment`): every step is also a restart, so the pause
/// lives in the database and nowhere else. `.serialized`: one service at a time.
@Suite(.serialized, .timeLimit(.minutes(5))) struct PauseEndToEndTests {
    func utc(_ y: Int, _ m: Int, _ d: Int, _ h: Int = 0, _ mi: Int = 0) -> Timestamp {
        Timestamp(CivilDate(year: y, month: m, day: d), hour: h, minute: mi, second: 0)
    }

    /// Within the minute after `expected`: the fake clock starts at a step's time and runs on.
    func near(_ t: Timestamp?, _ expected: Timestamp) -> Bool {
        guard let t else { return false }
        return t >= expected && t.seconds - expected.seconds < 60
    }

    /// A 4-month code redeemed Sunday 31 January 2027 12:00 (February issued, to 28 February);
    /// paused 10 February; resumed 15 May by issueBadge: March and April were neither issued nor
    /// lapsed, the 3 months held start a run at the resume. Paused again 1 July, inside June, which
    /// had begun unissued on 15 June: resumed 1 September, June is given back whole.
    @Test func pauseFreezesTheMonthsAcrossRestartsAndIssueBadgeResumes() throws {
        let deployment = try FakeTimeDeployment()
        let key = Ed25519PrivateKey(), master = SecureRandom.bytes(32)
        let code = try deployment.cli(["codes", "create", "--type", "supporter", "--months", "4"], at: utc(2027, 1, 31, 11, 59))
        #expect(code.status == 0)
        let redeemed = try deployment.at(utc(2027, 1, 31, 12)) { step in
            try step.redeem(code.stdout.trimmingCharacters(in: .whitespacesAndNewlines), by: key, masterKey: master)
        }
        var ledger = try #require(redeemed.response?.statement?.entries)
        #expect(ledger.map(\.balanceMonths) == [4, 3])
        let first = try #require(redeemed.response?.credential)

        // An unknown key cannot pause.
        let unknown = try deployment.at(utc(2027, 2, 10)) { try $0.send(.pauseBadge, by: Ed25519PrivateKey()) }
        #expect(unknown.response?.errorCode == .unknownPurchaseKey)

        // 10 February: paused. The January credential (still current), the whole history (the
        // command asserts nothing), nothing written.
        let paused = try deployment.at(utc(2027, 2, 10)) { try $0.send(.pauseBadge, by: key) }
        #expect(paused.status == 200, "\(paused.text)")
        guard case .badgeCredential(let current, let statement, nil, nil)? = paused.response else {
            Issue.record("not a badgeCredential: \(paused.text)")
            return
        }
        #expect(current?.expiry == utc(2027, 3, 2) && statement.entries == ledger && statement.previousEntryId == nil)

        // 20 March, after a restart: the same statement; the months do not lapse meanwhile, and
        // the January credential has expired, so none is sent.
        let again = try deployment.at(utc(2027, 3, 20)) { try $0.send(.pauseBadge, by: key) }
        #expect(again.response?.statement == statement && again.response?.credential == nil)

        // 15 May 09:00: issueBadge resumes; the row ending the pause says since when.
        let resumed = try deployment.at(utc(2027, 5, 15, 9)) { try $0.issue(by: key, asserting: ledger[1]) }
        #expect(resumed.status == 200, "\(resumed.text)")
        let resumeRows = try #require(resumed.response?.statement?.entries)
        #expect(resumed.response?.statement?.previousEntryId == ledger[1].entryId)
        #expect(resumeRows.map(\.entryType) == [.debit(.badge)])
        #expect(near(resumeRows[0].wasPausedSince, utc(2027, 2, 10)))
        #expect(resumeRows[0].balanceMonths == 2)
        #expect(near(resumeRows[0].balanceAnchorTs, utc(2027, 5, 15, 9)) && resumeRows[0].balanceAnchorTs == resumeRows[0].createdAt)
        #expect(resumeRows[0].balanceStartTs == addMonths(1, to: resumeRows[0].balanceAnchorTs))
        let may = try #require(resumed.response?.credential)
        #expect(may.expiry == utc(2027, 6, 22))  // period ends Tuesday 15 June → the Tuesday after
        ledger += resumeRows
        #expect(checkLedger(ledger, purchaseBadgeType: .supporter) == nil)
        // The wire form: wasPausedSince present on that row only.
        #expect(resumed.text.components(separatedBy: "wasPausedSince").count == 2)

        // 1 July: June (15 June → 15 July) has begun unissued; pausing keeps it, nothing lapses.
        let july = try deployment.at(utc(2027, 7, 1)) { try $0.send(.pauseBadge, by: key) }
        #expect(july.response?.statement?.entries == ledger)
        // 1 September: resumed; June is given back whole and issued from the resume.
        let september = try deployment.at(utc(2027, 9, 1)) { try $0.issue(by: key, asserting: ledger[2]) }
        let septemberRows = try #require(september.response?.statement?.entries)
        #expect(septemberRows.map(\.entryType) == [.debit(.badge)])
        #expect(near(septemberRows[0].wasPausedSince, utc(2027, 7, 1)))
        #expect(septemberRows[0].balanceMonths == 1 && near(septemberRows[0].balanceStartTs, utc(2027, 10, 1)))
        let sept = try #require(september.response?.credential)
        ledger += septemberRows
        #expect(checkLedger(ledger, purchaseBadgeType: .supporter) == nil)

        // Unpaused now: a gap lapses the last month as usual.
        let december = try deployment.at(utc(2027, 12, 1)) { try $0.issue(by: key, asserting: ledger[3]) }
        #expect(december.response?.statement?.entries.map(\.entryType) == [.debit(.lapse)])
        #expect(december.response?.credential == nil)
        ledger += try #require(december.response?.statement?.entries)
        #expect(checkLedger(ledger, purchaseBadgeType: .supporter) == nil)

        // Every credential verifies under the issuer's public key (an independent BLS12-381 verifier).
        let shown = try JSONValue.parse(try deployment.cli(["issuer", "show"], at: utc(2027, 12, 1)).stdout)
        let active = try #require(shown["active"]?.numberValue?.exactInt)
        let publicKey = try #require(shown["keys"]?[String(active)]?.stringValue)
        #expect(try BBSPeer.verify(publicKey: publicKey, credentials: [first.json, may.json, sept.json]) == ["valid", "valid", "valid"])
    }
}
