import BadgeCore
import Foundation
import Gateway
import Handlers
import HTTPServer
import Locking
import RequestAuth
import Storage
import TestSupport
import Testing

/// `/metrics` costs nothing in the ledger's size: the store's totals are read at most every 15 s,
/// in the background, and a scrape renders the last reading; `/readyz` writes at most once a second.
@Suite struct ScrapeCostTests {
    static let totals = StoreTotals(ledger: [], issuances: [], purchases: 7, databaseBytes: 4096)

    /// A manual monotonic clock and the background jobs a cache queued, run when the test says.
    final class Scripted: Sendable {
        private let state = LockedValueBox<(now: Double, jobs: [@Sendable () -> Void], reads: Int)>((1000, [], 0))
        var now: Double { state.withLock { $0.now } }
        var reads: Int { state.withLock { $0.reads } }
        var queued: Int { state.withLock { $0.jobs.count } }
        func advance(_ seconds: Double) { state.withLock { $0.now += seconds } }
        func queue(_ job: @escaping @Sendable () -> Void) { state.withLock { $0.jobs.append(job) } }
        func read() { state.withLock { $0.reads += 1 } }
        func runQueued() {
            let jobs = state.withLock { s in defer { s.jobs = [] }; return s.jobs }
            for job in jobs { job() }
        }
    }

