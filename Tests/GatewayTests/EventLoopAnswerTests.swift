import BadgeCore
import Crypto
import Foundation
import Gateway
import Handlers
import HTTPServer
import JSON
import Ledger
import Locking
import RequestAuth
import Schema
import Storage
import TestSupport
import Testing

/// What `POST /rpc` answers on the event loop (the thread calling `handle`), without the worker
/// pool: a signed `issueBadge` whose credential is already issued. A month due waits for a worker.
@Suite struct EventLoopAnswerTests {
    /// One thread, held busy by the test: whatever needs a worker waits for it.
    static let pool = WorkerPool(threads: 1, capacity: 8)

    let dir = TemporaryDirectory("gateway-loop")
    let clock = LockedValueBox(Timestamp(CivilDate(year: 2026, month: 3, day: 10), hour: 11))

    @Test func aCachedIssuanceIsAnsweredWhileEveryWorkerIsBusyAndADueMonthWaitsForOne() throws {
        let store = try SQLiteBadgeStore(path: dir.file("badges.sqlite"))
        let now: @Sendable () -> Timestamp = { [clock] in clock.withLock { $0 } }
        try DefaultCatalog.seedIfEmpty(store, at: now())
        let issuer = CountingIssuer()
        let service = BadgeService(store: store, issuer: issuer, clock: now)
        let gateway = Gateway(service: service, authenticator: RequestAuthenticator(), pool: Self.pool,
                              metrics: Metrics(openConnections: { 0 }), accessLog: nil, clock: now, readiness: { .ready })
        let key = Ed25519PrivateKey()
        let code = try CodeAdmin(store: store, clock: now).create(badgeType: "supporter", months: 3, uses: 1, expires: nil,
                                                                  payment: .paid)[0]
        let redeem = try #require(try answer(gateway, signedBy: key, .redeemBadgeCode(masterKey: SecureRandom.bytes(32), code: code),
                                             at: now()))
        #expect(redeem.status == 200)
        let last = try #require(redeem.entries.last)
        let issue = RPCCommand.issueBadge(balance: Balance(lastEntry: last))

        let started = DispatchSemaphore(value: 0), gate = DispatchSemaphore(value: 0)
        #expect(Self.pool.submit { started.signal(); gate.wait() })
        started.wait()
        defer { gate.signal() }

        clock.withLock { $0 = Timestamp(CivilDate(year: 2026, month: 4, day: 9), hour: 11) }
        let onLoop = try answer(gateway, signedBy: key, issue, at: now(), waiting: false)
        let cached = try #require(onLoop, "not answered on the loop")
        #expect(cached.status == 200 && cached.hasCredential && cached.entries.isEmpty, "\(cached.text)")
        #expect(issuer.count == 1)

        clock.withLock { $0 = Timestamp(CivilDate(year: 2026, month: 4, day: 10), hour: 11) }   // the next month is due
        let due = Answer.Box()
        try send(gateway, signedBy: key, issue, at: now(), into: due)
        #expect(due.answer == nil, "a month due was answered without a worker")
        gate.signal()
        let issued = try #require(due.wait(), "no answer from the worker")
        #expect(issued.status == 200 && issued.hasCredential && issued.entries.count == 1, "\(issued.text)")
        #expect(issuer.count == 2)
    }

    /// Sends a signed `command`; with `waiting` false, nil unless answered before `handle` returns.
    func answer(_ gateway: Gateway, signedBy key: Ed25519PrivateKey, _ command: RPCCommand, at created: Timestamp,
                waiting: Bool = true) throws -> Answer? {
        let box = Answer.Box()
        try send(gateway, signedBy: key, command, at: created, into: box)
        return waiting ? box.wait() : box.answer
    }

    func send(_ gateway: Gateway, signedBy key: Ed25519PrivateKey, _ command: RPCCommand, at created: Timestamp,
              into box: Answer.Box) throws {
        let body = RPCRequest(purchaseKey: key.publicKey.purchaseKeyText, command: command).json.serialized()
        let signed = try RequestSigner(key: key).sign(method: "POST", authority: "badges.test", path: "/rpc", body: body,
                                                       created: created)
        var headers: HTTPHeaders = ["Host": "badges.test", "Content-Type": "application/json"]
        for field in signed.fields { headers.add(name: field.name, value: field.value) }
        let request = HTTPRequest(method: "POST", target: "/rpc", headers: headers, body: body, remoteAddress: "192.0.2.7")
        gateway.handle(request) { box.set(Answer($0)) }
    }

    /// A response, as much of it as the test reads.
    struct Answer: Sendable {
        let status: Int
        let text: String
        let json: JSONValue?

        init(_ response: HTTPResponse) {
            status = response.status
            text = String(decoding: response.body, as: UTF8.self)
            json = try? JSONParser().parse(response.body)
        }

        var hasCredential: Bool { json?["credential"] != nil }
        var entries: [LedgerEntry] {
            (json?["statement"]?["entries"]?.arrayValue ?? []).compactMap { try? LedgerEntry(json: $0) }
        }

        final class Box: Sendable {
            private let value = LockedValueBox<Answer?>(nil)
            private let arrived = DispatchSemaphore(value: 0)
            func set(_ answer: Answer) { value.withLock { $0 = answer }; arrived.signal() }
            var answer: Answer? { value.withLock { $0 } }
            func wait() -> Answer? { arrived.wait(timeout: .now() + 10) == .success ? answer : nil }
        }
    }
}
