import BadgeCore
import Crypto
import Foundation
import Glibc
import JSON
import Ledger
import RequestAuth
import Schema
import TestSupport
import Testing

/// The release binary on a data directory of its own, each step run at an absolute fake time
/// under the Debian `faketime` wrapper (libfaketime): the product has no clock switch, it reads
/// `clock_gettime(CLOCK_REALTIME)`, which libfaketime answers. Every step starts the service at
/// its time and stops it, so every step is also a restart; requests are signed with `created`
/// at the step's time, as a client living at that time would sign them.
///
/// The wrapper, not a bare `LD_PRELOAD`: without the wrapper's shared clock libfaketime calls
/// `setenv` while the process loads, which moves `environ` before the Swift runtime locates
/// `argv` from it, and the binary then sees no arguments.
final class FakeTimeDeployment: @unchecked Sendable {
    let data = TemporaryDirectory("faketime")

    /// What `scripts/test` builds with `swift build -c release --product badge-service`.
    static var binary: String { Repository.root.appendingPathComponent(".build/release/badge-service").path }
    /// The Debian package faketime (scripts/install-deps installs it).
    static let wrapper = "/usr/bin/faketime"

    init() throws {
        guard FileManager.default.isExecutableFile(atPath: Self.binary) else {
            throw ServiceProcess.Failure("no release binary at \(Self.binary): run `swift build -c release --product badge-service` (scripts/test does)")
        }
        guard FileManager.default.isExecutableFile(atPath: Self.wrapper) else {
            throw ServiceProcess.Failure("no \(Self.wrapper): install the Debian package faketime (scripts/install-deps does)")
        }
        // operator commands need a prepared data directory (the first serve or init makes it)
        let made = try CLIResult.run(["init", "--data", data.file("badge-data")], in: data.url, executable: Self.binary)
        guard made.status == 0 else { throw ServiceProcess.Failure("init: \(made.stderr)") }
    }

    /// `faketime` starting the clock at `t` (read as UTC) and letting it run on; the monotonic
    /// clock stays real so the server's timeouts behave.
    func launcher(at t: Timestamp) -> [String] {
        let d = t.date, s = t.secondOfDay
        let text = String(format: "%04d-%02d-%02d %02d:%02d:%02d", d.year, d.month, d.day, s / 3600, s / 60 % 60, s % 60)
        return [Self.wrapper, "--exclude-monotonic", text]
    }

    /// An operator command at `t`.
    func cli(_ arguments: [String], at t: Timestamp) throws -> CLIResult {
        let launcher = launcher(at: t)
        return try CLIResult.run(Array(launcher.dropFirst()) + [Self.binary] + arguments + ["--data", data.file("badge-data")],
                                 in: data.url, environment: ["TZ": "UTC"], executable: launcher[0])
    }

    /// Starts the service at `t`, runs `body` against it, and stops it (exit status 0 expected).
    func at<T>(_ t: Timestamp, _ body: (Step) throws -> T) throws -> T {
        let service = try ServiceProcess(data: data, environment: ["TZ": "UTC"], executable: Self.binary, launcher: launcher(at: t))
        let result = try body(Step(service: service, time: t))
        #expect(service.stop() == 0, "the service at \(t) did not stop cleanly")
        return result
    }

    /// The service running at a fake time.
    struct Step {
        let service: ServiceProcess
        let time: Timestamp

        /// Sends `command` signed by `key` with `created` at the step's time.
        func send(_ command: RPCCommand, by key: Ed25519PrivateKey, created: Timestamp? = nil) throws -> HTTPReply {
            let body = RPCRequest(purchaseKey: key.publicKey.purchaseKeyText, command: command).json.serialized()
            let signed = try RequestSigner(key: key).sign(method: "POST", authority: "127.0.0.1:\(service.port)", path: "/rpc",
                                                          body: body, created: created ?? time)
            var headers = ["Content-Type": "application/json"]
            for f in signed.fields { headers[f.name] = f.value }
            return try HTTP.request("POST", service.url + "/rpc", body: body, headers: headers)
        }