    @Test func scrapesReadTheStoreTotalsOnceNotOncePerScrape() {
        let reads = LockedValueBox(0)
        let metrics = Metrics(sources: [StoreMetrics(totals: { reads.withLock { $0 += 1 }; return Self.totals },
                                                     activeKeyIndex: { 1 }, databasePath: "/nonexistent/badges.sqlite")])
        for _ in 0..<5 { #expect(metrics.render().contains("badge_purchases_total 7\n")) }
        #expect(reads.withLock { $0 } == 1)
    }

    @Test func staleTotalsAreReadInTheBackgroundWhileTheScrapeAnswersFromTheLastReading() {
        let s = Scripted()
        let purchases = LockedValueBox<Int64>(1)
        let source = StoreMetrics(totals: {
            s.read()
            return StoreTotals(ledger: [], issuances: [], purchases: purchases.withLock { $0 }, databaseBytes: 0)
        }, activeKeyIndex: { 1 }, databasePath: "/nonexistent/badges.sqlite", clock: { s.now }, background: { s.queue($0) })
        let metrics = Metrics(sources: [source])
        // the first scrape of a process reads: there is nothing to answer with yet
        #expect(metrics.render().contains("badge_purchases_total 1\n"))
        #expect(s.reads == 1 && s.queued == 0)
        purchases.withLock { $0 = 2 }
        s.advance(14.5)
        #expect(metrics.render().contains("badge_purchases_total 1\n"))
        #expect(metrics.render().contains("badge_database_totals_age_seconds 14.5\n"))
        #expect(s.reads == 1 && s.queued == 0)
        // past 15 s: one reading is queued, none runs on the scrape, which answers the last one
        s.advance(0.75)
        #expect(metrics.render().contains("badge_purchases_total 1\n"))
        #expect(metrics.render().contains("badge_purchases_total 1\n"))
        #expect(s.reads == 1 && s.queued == 1)
        s.runQueued()
        #expect(s.reads == 2)
        #expect(metrics.render().contains("badge_purchases_total 2\n"))
        #expect(metrics.render().contains("badge_database_totals_age_seconds 0\n"))
        #expect(s.queued == 0)
    }

    @Test func aFailedReadingShowsAsAGaugeAndIsRetriedOnlyOnceStale() {
        let s = Scripted()
        struct Down: Error {}
        let source = StoreMetrics(totals: { s.read(); throw Down() }, activeKeyIndex: { 1 }, databasePath: "/nonexistent/badges.sqlite",
                                  clock: { s.now }, background: { s.queue($0) })
        let metrics = Metrics(sources: [source])
        #expect(metrics.render().contains("badge_database_read_ok 0\n"))
        #expect(metrics.render().contains("badge_database_read_ok 0\n"))
        #expect(s.reads == 1 && s.queued == 0)
    }

    @Test func theScheduleReadsOnceAtATimeAndAtMostOncePerInterval() {
        var background = RefreshSchedule(interval: 15, mode: .inBackground)
        #expect(background.next(at: 0) == .read)
        background.finished(at: 1)
        #expect(background.next(at: 15.9) == .cached)
        #expect(background.next(at: 16) == .readInBackground)
        // one reading at a time: the next caller answers from the cache while it runs
        #expect(background.next(at: 40) == .cached)
        background.finished(at: 41)
        #expect(background.age(at: 42) == 1)
        #expect(background.next(at: 42) == .cached)

        var onCaller = RefreshSchedule(interval: 1, mode: .onCaller)
        #expect(onCaller.age(at: 0) == nil)
        #expect(onCaller.next(at: 0) == .read)
        onCaller.finished(at: 0.2)
        #expect(onCaller.next(at: 1.1) == .cached)
        #expect(onCaller.next(at: 1.2) == .read)
    }

    @Test func twoReadinessChecksWithinASecondProbeTheDatabaseOnce() throws {
        let dir = TemporaryDirectory("readiness-probes")
        let store = try SQLiteBadgeStore(path: dir.file("badges.sqlite"))
        let s = Scripted()
        let readiness = CachedReading(every: 1, mode: .onCaller, clock: { s.now }) { store.readiness() }
        func probes() throws -> Int64 {
            Int64(String(decoding: try store.database.readBlobsForTesting("SELECT CAST(CAST(probes AS TEXT) AS BLOB) FROM service_readiness").first ?? [], as: UTF8.self)) ?? -1
        }
        let before = try probes()
        #expect(readiness.current() == .ready)
        s.advance(0.9)
        #expect(readiness.current() == .ready)
        #expect(try probes() == before + 1)
        s.advance(0.2)
        #expect(readiness.current() == .ready)
        #expect(try probes() == before + 2)
    }

    func gateway(_ surface: Gateway.Surface, readiness: @escaping @Sendable () -> Readiness = { .ready }) throws -> Gateway {
        let dir = TemporaryDirectory("admin-surface")
        let store = try SQLiteBadgeStore(path: dir.file("badges.sqlite"))
        let service = BadgeService(store: store, issuer: CountingIssuer(), clock: { Timestamp(seconds: 0) })
        return Gateway(service: service, authenticator: RequestAuthenticator(), pool: WorkerPool(threads: 1, capacity: 4),
                       metrics: Metrics(), accessLog: nil, clock: { Timestamp(seconds: 0) }, readiness: readiness, surface: surface)
    }

    func status(_ gateway: Gateway, _ method: String, _ path: String) -> Int? {
        let answered = LockedResponse()
        let done = DispatchSemaphore(value: 0)
        gateway.handle(HTTPRequest(method: method, target: path, headers: [:], body: [], remoteAddress: "192.0.2.1")) {
            answered.set($0)
            done.signal()
        }
        _ = done.wait(timeout: .now() + 30)
        return answered.value?.status
    }

    @Test func besideAnAdminListenerThePublicOneAnswers404ForMetricsAndKeepsTheProbes() throws {
        let everything = try gateway(.everything)
        #expect(status(everything, "GET", "/metrics") == 200)
        let publicOne = try gateway(.withoutMetrics)
        #expect(status(publicOne, "GET", "/metrics") == 404)
        #expect(publicOne.checkHead(HTTPRequest(method: "GET", target: "/metrics", headers: [:], body: []))?.status == 404)
        #expect(status(publicOne, "GET", "/healthz") == 200)
        #expect(status(publicOne, "GET", "/readyz") == 200)
        #expect(publicOne.routes["/rpc"] != nil && publicOne.routes["/metrics"] == nil)
        let admin = try gateway(.operations)
        #expect(Set(admin.routes.keys) == ["/metrics", "/readyz", "/healthz"])
        #expect(status(admin, "GET", "/metrics") == 200)
        #expect(status(admin, "GET", "/healthz") == 200)
        #expect(status(admin, "GET", "/readyz") == 200)
        #expect(status(admin, "POST", "/rpc") == 404)
        #expect(status(admin, "GET", "/schema") == 404)
    }
}
