// Benchmark of signed issueBadge requests on one core, in process: RFC 9421 verification,
// JSON, the ledger pass and the database, with BBS signing and a durable commit for a due month;
// then due months on as many threads as the service's worker pool (each its own purchases, the same store).
// The references measured in the same run are OpenSSL's raw Ed25519 verification rate and, for
// the PostgreSQL backend, the same requests on SQLite (a throw-away cluster with fsync on, on
// 127.0.0.1: each commit is a round trip and an fsync of the server's log).
import BadgeCore
import Credentials
import Crypto
import Foundation
import Handlers
import JSON
import Ledger
import RequestAuth
import Schema
import Storage
import TestSupport

/// The benchmark's clock, moved a month at a time between runs.
/// `@unchecked Sendable`: only the main thread moves it, while no request is being served.
final class Clock: @unchecked Sendable {
    var now = Timestamp(CivilDate(year: 2026, month: 1, day: 5), hour: 12)
}

/// CPU seconds used by this process so far (all its threads; not the PostgreSQL server's).
func processCPUSeconds() -> Double {
    var t = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t)
    return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
}

func seconds(_ body: () -> Void) -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    body()
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
}

func rate(_ count: Int, _ elapsed: Double) -> Double { Double(count) / elapsed }

/// sched_setaffinity(2), which Glibc's Swift module leaves out (it is declared under _GNU_SOURCE).
@_silgen_name("sched_setaffinity")
func setAffinity(_ pid: pid_t, _ size: Int, _ mask: UnsafeRawPointer) -> Int32

/// Pins the calling thread to the CPUs (the one-thread rows stay on CPU 0, as before); threads
/// it starts inherit the set.
func pin(toCPUs cpus: [Int]) {
    var set = cpu_set_t()
    withUnsafeMutableBytes(of: &set) { bytes in for cpu in cpus { bytes[cpu / 8] |= UInt8(1 << (cpu % 8)) } }
    _ = withUnsafeBytes(of: &set) { setAffinity(0, $0.count, $0.baseAddress!) }
}

/// Threads serving due months at once: the service's default worker pool (`[server] workers`).
let concurrentWorkers = max(4, 2 * ProcessInfo.processInfo.activeProcessorCount)

/// The rates of one store: cached repeats, due months on one thread, due months on the worker pool's threads; and the
/// process's CPU time per due month (what BBS signing changes; the rest of the wall time is waiting).
func measure(_ store: any BadgeStore, purchases: Int) throws -> (cached: Double, due: Double, dueConcurrent: Double, dueCPU: Double,
                                                                 dueConcurrentCPU: Double) {
    let clock = Clock()
    try DefaultCatalog.seedIfEmpty(store, at: clock.now)
    let keyring = try IssuerKeyring(index: 1, secretKey: IssuerSecretKey.generate())
    let service = BadgeService(store: store, issuer: KeyringIssuer(keyring: keyring), clock: { clock.now })
    let authenticator = RequestAuthenticator()

    // Funded purchases, each by a redeemed 255-month code.
    let codes = try CodeAdmin(store: store, clock: { clock.now }).create(badgeType: "supporter", months: 255, count: purchases)
    var keys: [Ed25519PrivateKey] = []
    var tips: [LedgerEntry] = []
    for code in codes {
        let key = Ed25519PrivateKey()
        let body = RPCRequest(purchaseKey: key.publicKey.purchaseKeyText,
                              command: .redeemBadgeCode(masterKey: SecureRandom.bytes(32), code: code)).json.serialized()
        let out = service.handle(body: body, caller: .signer(key.publicKey))
        guard case .badgeCredential(_, let statement, _, _) = out.response, let tip = statement.entries.last else {
            fatalError("setup redemption failed: \(out.response)")
        }
        keys.append(key)
        tips.append(tip)
    }

    /// A signed issueBadge request as a client sends it (signing is the client's cost, done up front).
    func signedRequest(_ i: Int) -> SignedRequest {
        let body = RPCRequest(purchaseKey: keys[i].publicKey.purchaseKeyText, command: .issueBadge(balance: Balance(lastEntry: tips[i])))
            .json.serialized()
        let headers = try! RequestSigner(key: keys[i]).sign(method: "POST", authority: "127.0.0.1:8080", path: "/rpc",
                                                            body: body, created: clock.now)
        return SignedRequest(method: "POST", path: "/rpc", authority: "127.0.0.1:8080",
                             headers: [("Host", "127.0.0.1:8080"), ("Content-Type", "application/json")] + headers.fields, body: body)
    }

    /// What the gateway does for one signed request: verify, then handle.
    @Sendable func serve(_ request: SignedRequest) -> RPCOutcome {
        guard case .valid(let signer) = authenticator.authenticate(request, now: clock.now) else { fatalError("signature refused") }
        return service.handle(body: request.body, caller: .signer(signer.publicKey))
    }

    // 2. Cached repeats: inside the issued period, answered from the record (no write).
    let cachedRequests = (0..<purchases).map(signedRequest)
    for r in cachedRequests.prefix(50) { _ = serve(r) }  // warm up
    var cached = 0
    let cachedElapsed = seconds {
        let end = DispatchTime.now().uptimeNanoseconds + 3_000_000_000
        while DispatchTime.now().uptimeNanoseconds < end {
            let out = serve(cachedRequests[cached % purchases])
            guard case .badgeCredential(.some, let s, _, _) = out.response, s.entries.isEmpty else { fatalError("not a cached answer: \(out.response)") }
            cached += 1
        }
    }
    let cachedRate = rate(cached, cachedElapsed)

    // 3. Due months: a month later every purchase has one due: BBS signing + a durable commit each.
    var due = 0
    var dueElapsed = 0.0
    var dueCPUTotal = 0.0
    for _ in 0..<3 {
        clock.now = addMonths(1, to: clock.now)
        let requests = (0..<purchases).map(signedRequest)
        let cpuStart = processCPUSeconds()
        dueElapsed += seconds {
            for r in requests {
                let out = serve(r)
                guard case .badgeCredential(.some, let s, _, _) = out.response, s.entries.contains(where: { $0.entryType == .debit(.badge) })
                else { fatalError("no month issued: \(out.response)") }
                due += 1
            }
        }
        dueCPUTotal += processCPUSeconds() - cpuStart
        for i in 0..<purchases { tips[i] = try store.read { try $0.ledger(purchaseId: $0.purchase(key: keys[i].publicKey.purchaseKeyText)!.id) }.last! }
    }
    let dueCPU = dueCPUTotal / Double(due)

    // 4. Due months served concurrently, as the service serves them: as many threads as its
    // default worker pool ([server] workers: max(4, 2 × CPUs)), on all CPUs, each its own share
    // of the purchases. Writes that queue behind a commit share the next one (group commit).
    let shares = (0..<concurrentWorkers).map { w in Array(stride(from: w, to: purchases, by: concurrentWorkers)) }
    var dueConcurrent = 0
    var dueConcurrentElapsed = 0.0
    var dueConcurrentCPUTotal = 0.0
    for _ in 0..<3 {
        clock.now = addMonths(1, to: clock.now)
        let requests = shares.map { $0.map(signedRequest) }
        pin(toCPUs: Array(0..<ProcessInfo.processInfo.activeProcessorCount))
        let cpuStart = processCPUSeconds()
        dueConcurrentElapsed += seconds {
            let done = DispatchGroup()
            for share in requests {
                done.enter()
                Thread {
                    for r in share {
                        let out = serve(r)
                        guard case .badgeCredential(.some, let s, _, _) = out.response, s.entries.contains(where: { $0.entryType == .debit(.badge) })
                        else { fatalError("no month issued: \(out.response)") }
                    }
                    done.leave()
                }.start()
            }
            done.wait()
        }
        dueConcurrentCPUTotal += processCPUSeconds() - cpuStart
        dueConcurrent += purchases
        for i in 0..<purchases { tips[i] = try store.read { try $0.ledger(purchaseId: $0.purchase(key: keys[i].publicKey.purchaseKeyText)!.id) }.last! }
    }
    pin(toCPUs: [0])
    return (cachedRate, rate(due, dueElapsed), rate(dueConcurrent, dueConcurrentElapsed), dueCPU, dueConcurrentCPUTotal / Double(dueConcurrent))
}

