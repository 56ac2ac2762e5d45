// Scale benchmark: per-request latency as the database grows, in process on the release build.
//
// For each size (10k, 100k, 1M purchases by default) it fills a fresh database in the service's
// own row format (purchases, their ledger rows and issuances, written through the store's own
// writer in batches), then times a cached issueBadge asserting the tip on random purchases and
// redemptions of fresh codes (BBS signing + a durable commit each, 2,500 per mode), the sizes in
// interleaved rounds, and prints p50 / p99 / max.
// Then long ledgers (10, 1,000 and 10,000 rows): issueBadge asserting the tip (the lengths in
// interleaved rounds), and asserting an entry the service does not hold (answered with the
// complete history up to Statement.completeHistoryLimit rows, past it one opening credit).
//
// Arguments: sizes (comma-separated purchase counts), e.g. `scale-bench 10000,100000,1000000`.
import BadgeCore
import Credentials
import Crypto
import Foundation
import Handlers
import JSON
import Ledger
import Schema
import Storage

/// The benchmark's clock. `@unchecked Sendable`: set only between timed calls, on one thread.
final class Clock: @unchecked Sendable {
    var now = Timestamp(CivilDate(year: 2026, month: 1, day: 5), hour: 12)
}

func nanoseconds(_ body: () throws -> Void) rethrows -> UInt64 {
    let start = DispatchTime.now().uptimeNanoseconds
    try body()
    return DispatchTime.now().uptimeNanoseconds - start
}

/// Milliseconds at a quantile of `samples` (nanoseconds).
func quantile(_ samples: [UInt64], _ q: Double) -> Double {
    let sorted = samples.sorted()
    guard !sorted.isEmpty else { return .nan }
    return Double(sorted[min(sorted.count - 1, Int(Double(sorted.count) * q))]) / 1e6
}

func ms(_ x: Double) -> String { String(format: "%.3f", x) }

struct Setup {
    let dir: URL
    let path: String
    let clock = Clock()
    let issuer: KeyringIssuer
    let store: SQLiteBadgeStore
    let service: BadgeService
    let keyring: IssuerKeyring
    /// One real credential's signature, reused by the bulk rows (their bytes are never verified here).
    let signature: [UInt8]
    let keyIndex: Int

    init(name: String) throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("scale-bench-\(name)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        path = dir.appendingPathComponent("badges.sqlite").path
        store = try SQLiteBadgeStore(path: path)
        try DefaultCatalog.seedIfEmpty(store, at: clock.now)
        keyring = try IssuerKeyring(index: 1, secretKey: IssuerSecretKey.generate())
        let issuer = KeyringIssuer(keyring: keyring)
        self.issuer = issuer
        let clock = self.clock
        service = BadgeService(store: store, issuer: issuer, clock: { clock.now })
        let credential = try issuer.issue(masterKey: Array(repeating: 1, count: 32), badgeType: .supporter,
                                          expiry: addMonths(1, to: clock.now))
        signature = credential.signature
        keyIndex = credential.keyIndex
    }

    func remove() { try? FileManager.default.removeItem(at: dir) }

    var databaseBytes: Int {
        ["", "-wal"].reduce(0) { sum, suffix in
            let path = dir.appendingPathComponent("badges.sqlite" + suffix).path
            return sum + ((try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0)
        }
    }

    /// Writes one purchase as the service does after a 255-month code: its ledger (`filler`
    /// support credits first, for long histories, then the funding credit and the first badge
    /// debit) and its issuance. Returns the ledger's tip.
    func insertPurchase(_ w: any StoreWriter, key: String, serial: Int, filler: Int = 0) throws -> LedgerEntry {
        var n = 0
        func newId() -> String { n += 1; return "s\(serial)-\(n)" }
        let past = Timestamp(seconds: clock.now.seconds - 86_400 * 400)
        let fillerRows = (0..<filler).map { i in
            LedgerEntry(entryId: newId(), changeMonths: 0, balanceMonths: 0, balanceStartTs: past, balanceAnchorTs: past,
                        balanceBadgeType: .supporter, createdAt: Timestamp(seconds: past.seconds + Int64(i)),
                        entryType: .credit(.support))
        }
        let plan = try planFirstFunding(months: 255, credit: .code, badgeType: .supporter, now: clock.now, newId: newId)
        let purchase = try w.insertPurchase(key: key, masterKey: Array(repeating: UInt8(serial & 0xff), count: 32),
                                            badgeType: .supporter, at: clock.now)
        try w.appendLedger(purchaseId: purchase.id, expectedCount: 0, entries: fillerRows + plan.rows)
        guard let period = plan.issued else { fatalError("first funding issued nothing") }
        try w.insertIssuance(IssuanceRecord(entryId: period.entryId, purchaseId: purchase.id, badgeType: period.badgeType,
                                            periodStart: period.start, periodEnd: period.end, expiry: period.expiry,
                                            keyIndex: keyIndex, signature: signature))
        return plan.tip
    }

    /// A cached issueBadge for `key` asserting `asserted`; checks the answer and returns its size.
    func issue(_ key: Ed25519PrivateKey, asserting asserted: LedgerEntry) -> Int {
        let body = RPCRequest(purchaseKey: key.publicKey.purchaseKeyText, command: .issueBadge(balance: Balance(lastEntry: asserted)))
            .json.serialized()
        let out = service.handle(body: body, caller: .signer(key.publicKey))
        guard case .badgeCredential(.some, _, _, _) = out.response else { fatalError("issueBadge failed: \(out.response)") }
        return out.body.count
    }
}

/// One database of the purchases table: its timed purchases and codes, and the samples taken.
/// Used by the benchmark's one thread only.
final class SizedDatabase {
    let size: Int
    let setup: Setup
    var keys: [Ed25519PrivateKey] = []
    var tips: [LedgerEntry] = []
    var codes: [String] = []
    var fillNanoseconds: UInt64 = 0
    var issueSamples: [UInt64] = []
    var redeemSamples: [UInt64] = []
    var baselineSamples: [UInt64] = []