        func redeem(_ code: String, by key: Ed25519PrivateKey, masterKey: [UInt8]) throws -> HTTPReply {
            try send(.redeemBadgeCode(masterKey: masterKey, code: code), by: key)
        }

        func issue(by key: Ed25519PrivateKey, asserting entry: LedgerEntry) throws -> HTTPReply {
            try send(.issueBadge(balance: Balance(lastEntry: entry)), by: key)
        }
    }
}

/// A UTC time.
private func utc(_ y: Int, _ m: Int, _ d: Int, _ h: Int = 0, _ mi: Int = 0, _ s: Int = 0) -> Timestamp {
    Timestamp(CivilDate(year: y, month: m, day: d), hour: h, minute: mi, second: s)
}

/// Midnight UTC of a date: how every credential expiry is written.
private func midnight(_ y: Int, _ m: Int, _ d: Int) -> Timestamp { utc(y, m, d) }

/// The time rules of docs/protocol.md (Ledger rules, Credential) walked across real months on
/// the release binary. `.serialized`: one service at a time on the 2-core machine.
@Suite(.serialized, .timeLimit(.minutes(5))) struct TimeRulesEndToEndTests {
    /// Every credential expires on a Tuesday at 00:00:00 UTC, more than one and at most eight
    /// days after the end of the period it was issued for, and its BBS signature covers exactly
    /// that expiry (checked by an independent BLS12-381 verifier).
    func expectTuesdayExpiries(_ issued: [(credential: BadgeCredential, periodEnd: Timestamp)], _ deployment: FakeTimeDeployment,
                               at t: Timestamp) throws {
        for (credential, periodEnd) in issued {
            let expiry = credential.expiry
            #expect(expiry.date.isoWeekday == 2 && expiry.secondOfDay == 0, "expiry \(expiry) is not a Tuesday midnight")
            let gap = expiry.seconds - periodEnd.seconds
            #expect(gap > 86_400 && gap <= 8 * 86_400, "expiry \(expiry) for a period ending \(periodEnd)")
        }
        let shown = try deployment.cli(["issuer", "show"], at: t)
        let json = try JSONValue.parse(shown.stdout)
        let active = try #require(json["active"]?.numberValue?.exactInt)
        let publicKey = try #require(json["keys"]?[String(active)]?.stringValue)
        let verdicts = try BBSPeer.verify(publicKey: publicKey, credentials: issued.map(\.credential.json))
        #expect(verdicts == Array(repeating: "valid", count: issued.count))
    }

    /// A 4-month code redeemed on Sunday 31 January 2027, then issueBadge at month ends, before
    /// and past them: boundaries clip to 28 February and come back to 31 March (counted from the
    /// anchor), a late request does not move them, a gap lapses the last month and uses up the
    /// balance, a support credit after exhaustion starts a new run, and a second gap lapses again.
    @Test func monthsRedeemedOn31JanuaryClipLapseAndRestartAcrossRealMonths() throws {
        let deployment = try FakeTimeDeployment()
        let key = Ed25519PrivateKey()
        let master = SecureRandom.bytes(32)
        var issued: [(credential: BadgeCredential, periodEnd: Timestamp)] = []

        // 31 January 12:00: the operator makes the code, the client redeems it.
        let code = try deployment.cli(["codes", "create", "--type", "supporter", "--months", "4"], at: utc(2027, 1, 31, 11, 59))
        #expect(code.status == 0)
        let redeemed = try deployment.at(utc(2027, 1, 31, 12)) { step in
            // a client on the real clock is outside the signature window of the service's fake one
            let realClock = try step.send(.redeemBadgeCode(masterKey: master, code: code.stdout.trimmingCharacters(in: .whitespacesAndNewlines)),
                                          by: Ed25519PrivateKey(), created: Timestamp(seconds: Int64(Date().timeIntervalSince1970)))
            #expect(realClock.status == 401)
            return try step.redeem(code.stdout.trimmingCharacters(in: .whitespacesAndNewlines), by: key, masterKey: master)
        }
        #expect(redeemed.status == 200)
        let rows = try #require(redeemed.response?.statement?.entries)
        #expect(rows.map(\.entryType) == [.credit(.code), .debit(.badge)])
        #expect(rows.map(\.balanceMonths) == [4, 3])
        let anchor = rows[0].balanceAnchorTs
        #expect(anchor.date == CivilDate(year: 2027, month: 1, day: 31) && anchor == rows[0].createdAt)
        #expect(rows[1].balanceStartTs.date == CivilDate(year: 2027, month: 2, day: 28))  // clipped
        #expect(rows[1].balanceStartTs.secondOfDay == anchor.secondOfDay)
        let first = try #require(redeemed.response?.credential)
        #expect(first.expiry == midnight(2027, 3, 2))  // period ends Sunday 28 Feb → Tuesday 2 Mar
        issued.append((first, rows[1].balanceStartTs))
        var tip = rows[1]

        // 28 February, a minute before the boundary: the same credential, nothing written.
        let early = try deployment.at(utc(2027, 2, 28, 11, 59)) { try $0.issue(by: key, asserting: tip) }
        #expect(early.status == 200)
        #expect(early.response?.credential == first)
        #expect(early.response?.statement?.entries == [])
        #expect(early.response?.statement?.previousEntryId == tip.entryId)

        // 28 February, just past the boundary: March is due, and it ends on the 31st again.
        let march = try deployment.at(utc(2027, 2, 28, 12, 0, 30)) { try $0.issue(by: key, asserting: tip) }
        let marchRows = try #require(march.response?.statement?.entries)
        #expect(marchRows.map(\.entryType) == [.debit(.badge)])
        #expect(marchRows[0].balanceMonths == 2)
        #expect(marchRows[0].balanceStartTs.date == CivilDate(year: 2027, month: 3, day: 31))
        #expect(marchRows[0].balanceAnchorTs == anchor)
        let marchCredential = try #require(march.response?.credential)
        #expect(marchCredential.expiry == midnight(2027, 4, 6))  // period ends Wednesday 31 Mar
        issued.append((marchCredential, marchRows[0].balanceStartTs))
        tip = marchRows[0]

        // 2 April, two days past the boundary: April is issued on the anchored boundaries, 31 Mar → 30 Apr.
        let april = try deployment.at(utc(2027, 4, 2, 9)) { try $0.issue(by: key, asserting: tip) }
        let aprilRows = try #require(april.response?.statement?.entries)
        #expect(aprilRows.map(\.entryType) == [.debit(.badge)])
        #expect(aprilRows[0].balanceMonths == 1)
        #expect(aprilRows[0].balanceStartTs.date == CivilDate(year: 2027, month: 4, day: 30))
        let aprilCredential = try #require(april.response?.credential)
        #expect(aprilCredential.expiry == midnight(2027, 5, 4))  // period ends Friday 30 Apr
        issued.append((aprilCredential, aprilRows[0].balanceStartTs))
        tip = aprilRows[0]

        // 15 June, after a gap: May (30 Apr → 31 May) ran out unused and is lapsed; that was the
        // last month, so there is no credential and the statement says why.
        let june = try deployment.at(utc(2027, 6, 15, 12)) { try $0.issue(by: key, asserting: tip) }
        #expect(june.status == 200)
        let juneRows = try #require(june.response?.statement?.entries)
        #expect(juneRows.map(\.entryType) == [.debit(.lapse)])
        #expect(juneRows.map(\.changeMonths) == [-1])
        #expect(juneRows[0].balanceMonths == 0)
        #expect(juneRows[0].balanceStartTs.date == CivilDate(year: 2027, month: 5, day: 31))
        #expect(juneRows[0].paidThrough == rows[0].paidThrough)  // a lapse moves months from unused to gone
        #expect(june.response?.credential == nil)
        #expect(june.response?.statement?.previousEntryId == tip.entryId)
        tip = juneRows[0]

        // Support credits 2 months after exhaustion; the next issueBadge (after another restart)
        // issues the first of them on a new run anchored at the credit.
        let credit = try deployment.cli(["ledger", "credit", key.publicKey.purchaseKeyText, "--months", "2", "--support"],
                                        at: utc(2027, 6, 15, 12, 5))
        #expect(credit.status == 0, "\(credit.stderr)")
        let resumed = try deployment.at(utc(2027, 6, 15, 12, 10)) { try $0.issue(by: key, asserting: tip) }
        let resumedRows = try #require(resumed.response?.statement?.entries)
        #expect(resumedRows.map(\.entryType) == [.credit(.support), .debit(.badge)])
        #expect(resumedRows.map(\.balanceMonths) == [2, 1])
        let newAnchor = resumedRows[0].balanceAnchorTs
        #expect(newAnchor.date == CivilDate(year: 2027, month: 6, day: 15) && newAnchor == resumedRows[0].balanceStartTs)
        #expect(resumedRows[1].balanceStartTs.date == CivilDate(year: 2027, month: 7, day: 15))
        let julyCredential = try #require(resumed.response?.credential)
        #expect(julyCredential.expiry == midnight(2027, 7, 20))  // period ends Thursday 15 Jul
        issued.append((julyCredential, resumedRows[1].balanceStartTs))
        tip = resumedRows[1]

        // 20 August: the month from 15 July was never asked for; it lapses, the balance is used up.
        let august = try deployment.at(utc(2027, 8, 20, 8)) { try $0.issue(by: key, asserting: tip) }
        let augustRows = try #require(august.response?.statement?.entries)
        #expect(augustRows.map(\.entryType) == [.debit(.lapse)])
        #expect(augustRows[0].balanceMonths == 0)
        #expect(augustRows[0].balanceStartTs.date == CivilDate(year: 2027, month: 8, day: 15))
        #expect(august.response?.credential == nil)

        // what the operator sees is what the client was sent, row for row
        let shown = try deployment.cli(["ledger", "show", key.publicKey.purchaseKeyText], at: utc(2027, 8, 20, 9))
        let stored = try shown.stdout.split(separator: "\n").filter { $0.hasPrefix("{") }.map { try LedgerEntry(json: JSONValue.parse(String($0))) }
        #expect(stored == rows + marchRows + aprilRows + juneRows + resumedRows + augustRows)
        #expect(checkLedger(stored, purchaseBadgeType: .supporter) == nil)

        try expectTuesdayExpiries(issued, deployment, at: utc(2027, 8, 20, 9))
    }

    /// A code's redemption deadline is judged on the service's clock: redeemed a minute before
    /// it, refused (410 code_expired) a minute after, while the key that redeemed it in time
    /// still gets its credential back.
    @Test func codesExpireAtTheirDeadlineWhileAnEarlierRedemptionStillReplays() throws {
        let deployment = try FakeTimeDeployment()
        let made = try deployment.cli(["codes", "create", "--type", "legend", "--months", "1", "--count", "2",
                                       "--expires", "2027-02-01T00:00:00Z"], at: utc(2027, 1, 20, 10))
        #expect(made.status == 0)
        let codes = made.stdout.split(separator: "\n").map(String.init)
        #expect(codes.count == 2)
        let early = Ed25519PrivateKey(), late = Ed25519PrivateKey()
        let master = SecureRandom.bytes(32)

        let inTime = try deployment.at(utc(2027, 1, 31, 23, 59)) { try $0.redeem(codes[0], by: early, masterKey: master) }
        #expect(inTime.status == 200)
        let credential = try #require(inTime.response?.credential)
        #expect(credential.badgeType == .legend)
        // period 31 Jan 23:59 → 28 Feb 23:59 (clipped), a Sunday: Tuesday 2 March
        #expect(credential.expiry == midnight(2027, 3, 2))

        let (expired, replay) = try deployment.at(utc(2027, 2, 1, 0, 1)) { step in
            (try step.redeem(codes[1], by: late, masterKey: SecureRandom.bytes(32)),
             try step.redeem(codes[0], by: early, masterKey: master))
        }
        #expect(expired.status == 410 && expired.response?.errorCode == .codeExpired)
        #expect(replay.status == 200 && replay.response?.credential == credential)
        let rows = try #require(inTime.response?.statement?.entries)
        try expectTuesdayExpiries([(credential, rows[1].balanceStartTs)], deployment, at: utc(2027, 2, 1, 0, 2))
    }
}