func benchmark() throws {
    let purchases = Int(CommandLine.arguments.dropFirst().first ?? "") ?? 300
    pin(toCPUs: [0])
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("issue-bench-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: dir) }

    // 1. Reference: OpenSSL's Ed25519 verification through EVP (issue 17's yardstick; the gateway
    // itself now verifies in Swift, `isValidSignature`).
    let refKey = Ed25519PrivateKey()
    let message = Array(repeating: UInt8(7), count: 300)
    let signature = refKey.signature(for: message)
    var verified = 0
    let refElapsed = seconds {
        let end = DispatchTime.now().uptimeNanoseconds + 2_000_000_000
        while DispatchTime.now().uptimeNanoseconds < end {
            for _ in 0..<100 { if refKey.publicKey.isValidSignatureOpenSSL(signature, for: message) { verified += 1 } }
        }
    }
    let ed25519Rate = rate(verified, refElapsed)

    let sqlite = try measure(try SQLiteBadgeStore(path: dir.appendingPathComponent("badges.sqlite").path), purchases: purchases)
    let cluster = try PostgresCluster.dedicated(durable: true)
    let postgres = try measure(try PostgresBadgeStore(settings: try cluster.makeDatabase()), purchases: purchases)

    func f(_ x: Double) -> String { String(format: "%.0f", x) }
    func r(_ x: Double) -> String { String(format: "%.2f", x) }
    print("issueBadge benchmark (release, one thread on CPU 0 unless said, \(purchases) purchases; SQLite WAL synchronous=FULL; PostgreSQL \(cluster.version) on 127.0.0.1, fsync on)")
    print("  reference: OpenSSL Ed25519 verify                   \(f(ed25519Rate)) /s")
    print("  cached repeat (verify + read + answer), SQLite      \(f(sqlite.cached)) /s   ratio to Ed25519 verify \(r(sqlite.cached / ed25519Rate))  (target >= 0.50)")
    print("  due month (verify + BBS sign + commit), SQLite      \(f(sqlite.due)) /s   (target >= 300)   CPU \(f(sqlite.dueCPU * 1e6)) µs a request")
    print("  due month, \(concurrentWorkers) threads (the workers) on \(ProcessInfo.processInfo.activeProcessorCount) CPUs, SQLite  \(f(sqlite.dueConcurrent)) /s   (target >= 1000)  CPU \(f(sqlite.dueConcurrentCPU * 1e6)) µs a request")
    print("  cached repeat, PostgreSQL                           \(f(postgres.cached)) /s   ratio to SQLite \(r(postgres.cached / sqlite.cached))")
    print("  due month (signed issuance), PostgreSQL             \(f(postgres.due)) /s   ratio to SQLite \(r(postgres.due / sqlite.due))   CPU \(f(postgres.dueCPU * 1e6)) µs a request (ours)")
    print("  due month, \(concurrentWorkers) threads, PostgreSQL             \(f(postgres.dueConcurrent)) /s   ratio to SQLite \(r(postgres.dueConcurrent / sqlite.dueConcurrent))   CPU \(f(postgres.dueConcurrentCPU * 1e6)) µs a request (ours)")
}

try benchmark()
