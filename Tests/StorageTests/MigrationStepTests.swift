import BadgeCore
import Foundation
import Locking
import Storage
import TestSupport
import Testing

/// Issue 33, upgrades you can see and undo: each step recorded with whether it is additive, each
/// step reported as it runs, and a newer schema served only when its newer steps are all additive.
@Suite struct MigrationStepTests {
    let dir = TemporaryDirectory("migration-steps")

    /// The recorded flag of every step, the ones step 13 filled in after the fact included, is
    /// the step table's: the list in step 13's SQL cannot drift from the table.
    @Test(arguments: StoreBackend.allCases) func everyStepIsRecordedWithWhetherItIsAdditive(_ backend: StoreBackend) throws {
        let database = try backend.makeDatabase(in: dir)
        _ = try database.open()
        let expected = SchemaPlan.steps.map { RecordedStep(version: $0.version, additive: $0.additive) }
        #expect(try recorded(database) == expected)
        // The steps that rebuilt a table on SQLite are the ones not additive.
        #expect(SchemaPlan.steps.filter { !$0.additive }.map(\.version) == [9, 14])
        #expect(SchemaPlan.steps.last?.version == SQLiteDatabase.latestSchemaVersion)
    }

    /// A database release 0.1.0 made (schema 12, no `additive` column) is migrated step by step,
    /// each reported from → to, and after them records steps 1–12 as the table classes them.
    @Test func aDatabaseOfTheReleaseBeforeIsMigratedOneReportedStepKeepingItsRows() throws {
        let data = dir.file("data")
        try ReleaseFixture.copyDataDirectory(to: data)
        let path = data + "/badges.sqlite"
        let before = try SQLiteDatabase.schemaPlan(path: path)
        #expect(before.found == 12 && before.recorded.allSatisfy { !$0.additive })
        #expect(before.pending.map(\.version) == Array(13...SQLiteDatabase.latestSchemaVersion))
        let events = LockedValueBox<[SchemaEvent]>([])
        let store = try SQLiteBadgeStore(path: path, report: { event in events.withLock { $0.append(event) } })
        let reported = events.withLock { $0 }
        #expect(reported.count == SQLiteDatabase.latestSchemaVersion - 12)
        guard case .migrated(from: 12, to: 13, _) = reported.first else { Issue.record("\(reported)"); return }
        #expect(try SQLiteDatabase.schemaPlan(path: path).recorded == SchemaPlan.steps.map { RecordedStep(version: $0.version, additive: $0.additive) })
        // the release's purchase, its two ledger rows and its issuance are all there
        #expect(try store.database.readBlobsForTesting("SELECT master_key FROM badge_purchases").count == 1)
        #expect(try store.database.readBlobsForTesting("SELECT CAST(entry_id AS BLOB) FROM badge_ledger").count == 2)
        #expect(try store.read { try $0.codes() }.count == 2)
        #expect(try store.database.readBlobsForTesting("SELECT signature FROM badge_issuances").count == 1)
    }

    /// Each step a database some release migrated gets its own event (from → to); an empty
    /// database's steps are one event.
    @Test(arguments: StoreBackend.allCases) func eachStepIsReportedAndAnEmptyDatabaseOnce(_ backend: StoreBackend) throws {
        let older = SQLiteDatabase.latestSchemaVersion - 2
        let events = LockedValueBox<[SchemaEvent]>([])
        let report: SchemaReport = { event in events.withLock { $0.append(event) } }
        switch backend {
        case .sqlite:
            let path = dir.file("older.sqlite")
            try SQLiteDatabase.createForTesting(path: path, atVersion: older)
            _ = try SQLiteBadgeStore(path: path, report: report)
            _ = try SQLiteBadgeStore(path: dir.file("fresh.sqlite"), report: report)
        case .postgres:
            let settings = try PostgresCluster.shared.makeDatabase()
            try PostgresDatabase.createForTesting(settings: settings, atVersion: older)
            _ = try PostgresBadgeStore(settings: settings, report: report)
            _ = try PostgresBadgeStore(settings: try PostgresCluster.shared.makeDatabase(), report: report)
        }
        let shape = events.withLock { $0 }.map { event -> String in
            switch event {
            case .migrated(let from, let to, let ms): return ms >= 0 ? "\(from)→\(to)" : "negative time"
            case .created(let version, let steps, let ms): return ms >= 0 ? "created \(version) in \(steps)" : "negative time"
            case .acceptedNewer: return "accepted newer"
            }
        }
        let latest = SQLiteDatabase.latestSchemaVersion
        #expect(shape == ["\(older)→\(older + 1)", "\(older + 1)→\(latest)", "created \(latest) in \(latest)"])
    }

