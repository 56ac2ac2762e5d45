import BadgeCore
import Dispatch
import Foundation
import Ledger
import Locking
import Storage
import TestSupport
import Testing

/// What must hold on both backends beyond single-writer round trips: one schema, the version
/// rule, and conditional writes racing from separate handles (separate processes' worth of
/// connections on PostgreSQL) landing once.
@Suite struct BackendParityTests {
    let dir = TemporaryDirectory("storage-parity")
    let t0 = Timestamp(CivilDate(year: 2026, month: 3, day: 10), hour: 11)

    func entry(_ id: String, balance: Int) -> LedgerEntry {
        LedgerEntry(entryId: id, changeMonths: 1, balanceMonths: balance, balanceStartTs: t0, balanceAnchorTs: t0,
                    balanceBadgeType: .supporter, createdAt: t0, entryType: .credit(.support))
    }

    @Test func bothBackendsReachTheSameSchema() throws {
        let sqlite = try SQLiteBadgeStore(path: dir.file("schema.sqlite"))
        let postgres = try PostgresBadgeStore(settings: try PostgresCluster.shared.makeDatabase())
        let a = try sqlite.database.schema(), b = try postgres.database.schema()
        #expect(a.tables.count >= 15)
        #expect(a == b, "SQLite:\n\(a)\nPostgreSQL:\n\(b)")
        #expect(try postgres.database.schemaVersion() == sqlite.database.schemaVersion())
    }

