import BadgeCore
import Crypto
import Foundation
import Handlers
import JSON
import Ledger
import Locking
import Schema
import Storage
import TestSupport

/// A clock the test moves.
final class TestClock: Sendable {
    private let t: LockedValueBox<Timestamp>
    init(_ t: Timestamp) { self.t = LockedValueBox(t) }
    var now: Timestamp {
        get { t.withLock { $0 } }
        set { t.withLock { $0 = newValue } }
    }
    var function: @Sendable () -> Timestamp { { self.now } }
}

/// A service on a fresh database, with helpers to build and send requests.
struct Harness {
    let dir = TemporaryDirectory("handlers")
    /// On the backend under test (``StoreBackend/underTest``).
    let store: any BadgeStore
    let clock: TestClock
    let issuer = CountingIssuer()
    /// What the service reported to the operator's log as internal failures.
    let internalErrors = LockedValueBox<[String]>([])
    /// What the service reported to the operator's log as provider failures.
    let providerFailures = LockedValueBox<[String]>([])
    let service: BadgeService
    let codes: CodeAdmin
    let googlePlay: GooglePlayFunding?

    /// Over `given` when set, else a fresh database of the backend under test.
    init(at t: Timestamp = Timestamp(CivilDate(year: 2026, month: 3, day: 10), hour: 11), over given: (any BadgeStore)? = nil,
         googlePlay makeGooglePlay: ((@escaping @Sendable () -> Timestamp) -> GooglePlayFunding)? = nil) throws {
        store = try given ?? StoreBackend.underTest.makeStore(in: dir)
        clock = TestClock(t)
        try DefaultCatalog.seedIfEmpty(store, at: t)
        let googlePlay = makeGooglePlay?(clock.function)
        self.googlePlay = googlePlay
        service = BadgeService(store: store, issuer: issuer, clock: clock.function, googlePlay: googlePlay,
                               configuration: .init(catalogCacheSeconds: 0,
                                                    reportInternalError: { [internalErrors] line in internalErrors.withLock { $0.append(line) } },
                                                    reportProviderFailure: { [providerFailures] line in providerFailures.withLock { $0.append(line) } }))
        codes = CodeAdmin(store: store, clock: clock.function)
    }

    func send(_ request: RPCRequest, as caller: Caller) -> RPCOutcome {
        service.handle(body: request.json.serialized(), caller: caller)
    }

    func send(_ command: RPCCommand, by key: Ed25519PrivateKey) -> RPCOutcome {
        send(RPCRequest(purchaseKey: key.publicKey.purchaseKeyText, command: command), as: .signer(key.publicKey))
    }

    /// `command` sent to a second service on the same clock, issuer and Play funding over `store`
    /// (a ``BeforeFirstWrite`` of the harness's): one whose write races what lands before it.
    func send(_ command: RPCCommand, by key: Ed25519PrivateKey, over store: any BadgeStore) -> RPCOutcome {
        let racing = BadgeService(store: store, issuer: issuer, clock: clock.function, googlePlay: googlePlay,
                                  configuration: .init(catalogCacheSeconds: 0))
        let request = RPCRequest(purchaseKey: key.publicKey.purchaseKeyText, command: command)
        return racing.handle(body: request.json.serialized(), caller: .signer(key.publicKey))
    }

    func code(_ type: String = "supporter", months: Int = 3, uses: Int = 1, payment: CodePayment = .paid,
              expires: Timestamp? = nil) throws -> String {
        try codes.create(badgeType: type, months: months, uses: uses, expires: expires, payment: payment)[0]
    }

    func redeem(_ code: String, by key: Ed25519PrivateKey, masterKey: [UInt8] = SecureRandom.bytes(32)) -> RPCOutcome {
        send(.redeemBadgeCode(masterKey: masterKey, code: code), by: key)
    }

    func issue(by key: Ed25519PrivateKey, asserting entry: LedgerEntry) -> RPCOutcome {
        send(.issueBadge(balance: Balance(lastEntry: entry)), by: key)
    }

    func ledger(of key: Ed25519PrivateKey) throws -> [LedgerEntry] {
        try store.read { r in
            guard let p = try r.purchase(key: key.publicKey.purchaseKeyText) else { return [] }
            return try r.ledger(purchaseId: p.id)
        }
    }
}

extension RPCOutcome {
    var credential: BadgeCredential? {
        if case .badgeCredential(let c, _, _, _) = response { return c }
        return nil
    }
    var statement: Statement? {
        switch response {
        case .badgeCredential(_, let s, _, _): return s
        case .badgeCatalog(_, let s): return s
        default: return nil
        }
    }
    var error: ErrorCode? { response.errorCode }
    var message: String? {
        if case .error(_, let m, _) = response { return m }
        return nil
    }
}

func at(_ y: Int, _ m: Int, _ d: Int, _ h: Int = 11) -> Timestamp { Timestamp(CivilDate(year: y, month: m, day: d), hour: h) }

extension Harness {
    /// Runs raw SQL in a write transaction (a trigger playing a bug or a race no handler makes):
    /// `sqlite` on SQLite, `postgres` on PostgreSQL.
    func execute(sqlite: String, postgres: String) throws {
        switch store {
        case let s as SQLiteBadgeStore: try s.database.executeForTesting(sqlite)
        case let p as PostgresBadgeStore: try p.database.executeForTesting(postgres)
        default: throw StorageError.corrupt("no raw SQL on \(type(of: store))")
        }
    }

    /// The text each database gives the same failure.
    func text(sqlite: String, postgres: String) -> String { store is PostgresBadgeStore ? postgres : sqlite }
}