    /// A database a newer release migrated with additive steps only is opened (migrating or not)
    /// and reported; one more step that is not additive makes it refused, as before step 13.
    @Test(arguments: StoreBackend.allCases) func aNewerSchemaIsServedOnlyWhenItsNewerStepsAreAdditive(_ backend: StoreBackend) throws {
        let database = try backend.makeDatabase(in: dir)
        let latest = SQLiteDatabase.latestSchemaVersion
        try database.execute(NewerReleaseStep.additive(version: latest + 1))
        try database.execute(NewerReleaseStep.additive(version: latest + 2))
        for migrate in [true, false] {
            let events = LockedValueBox<[SchemaEvent]>([])
            let report: SchemaReport = { event in events.withLock { $0.append(event) } }
            switch database {
            case .sqlite(let path): _ = try SQLiteBadgeStore(path: path, migrate: migrate, report: report)
            case .postgres(let settings): _ = try PostgresBadgeStore(settings: settings, migrate: migrate, report: report)
            }
            #expect(events.withLock { $0 } == [.acceptedNewer(found: latest + 2, supported: latest, additiveSteps: [latest + 1, latest + 2])],
                    "migrate: \(migrate)")
        }
        // nothing was applied or recorded by the older binary
        #expect(try recorded(database).map(\.version) == Array(1...(latest + 2)))