    init(size: Int) throws {
        self.size = size
        setup = try Setup(name: "\(size)")
    }

    /// Fills `size` purchases; the timed ones (up to 1,000, spread evenly) have real keys, the
    /// rest carry a unique key text of the same shape.
    func fill() throws {
        let sampled = min(size, 1_000)
        let batch = 10_000
        fillNanoseconds = try nanoseconds {
            var i = 0
            while i < size {
                let end = min(size, i + batch)
                try setup.store.write { w in
                    for j in i..<end {
                        if j % (size / sampled) == 0 && keys.count < sampled {
                            let key = Ed25519PrivateKey()
                            tips.append(try setup.insertPurchase(w, key: key.publicKey.purchaseKeyText, serial: j))
                            keys.append(key)
                        } else {
                            let text = Base64URL.encode(Array(withUnsafeBytes(of: UInt64(j).bigEndian) { Array($0) }) + Array(repeating: 0xA5, count: 24))
                            _ = try setup.insertPurchase(w, key: text, serial: j)
                        }
                    }
                }
                i = end
            }
        }
        // A real database grows to this size over months: the bulk load's log is copied into the
        // database file and everything written reaches the disk before timing, or the kernel's
        // writeback of a gigabyte would be timed with the first commits' syncs.
        try setup.store.database.checkpointCompletely()
        sync()
        let clock = setup.clock
        let admin = CodeAdmin(store: setup.store, clock: { clock.now })
        codes = try (0..<5).flatMap { _ in try admin.create(badgeType: "supporter", months: 3, count: 1_000) }
        for _ in 0..<200 { issueOne() }
    }

    /// A cached issueBadge asserting the tip of a random timed purchase.
    func issueOne() {
        let k = Int.random(in: 0..<keys.count)
        _ = setup.issue(keys[k], asserting: tips[k])
    }