    @Test(arguments: StoreBackend.allCases) func aDatabaseFromANewerServiceIsRefused(_ backend: StoreBackend) throws {
        let database = try backend.makeDatabase(in: dir)
        try execute(on: try database.open(), "INSERT INTO schema_migrations (version, applied_at) VALUES (999, 0)")
        #expect {
            _ = try database.open()
        } throws: { error in
            if case StorageError.newerSchema(path: _, found: 999, supported: _) = error { return true } else { return false }
        }
    }

    /// An index's recorded public key is never replaced: the first recorded wins, whether or not
    /// anything was signed with it, so no instance ever signs with a key another one lacks.
    @Test(arguments: StoreBackend.allCases) func aRecordedIssuerKeyIsNeverReplaced(_ backend: StoreBackend) throws {
        let store = try #require(try backend.makeDatabase(in: dir).open() as? any OperatedStore)
        let a = [UInt8](repeating: 1, count: 96), b = [UInt8](repeating: 2, count: 96)
        #expect(try store.recordedIssuerKeys().isEmpty)
        #expect(try store.recordIssuerKeys([1: a], at: t0) == nil)
        #expect(try store.recordIssuerKeys([1: a, 2: b], at: t0) == nil)
        #expect(try store.recordIssuerKeys([1: b], at: t0) == IssuerKeyConflict(index: 1, recorded: a))
        #expect(try store.recordIssuerKeys([2: b], at: t0) == nil)  // an index absent from the file is not forgotten
        #expect(try store.recordIssuerKeys([3: a, 2: a], at: t0) == IssuerKeyConflict(index: 2, recorded: b))
        // the conflict wrote nothing of its own, not even the free index beside it
        #expect(try store.recordedIssuerKeys() == [1: a, 2: b])
    }

    /// Instances recording different keys for one index at once: exactly one key is recorded, and
    /// every other instance is told the key it lost to.
    @Test(arguments: StoreBackend.allCases) func racingRecordsOfOneIndexKeepOneKey(_ backend: StoreBackend) throws {
        let database = try backend.makeDatabase(in: dir)
        let stores = try (0..<6).map { _ in try #require(try database.open() as? any OperatedStore) }
        let outcomes = LockedValueBox<[IssuerKeyConflict?]>([])
        DispatchQueue.concurrentPerform(iterations: stores.count) { i in
            // A failure is a wrong outcome too: index -1 stands for it.
            let conflict: IssuerKeyConflict?
            do { conflict = try stores[i].recordIssuerKeys([1: [UInt8](repeating: UInt8(i + 1), count: 96)], at: t0) } catch {
                Issue.record("\(error)")
                conflict = IssuerKeyConflict(index: -1, recorded: [])
            }
            outcomes.withLock { $0.append(conflict) }
        }
        let recorded = try #require(try stores[0].recordedIssuerKeys()[1])
        let results = outcomes.withLock { $0 }
        #expect(results.filter { $0 == nil }.count == 1, "\(results)")
        #expect(results.compactMap { $0 }.allSatisfy { $0 == IssuerKeyConflict(index: 1, recorded: recorded) }, "\(results)")
    }

    /// Eight handles append from the same tip at once: one lands, every other is a conflict.
    @Test(arguments: StoreBackend.allCases) func racingAppendsFromOneTipLandOnce(_ backend: StoreBackend) throws {
        let database = try backend.makeDatabase(in: dir)
        let setup = try database.open()
        let purchase = try setup.write { try $0.insertPurchase(key: "K", masterKey: [1], badgeType: .supporter, at: t0) }
        let stores = try (0..<8).map { _ in try database.open() }
        let outcomes = LockedValueBox<[String]>([])
        DispatchQueue.concurrentPerform(iterations: stores.count) { i in
            do {
                try stores[i].write { try $0.appendLedger(purchaseId: purchase.id, expectedCount: 0, entries: [entry("e\(i)", balance: 1)]) }
                outcomes.withLock { $0.append("landed") }
            } catch StorageError.conflict {
                outcomes.withLock { $0.append("conflict") }
            } catch {
                outcomes.withLock { $0.append("\(error)") }
            }
        }
        #expect(outcomes.withLock { $0 }.sorted() == ["conflict"] * 7 + ["landed"])
        #expect(try setup.read { try $0.ledger(purchaseId: purchase.id) }.count == 1)
    }

    /// Eight keys race for the last use of a code, each in one transaction that counts the uses
    /// and then redeems: one wins, the others see the code used.
    @Test(arguments: StoreBackend.allCases) func racingKeysForTheLastUseOfACodeGetOneWinner(_ backend: StoreBackend) throws {
        struct CodeUsed: Error {}
        let database = try backend.makeDatabase(in: dir)
        let hash = [UInt8](repeating: 7, count: 32)
        try database.open().write {
            try $0.insertCode(CodeRecord(hash: hash, badgeType: .supporter, months: 1, maxUses: 1, payment: .free, expiresAt: nil, createdAt: t0))
        }
        let stores = try (0..<8).map { _ in try database.open() }
        let outcomes = LockedValueBox<[String]>([])
        DispatchQueue.concurrentPerform(iterations: stores.count) { i in
            do {
                try stores[i].write { w in
                    guard try w.redemptions(codeHash: hash).count < 1 else { throw CodeUsed() }
                    let p = try w.insertPurchase(key: "K\(i)", masterKey: [1], badgeType: .supporter, at: t0)
                    try w.insertRedemption(codeHash: hash, purchaseId: p.id, at: t0)
                }
                outcomes.withLock { $0.append("won") }
            } catch is CodeUsed {
                outcomes.withLock { $0.append("used") }
            } catch StorageError.conflict {
                outcomes.withLock { $0.append("used") }
            } catch {
                outcomes.withLock { $0.append("\(error)") }
            }
        }
        #expect(outcomes.withLock { $0 }.sorted() == ["used"] * 7 + ["won"])
        #expect(try stores[0].read { try $0.redemptions(codeHash: hash) }.count == 1)
    }

    @Test(arguments: StoreBackend.allCases) func conditionalWritesAnswerOnce(_ backend: StoreBackend) throws {
        let store = try backend.makeStore(in: dir)
        #expect(try store.write { try $0.recordProviderEvent(provider: "stripe", eventId: "evt", at: t0) })
        #expect(try !store.write { try $0.recordProviderEvent(provider: "stripe", eventId: "evt", at: t0) })
        let a = try store.write { try $0.insertPurchase(key: "A", masterKey: [1], badgeType: .supporter, at: t0) }
        let b = try store.write { try $0.insertPurchase(key: "B", masterKey: [1], badgeType: .supporter, at: t0) }
        let receipt = [UInt8](repeating: 3, count: 32)
        try store.write { try $0.insertReceipt(hash: receipt, purchaseId: a.id) }
        #expect(throws: StorageError.conflict(constraint: "receipt moved")) {
            try store.write { try $0.retireReceipt(hash: receipt, from: b.id, to: a.id, at: t0) }
        }
        try store.write { try $0.retireReceipt(hash: receipt, from: a.id, to: b.id, at: t0) }
        #expect(try store.read { try $0.receiptHolder(hash: receipt) } == nil)
        #expect(try store.read { try $0.receiptTransfer(hash: receipt) }.map { [$0.from, $0.to] } == [a.id, b.id])
        #expect(throws: StorageError.conflict(constraint: "receipt moved")) {
            try store.write { try $0.retireReceipt(hash: receipt, from: a.id, to: b.id, at: t0) }
        }
        try store.write { try $0.setPause(purchaseId: a.id, since: t0) }
        #expect(throws: StorageError.conflict(constraint: "pause changed")) {
            try store.write { try $0.endPause(purchaseId: a.id, expected: nil) }
        }
        try store.write { try $0.endPause(purchaseId: a.id, expected: t0) }
        #expect(try store.read { try $0.pausedSince(purchaseId: a.id) } == nil)
    }
}