        try database.execute(NewerReleaseStep.contracting(version: latest + 3))
        for migrate in [true, false] {
            #expect("migrate: \(migrate)") {
                switch database {
                case .sqlite(let path): _ = try SQLiteBadgeStore(path: path, migrate: migrate)
                case .postgres(let settings): _ = try PostgresBadgeStore(settings: settings, migrate: migrate)
                }
            } throws: { error in
                guard case StorageError.newerSchema(path: _, found: latest + 3, supported: latest) = error else { return false }
                return true
            }
        }
        let plan = try plan(database)
        #expect(plan.isNewer && !plan.servesNewer && plan.notAdditive == [latest + 3])
    }

    /// The rule alone: where a database stands for each shape of `schema_migrations`.
    @Test func thePlanForEachShapeOfRecord() {
        let steps = SchemaPlan.steps, latest = steps.last!.version
        func rows(_ versions: ClosedRange<Int>, additive: Bool = true) -> [RecordedStep] {
            versions.map { RecordedStep(version: $0, additive: additive) }
        }
        let empty = SchemaPlan(recorded: [])
        #expect(empty.found == 0 && empty.pending == steps && !empty.isNewer)
        let older = SchemaPlan(recorded: rows(1...(latest - 1), additive: false))
        #expect(older.found == latest - 1 && older.pending.map(\.version) == [latest] && older.beyond.isEmpty)
        let current = SchemaPlan(recorded: rows(1...latest))
        #expect(current.pending.isEmpty && !current.isNewer && !current.servesNewer)
        let newer = SchemaPlan(recorded: rows(1...(latest + 2)))
        #expect(newer.isNewer && newer.servesNewer && newer.pending.isEmpty && newer.beyond.map(\.version) == [latest + 1, latest + 2])
        let mixed = SchemaPlan(recorded: rows(1...(latest + 1)) + [RecordedStep(version: latest + 2, additive: false)])
        #expect(mixed.isNewer && !mixed.servesNewer && mixed.notAdditive == [latest + 2])
        // steps recorded before the column existed count as not additive: only steps past this
        // binary's latest are judged, and every binary that judges them knows step 13
        let unmarked = SchemaPlan(recorded: rows(1...latest, additive: false) + rows((latest + 1)...(latest + 1)))
        #expect(unmarked.servesNewer)
    }

    /// Step 14 (issue 37): an invoice records any provider's name, where schema 13 refused every
    /// name but `stripe` and `btcpay`. On SQLite the table is rebuilt: its rows, its one-open-invoice
    /// index and the upgrade that names one of its invoices (a foreign key) all survive it.
    @Test(arguments: StoreBackend.allCases) func afterStep14AnInvoiceRecordsAnyProviderName(_ backend: StoreBackend) throws {
        let database = try backend.makeDatabase(in: dir)
        func execute(_ sql: String) throws {
            switch database {
            case .sqlite(let path): try SQLiteDatabase(path: path, migrate: false, acceptingOlderSchema: true).executeForTesting(sql)
            case .postgres(let settings): try PostgresDatabase.execute(sql, settings: settings)
            }
        }
        func invoice(_ id: String, provider: String, status: String) -> String {
            """
            INSERT INTO badge_invoices (invoice_id, purchase_key, badge_type, months, price, discount, credit, amount, currency,
                                        price_id, offer_id, provider, method, provider_ref, payment_url, address, crypto_amount,
                                        status, created_at, expires_at, paid_at, payment_ref)
            VALUES ('\(id)', 'key-\(id)', 'supporter', 1, 700, 0, 0, 700, 'usd', 'p', NULL, '\(provider)', 'card', 'ref-\(id)',
                    'https://pay.test/\(id)', NULL, NULL, '\(status)', 1, 2, NULL, NULL);
            """
        }
        switch database {
        case .sqlite(let path): try SQLiteDatabase.createForTesting(path: path, atVersion: 13)
        case .postgres(let settings): try PostgresDatabase.createForTesting(settings: settings, atVersion: 13)
        }
        let byte: String
        switch database {
        case .sqlite: byte = "X'00'"
        case .postgres: byte = "'\\x00'::bytea"
        }
        try execute("""
            INSERT INTO badge_purchases (purchase_id, purchase_key, master_key, badge_type, created_at) VALUES (1, 'old', \(byte), 'supporter', 1);
            \(invoice("paid", provider: "stripe", status: "paid"))
            \(invoice("open", provider: "btcpay", status: "open"))
            INSERT INTO badge_invoice_upgrades (invoice_id, from_purchase_id, months) VALUES ('paid', 1, 3);
            """)
        #expect(throws: (any Error).self, "schema 13 refuses another provider's name") {
            try execute(invoice("bank", provider: "bank_transfer", status: "closed"))
        }
        let store = try database.open()
        try execute(invoice("bank", provider: "bank_transfer", status: "closed"))
        let (paid, open, bank, upgrade) = try store.read { r in
            (try r.invoice(id: "paid"), try r.invoice(id: "open"), try r.invoice(provider: "bank_transfer", providerRef: "ref-bank"),
             try r.invoiceUpgrade(invoiceId: "paid"))
        }
        #expect(paid?.provider == "stripe" && paid?.status == .paid && open?.status == .open)
        #expect(bank?.invoiceId == "bank" && upgrade?.months == 3)
        // one open invoice per key, and the upgrade's invoice must exist: the index and the key held
        #expect(throws: (any Error).self) { try execute(invoice("open2", provider: "btcpay", status: "open").replacingOccurrences(of: "key-open2", with: "key-open")) }
        #expect(throws: (any Error).self) { try execute("INSERT INTO badge_invoice_upgrades (invoice_id, from_purchase_id, months) VALUES ('none', 1, 1);") }
    }

    func recorded(_ database: TestDatabase) throws -> [RecordedStep] { try plan(database).recorded }

    func plan(_ database: TestDatabase) throws -> SchemaPlan {
        switch database {
        case .sqlite(let path): return try SQLiteDatabase.schemaPlan(path: path)
        case .postgres(let settings): return try PostgresDatabase.schemaPlan(settings: settings)
        }
    }
}
