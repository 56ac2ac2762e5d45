import Dispatch
import Foundation
import Storage

/// The service's state: ledger and issuance totals and the database's size (from
/// ``StoreTotals``), and the issuer key index that signs new credentials.
///
/// The totals scan the ledger and issuance tables, so a scrape never reads them: they are read
/// at most every `refreshSeconds`, in the background, and a scrape renders the last reading
/// (only the very first scrape of a process waits for one). Several instances over one
/// PostgreSQL database each read the same tables, so each shows the deployment's totals.
public struct StoreMetrics: MetricsSource {
    /// How old the totals may grow before a scrape starts a new reading.
    public static let refreshSeconds = 15.0

    /// One reading of the totals: nil when the database could not be read.
    struct Reading: Sendable {
        let totals: StoreTotals?
    }

    private let reading: CachedReading<Reading>
    private let activeKeyIndex: @Sendable () -> Int
    private let databasePath: String

    /// `totals` reads the database; `databasePath` is its file (its `-wal` is measured beside it).
    /// `clock` (monotonic seconds) and `background` are the cache's (``CachedReading``).
    public init(totals: @escaping @Sendable () throws -> StoreTotals, activeKeyIndex: @escaping @Sendable () -> Int,
                databasePath: String, refreshSeconds: Double = StoreMetrics.refreshSeconds,
                clock: @escaping @Sendable () -> Double = RefreshSchedule.monotonicSeconds,
                background: @escaping @Sendable (@escaping @Sendable () -> Void) -> Void = { DispatchQueue.global(qos: .utility).async(execute: $0) }) {
        reading = CachedReading(every: refreshSeconds, mode: .inBackground, clock: clock, background: background) {
            Reading(totals: try? totals())
        }
        self.activeKeyIndex = activeKeyIndex
        self.databasePath = databasePath
    }

    public func families() -> [MetricFamily] {
        var out: [MetricFamily] = []
        out.append(MetricFamily("badge_issuer_active_key_index", .gauge, help: "Index of the issuer key that signs new credentials.",
                                samples: [.init(name: "badge_issuer_active_key_index", value: Double(activeKeyIndex()))]))
        var wal = MetricFamily("badge_database_wal_bytes", .gauge, help: "Size of the database's write-ahead log file, in bytes.")
        let walSize = (try? FileManager.default.attributesOfItem(atPath: databasePath + "-wal")[.size] as? NSNumber)?.doubleValue
        wal.add([], walSize ?? 0)
        let current = reading.current()
        let age = MetricFamily("badge_database_totals_age_seconds", .gauge,
                               help: "Seconds since the ledger, issuance and size figures below were read from the database.",
                               samples: [.init(name: "badge_database_totals_age_seconds", value: reading.age ?? 0)])
        guard let read = current.totals else {
            // The scrape still answers; the failure shows as a gauge an alert can watch.
            out.append(wal)
            out.append(MetricFamily("badge_database_read_ok", .gauge, help: "Whether the last reading of the database totals succeeded (1) or not (0).",
                                    samples: [.init(name: "badge_database_read_ok", value: 0)]))
            out.append(age)
            return out
        }
        out.append(MetricFamily("badge_database_read_ok", .gauge, help: "Whether the last reading of the database totals succeeded (1) or not (0).",
                                samples: [.init(name: "badge_database_read_ok", value: 1)]))
        out.append(age)
        out.append(MetricFamily("badge_database_size_bytes", .gauge, help: "Size of the database file in use (pages times page size), in bytes.",
                                samples: [.init(name: "badge_database_size_bytes", value: Double(read.databaseBytes))]))
        out.append(wal)
        var entries = MetricFamily("badge_ledger_entries_total", .counter,
                                   help: "Ledger entries in the database, by kind (credit, debit) and reason.")
        var months = MetricFamily("badge_ledger_months_total", .counter,
                                  help: "Months credited or debited by ledger entries in the database, by kind and reason.")
        for group in read.ledger {
            entries.add([("kind", group.kind), ("reason", group.reason)], Double(group.entries))
            months.add([("kind", group.kind), ("reason", group.reason)], Double(group.months))
        }
        var issued = MetricFamily("badge_credentials_issued_total", .counter,
                                  help: "Credentials issued (one per badge debit), by badge type and issuer key index.")
        for group in read.issuances {
            issued.add([("badge_type", group.badgeType), ("key_index", String(group.keyIndex))], Double(group.credentials))
        }
        out += [entries, months, issued,
                MetricFamily("badge_purchases_total", .counter, help: "Purchases (purchase keys) in the database.",
                             samples: [.init(name: "badge_purchases_total", value: Double(read.purchases))])]
        return out
    }
}