/// What only PostgreSQL has: a server that may go away and come back, a pool, timeouts, and a
/// URL that must not hold the password.
@Suite struct PostgresOperationsTests {
    let t0 = Timestamp(CivilDate(year: 2026, month: 3, day: 10), hour: 11)

    @Test func aURLHoldingAPasswordIsRefusedAndTheRedactedNameHasNone() throws {
        #expect(throws: PostgresSettingsError.passwordInURL) {
            _ = try PostgresSettings(url: "postgresql://badge:secret@127.0.0.1:5432/badges", password: nil)
        }
        #expect(throws: PostgresSettingsError.self) { _ = try PostgresSettings(url: "postgresql://[::1", password: nil) }
        let settings = try PostgresSettings(url: "host=db.internal port=6543 user=svc dbname=badges", password: "hunter2")
        #expect(settings.redacted == "postgresql://svc@db.internal:6543/badges")
    }

    @Test func aWrongPasswordIsUnavailableNamingTheServerNotThePassword() throws {
        let cluster = PostgresCluster.shared
        let wrong = "not-\(cluster.password)"
        let settings = try PostgresSettings(url: cluster.url(database: "postgres"), password: wrong)
        #expect {
            _ = try PostgresBadgeStore(settings: settings)
        } throws: { error in
            guard case StorageError.unavailable(let reason) = error else { return false }
            return reason.contains("127.0.0.1") && !reason.contains(wrong)
        }
    }

    @Test func aStatementPastItsTimeoutIsUnavailable() throws {
        let store = try PostgresBadgeStore(settings: try PostgresCluster.shared.makeDatabase(statementTimeoutMilliseconds: 200))
        #expect(throws: StorageError.unavailable(reason: "a statement ran past [database] statement_timeout_ms")) {
            try store.database.executeForTesting("SELECT pg_sleep(2)")
        }
        #expect(store.readiness() == .ready)
    }

    /// An instance starting while another holds the migrations' lock waits for it, however long:
    /// `statement_timeout_ms` bounds a request's statements, not a migration step.
    @Test func aMigrationWaitsForAnotherPastTheStatementTimeout() throws {
        let patient = try PostgresCluster.shared.makeDatabase()
        let hurried = try PostgresSettings(url: patient.url, password: patient.password, statementTimeoutMilliseconds: 200)
        let holder = try PostgresBadgeStore(settings: patient)
        let released = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            // The migrations' advisory lock key ("badges"), held by another session for 1.5 s.
            _ = try? holder.database.executeForTesting("SELECT pg_advisory_xact_lock(108170435847539), pg_sleep(1.5)")
            released.signal()
        }
        // Until the other session holds it (a loaded machine may start it late).
        let held = [UInt8](repeating: 0, count: 7) + [1]
        // (A `for … where` would go on querying after the lock is seen, past its release; pg_locks
        // shows every database's locks, and other tests migrate theirs on the shared cluster.)
        let deadline = Date().addingTimeInterval(30)
        while try holder.database.readBlobsForTesting(
            "SELECT int8send(count(*)) FROM pg_locks WHERE locktype = 'advisory' AND granted "
            + "AND database = (SELECT oid FROM pg_database WHERE datname = current_database())") != [held], Date() < deadline {
            Thread.sleep(forTimeInterval: 0.01)
        }
        let started = Date()
        let waiting = try PostgresBadgeStore(settings: hurried)
        #expect(Date().timeIntervalSince(started) > 0.3, "the lock was not held while it migrated")
        #expect(waiting.readiness() == .ready)
        released.wait()
    }

    /// A transaction whose connection is lost after its first statement is not run again: its
    /// COMMIT may have landed before the reply was lost. (A sequence counts the runs: nextval is
    /// not rolled back.) Only a pooled connection found dead at BEGIN is retried, on a fresh one.
    @Test func aTransactionWhoseConnectionIsLostMidwayRunsOnce() throws {
        let store = try PostgresBadgeStore(settings: try PostgresCluster.shared.makeDatabase())
        try store.database.executeForTesting("CREATE SEQUENCE runs")
        _ = try store.read { try $0.prices() }   // leaves a connection in the pool
        #expect(throws: StorageError.self) {
            try store.database.executeForTesting("SELECT nextval('runs'), pg_terminate_backend(pg_backend_pid())")
        }
        let runs = try store.database.readBlobsForTesting("SELECT int8send(last_value) FROM runs")
        #expect(runs == [[0, 0, 0, 0, 0, 0, 0, 1]])
        #expect(store.readiness() == .ready)
    }

    /// With every connection of the pool out, a request waits the connect timeout and is unavailable.
    @Test func theConnectionPoolIsBounded() throws {
        let store = try PostgresBadgeStore(settings: try PostgresCluster.shared.makeDatabase(poolSize: 1))
        let holding = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0)
        let holder = Thread {
            _ = try? store.read { _ in
                holding.signal()
                release.wait()
            }
        }
        holder.start()
        holding.wait()
        let started = Date()
        #expect(throws: StorageError.self) { _ = try store.read { try $0.prices() } }
        #expect(Date().timeIntervalSince(started) >= 1.5)
        release.signal()
        #expect(waitUntil { (try? store.read { try $0.prices() }) != nil })
    }

    /// The server restarts under an open store: requests fail as unavailable (retryable) while it
    /// is down, /readyz says so, and the same store works again once it is back, without reopening.
    @Test func aRestartedServerIsUnavailableThenRecovered() throws {
        let cluster = try PostgresCluster.dedicated()
        let store = try PostgresBadgeStore(settings: try cluster.makeDatabase())
        _ = try store.write { try $0.insertPurchase(key: "K", masterKey: [1], badgeType: .supporter, at: t0) }
        try cluster.stop()
        #expect {
            _ = try store.read { try $0.purchase(key: "K") }
        } throws: { error in
            if case StorageError.unavailable = error { return true } else { return false }
        }
        #expect(store.readiness().reason?.contains("127.0.0.1:\(cluster.port)") == true)
        try cluster.start()
        #expect(try store.read { try $0.purchase(key: "K") }?.purchaseKey == "K")
        #expect(store.readiness() == .ready)
        // A restart while connections sit idle in the pool: the first request after it still succeeds.
        try cluster.restart()
        _ = try store.write { try $0.insertPurchase(key: "L", masterKey: [1], badgeType: .supporter, at: t0) }
        #expect(try store.read { try $0.purchase(key: "L") } != nil)
    }

    /// The server freezes (SIGSTOP: its connections stay open and the kernel still accepts new
    /// ones, but nothing answers, so its own statement_timeout cancels nothing): a read on a
    /// pooled connection, a write, and the readiness probe fail as unavailable once the client's
    /// deadlines pass instead of waiting as long as the server stays frozen, and the same store
    /// works again once it resumes.
    @Test func aFrozenServerFailsRequestsAtTheDeadlinesThenRecovers() throws {
        let cluster = try PostgresCluster.dedicated()
        let made = try cluster.makeDatabase()
        let settings = try PostgresSettings(url: made.url, password: made.password, poolSize: 2, connectTimeoutSeconds: 2,
                                            statementTimeoutMilliseconds: 1_000)
        let store = try PostgresBadgeStore(settings: settings), t0 = t0
        _ = try store.write { try $0.insertPurchase(key: "K", masterKey: [1], badgeType: .supporter, at: t0) }
        try cluster.freeze()
        var thawed = false
        defer { if !thawed { try? cluster.thaw() } }

        // Each attempt runs on a thread of its own so that a wait without end fails the test
        // (and the server is thawed) rather than hanging the suite.
        func failsUnavailable(_ what: String, _ attempt: @escaping @Sendable () throws -> Void) {
            let outcome = LockedValueBox<(any Error)??>(nil)
            Thread.detachNewThread {
                do { try attempt(); outcome.withLock { $0 = .some(nil) } } catch { outcome.withLock { $0 = .some(error) } }
            }
            let ended = waitUntil(timeout: .seconds(30)) { outcome.withLock { $0 != nil } }
            #expect(ended, "\(what) still waits on a frozen server")
            guard ended, case .some(.some(let error)) = outcome.withLock({ $0 }) else {
                if ended { Issue.record("\(what) succeeded on a frozen server") }
                return
            }
            guard case StorageError.unavailable(let reason) = error else {
                Issue.record("\(what): \(error), expected unavailable")
                return
            }
            #expect(reason.contains("127.0.0.1:\(cluster.port)"), "\(what): \(reason)")
        }
        failsUnavailable("a read on a pooled connection") { _ = try store.read { try $0.purchase(key: "K") } }
        failsUnavailable("a write") { _ = try store.write { try $0.insertPurchase(key: "L", masterKey: [1], badgeType: .supporter, at: t0) } }
        let probe = LockedValueBox<Readiness?>(nil)
        Thread.detachNewThread { let r = store.readiness(); probe.withLock { $0 = r } }
        #expect(waitUntil(timeout: .seconds(30)) { probe.withLock { $0 != nil } }, "the readiness probe still waits on a frozen server")
        #expect(probe.withLock { $0 }?.reason?.contains("127.0.0.1:\(cluster.port)") == true)

        try cluster.thaw()
        thawed = true
        #expect(waitUntil(timeout: .seconds(30)) { (try? store.read { try $0.purchase(key: "K") }) != nil })
        #expect(store.readiness() == .ready)
    }
}

private func * (items: [String], times: Int) -> [String] { Array((0..<times).flatMap { _ in items }) }