    /// Redeems the next unused code on `service`; returns its time.
    func redeemNext(on service: BadgeService) -> UInt64 {
        let code = codes.removeLast()
        let key = Ed25519PrivateKey()
        let body = RPCRequest(purchaseKey: key.publicKey.purchaseKeyText,
                              command: .redeemBadgeCode(masterKey: SecureRandom.bytes(32), code: code)).json.serialized()
        return nanoseconds {
            let out = service.handle(body: body, caller: .signer(key.publicKey))
            guard case .badgeCredential(.some, _, _, _) = out.response else { fatalError("redemption failed: \(out.response)") }
        }
    }
}

/// The purchases table at each size. Every database is filled first; then the sizes are timed
/// in interleaved rounds (each round: 500 cached issueBadge and 250 redemptions per size), so
/// that a neighbour's burst on this shared machine lands on every size alike instead of on
/// whichever was being timed (one size after the other, the same code measured 0.5 to 2.0).
/// A database's background checkpoint ends before the next one is timed, as with one database.
/// The baseline column (SQLite's checkpoint in the commit, on a second handle on the same file)
/// is timed per size before the rounds: it is for comparison, not a target.
func purchases(sizes: [Int]) throws {
    let rounds = 10
    let databases = try sizes.map { try SizedDatabase(size: $0) }
    defer { for d in databases { d.setup.remove() } }
    for d in databases {
        try d.fill()
        let baselineStore = try SQLiteBadgeStore(path: d.setup.path, checkpointPages: 0)
        let clock = d.setup.clock
        let baseline = BadgeService(store: baselineStore, issuer: d.setup.issuer, clock: { clock.now })
        d.baselineSamples = (0..<(rounds * 250)).map { _ in d.redeemNext(on: baseline) }
    }
    print("load average before the rounds: \(loadAverage())")
    for _ in 0..<rounds {
        for d in databases {
            for _ in 0..<500 { d.issueSamples.append(nanoseconds { d.issueOne() }) }
            for _ in 0..<250 { d.redeemSamples.append(d.redeemNext(on: d.setup.service)) }
            // Its background checkpoint ends before the next database is timed, on this core.
            while d.setup.store.database.backgroundCheckpointRunning { usleep(1_000) }
        }
    }
    print("load average after the rounds: \(loadAverage())")
    print("purchases   fill s   db MiB | cached issueBadge (tip) p50 / p99 / max ms | redemption p50 / p99 / max ms"
          + " | redemption, checkpoint in the commit (SQLite's default, before)")
    func row(_ samples: [UInt64]) -> String {
        "\(ms(quantile(samples, 0.5))) / \(ms(quantile(samples, 0.99))) / \(ms(quantile(samples, 1)))"
    }
    var redemptionP99: [Int: Double] = [:]
    for d in databases {
        redemptionP99[d.size] = quantile(d.redeemSamples, 0.99)
        print(String(format: "%9d %8.1f %8.1f |", d.size, Double(d.fillNanoseconds) / 1e9, Double(d.setup.databaseBytes) / 1_048_576)
              + "   \(row(d.issueSamples))   |   \(row(d.redeemSamples))   |   \(row(d.baselineSamples))")
    }
    if let big = sizes.max(), let previous = sizes.filter({ $0 < big }).max(), let a = redemptionP99[big], let b = redemptionP99[previous] {
        print(String(format: "redemption p99 at %d / at %d purchases: %.2f (target <= 1.5)", big, previous, a / b))
    }
}

func loadAverage() -> String {
    (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))?.split(separator: " ").prefix(3).joined(separator: " ") ?? "?"
}

func longLedgers(lengths: [Int]) throws {
    let setup = try Setup(name: "ledgers")
    defer { setup.remove() }
    print("")
    print("ledger rows | issueBadge asserting the tip p50 ms | asserting an unknown entry p50 ms, answer bytes"
          + " | whole-ledger read + statement p50 ms (the read before)")
    // The ledgers first, then the tip timed in interleaved rounds: a p50 of some 30 µs moves
    // with the neighbours, and timing one length after the other put a burst on one of them.
    let ledgers = try lengths.enumerated().map { n, length in
        let key = Ed25519PrivateKey()
        let tip = try setup.store.write { w in try setup.insertPurchase(w, key: key.publicKey.purchaseKeyText, serial: 1_000_000_000 + n, filler: length - 2) }
        for _ in 0..<50 { _ = setup.issue(key, asserting: tip) }
        return (length: length, key: key, tip: tip)
    }
    var tipSamples = [[UInt64]](repeating: [], count: ledgers.count)
    for round in 0..<10 {
        for k in 0..<ledgers.count {
            let i = (k + round) % ledgers.count
            tipSamples[i] += (0..<200).map { _ in nanoseconds { _ = setup.issue(ledgers[i].key, asserting: ledgers[i].tip) } }
        }
    }
    var tipP50: [Int: Double] = [:]
    for (i, (length, key, tip)) in ledgers.enumerated() {
        var unknown = tip
        unknown.entryId = "not-held"
        var bytes = 0
        let unknownSamples = (0..<200).map { _ in nanoseconds { bytes = setup.issue(key, asserting: unknown) } }
        let tipMedian = quantile(tipSamples[i], 0.5)
        tipP50[length] = tipMedian
        let purchaseId = try setup.store.read { try $0.purchase(key: key.publicKey.purchaseKeyText)!.id }
        let wholeSamples = try (0..<200).map { _ in
            try nanoseconds {
                let rows = try setup.store.read { try $0.ledger(purchaseId: purchaseId) }
                guard statement(of: rows, asserting: tip).statement.entries.isEmpty else { fatalError("tip not found") }
            }
        }
        print(String(format: "%11d |", length) + " \(ms(tipMedian))" + "   |   \(ms(quantile(unknownSamples, 0.5))), \(bytes)"
              + "   |   \(ms(quantile(wholeSamples, 0.5)))")
    }
    if let longest = lengths.max(), let shortest = lengths.min(), let a = tipP50[longest], let b = tipP50[shortest] {
        print(String(format: "issueBadge (tip) at %d rows / at %d rows: %.2f (target <= 1.2)", longest, shortest, a / b))
    }
}

let sizes = (CommandLine.arguments.dropFirst().first ?? "10000,100000,1000000").split(separator: ",").compactMap { Int($0) }
print("scale benchmark (release, one thread, in process, SQLite WAL synchronous=FULL, checkpoints in the background)")
try purchases(sizes: sizes)
try longLedgers(lengths: [10, 1_000, 10_000])
