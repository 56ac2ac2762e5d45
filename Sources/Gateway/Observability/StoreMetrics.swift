import Foundation
import Storage

/// The service's state at scrape time: ledger and issuance totals and the database's size
/// (from ``StoreTotals``), and the issuer key index that signs new credentials.
public struct StoreMetrics: MetricsSource {
    private let totals: @Sendable () throws -> StoreTotals
    private let activeKeyIndex: @Sendable () -> Int
    private let databasePath: String

    /// `totals` reads the database; `databasePath` is its file (its `-wal` is measured beside it).
    public init(totals: @escaping @Sendable () throws -> StoreTotals, activeKeyIndex: @escaping @Sendable () -> Int,
                databasePath: String) {
        self.totals = totals
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
        let read: StoreTotals
        do { read = try totals() } catch {
            // The scrape still answers; the failure shows as a gauge an alert can watch.
            out.append(wal)
            out.append(MetricFamily("badge_database_read_ok", .gauge, help: "Whether the last scrape could read the database totals (1) or not (0).",
                                    samples: [.init(name: "badge_database_read_ok", value: 0)]))
            return out
        }
        out.append(MetricFamily("badge_database_read_ok", .gauge, help: "Whether the last scrape could read the database totals (1) or not (0).",
                                samples: [.init(name: "badge_database_read_ok", value: 1)]))
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
