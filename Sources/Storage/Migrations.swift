import Foundation

/// One schema step of this binary: its SQL and whether it is additive.
public struct MigrationStep: Equatable, Sendable {
    public let version: Int
    /// Whether the release before keeps working on the schema after it (expand, not contract): the
    /// step only adds tables, indexes, columns that take NULL or have a default, or rows that code
    /// never reads; it drops, renames, rebuilds or narrows nothing. A binary serves a database
    /// whose steps beyond its own are all additive (``SchemaPlan``).
    public let additive: Bool
    /// What the step does, for `migrate --status` and `--dry-run`.
    public let summary: String
    let sql: String
    /// The step on PostgreSQL where SQLite's SQL (translated by ``PostgresMigrations/sql(_:)``)
    /// is not how PostgreSQL does it best; nil: the translation.
    let postgresSQL: String?

    init(version: Int, additive: Bool, summary: String, sql: String, postgresSQL: String? = nil) {
        self.version = version
        self.additive = additive
        self.summary = summary
        self.sql = sql
        self.postgresSQL = postgresSQL
    }
}

/// Schema migrations, applied in order inside one transaction each; the version table
/// records what ran and, from step 13, whether each step is additive. SQL is kept portable (no
/// SQLite-only types or upserts) so a PostgreSQL backend can reuse it; every uniqueness rule is
/// a constraint, not only code.
enum Migrations {
    static let steps: [MigrationStep] = [
        MigrationStep(version: 1, additive: true, summary: "prices, offers and purchases", sql: """
        CREATE TABLE badge_prices (
            price_id     TEXT PRIMARY KEY,
            badge_type   TEXT NOT NULL,
            month_price  INTEGER NOT NULL CHECK (month_price >= 0 AND month_price <= 4294967295),
            currency     TEXT NOT NULL,
            status       TEXT NOT NULL CHECK (status IN ('active', 'deprecated', 'disabled')),
            created_at   INTEGER NOT NULL
        );
        CREATE TABLE badge_offers (
            offer_id       TEXT PRIMARY KEY,
            price_id       TEXT REFERENCES badge_prices (price_id),
            months         INTEGER NOT NULL CHECK (months BETWEEN 1 AND 255),
            discount_type  TEXT NOT NULL CHECK (discount_type IN ('freeMonths', 'discount')),
            discount_value INTEGER NOT NULL CHECK (discount_value BETWEEN 0 AND 255),
            status         TEXT NOT NULL CHECK (status IN ('active', 'deprecated', 'disabled')),
            created_at     INTEGER NOT NULL
        );
        CREATE TABLE badge_purchases (
            purchase_id   INTEGER PRIMARY KEY,
            purchase_key  TEXT NOT NULL UNIQUE,
            master_key    BLOB NOT NULL,
            badge_type    TEXT NOT NULL,
            created_at    INTEGER NOT NULL
        );
        """),
        MigrationStep(version: 2, additive: true, summary: "the ledger, issuances, codes, redemptions and payments", sql: """
        CREATE TABLE badge_ledger (
            purchase_id        INTEGER NOT NULL REFERENCES badge_purchases (purchase_id),
            seq                INTEGER NOT NULL CHECK (seq >= 1),
            entry_id           TEXT NOT NULL UNIQUE,
            change_months      INTEGER NOT NULL,
            balance_months     INTEGER NOT NULL CHECK (balance_months >= 0),
            balance_start_ts   INTEGER NOT NULL,
            balance_anchor_ts  INTEGER NOT NULL,
            balance_badge_type TEXT NOT NULL,
            was_paused_since   INTEGER,
            created_at         INTEGER NOT NULL,
            entry_kind         TEXT NOT NULL CHECK (entry_kind IN ('credit', 'debit')),
            entry_reason       TEXT NOT NULL,
            invoice_id         TEXT,
            charge_id          TEXT,
            other_purchase_key TEXT,
            PRIMARY KEY (purchase_id, seq)
        );
        CREATE TABLE badge_issuances (
            entry_id      TEXT PRIMARY KEY REFERENCES badge_ledger (entry_id),
            purchase_id   INTEGER NOT NULL REFERENCES badge_purchases (purchase_id),
            badge_type    TEXT NOT NULL,
            period_start  INTEGER NOT NULL,
            period_end    INTEGER NOT NULL CHECK (period_end > period_start),
            expiry        INTEGER NOT NULL,
            key_index     INTEGER NOT NULL,
            signature     BLOB NOT NULL
        );
        CREATE INDEX badge_issuances_by_purchase ON badge_issuances (purchase_id, period_end);
        CREATE TABLE badge_codes (
            code_hash    BLOB PRIMARY KEY,
            badge_type   TEXT NOT NULL,
            months       INTEGER NOT NULL CHECK (months BETWEEN 1 AND 255),
            max_uses     INTEGER NOT NULL CHECK (max_uses BETWEEN 1 AND 1000),
            payment      TEXT NOT NULL CHECK (payment IN ('paid', 'unpaid', 'free')),
            expires_at   INTEGER,
            revoked_at   INTEGER,
            created_at   INTEGER NOT NULL
        );
        CREATE TABLE badge_code_redemptions (
            code_hash    BLOB NOT NULL REFERENCES badge_codes (code_hash),
            purchase_id  INTEGER NOT NULL UNIQUE REFERENCES badge_purchases (purchase_id),
            redeemed_at  INTEGER NOT NULL,
            PRIMARY KEY (code_hash, purchase_id)
        );
        CREATE TABLE badge_payments (
            payment_id    TEXT PRIMARY KEY,
            provider      TEXT NOT NULL,
            provider_ref  TEXT NOT NULL,
            purchase_id   INTEGER NOT NULL REFERENCES badge_purchases (purchase_id),
            created_at    INTEGER NOT NULL,
            UNIQUE (provider, provider_ref)
        );
        """),
        // One row that /readyz rewrites: a write that lands proves the database writable, which
        // BEGIN IMMEDIATE alone does not (SQLite grants it on a file it opened read-only).
        MigrationStep(version: 3, additive: true, summary: "the readiness row", sql: """
        CREATE TABLE service_readiness (
            id      INTEGER PRIMARY KEY CHECK (id = 1),
            probes  INTEGER NOT NULL
        );
        INSERT INTO service_readiness (id, probes) VALUES (1, 0);
        """),
        // Web payments (issue 9): invoices priced by getBadgeInvoice and settled by a provider's
        // webhook, provider events seen (deliveries are at least once), recovery receipt hashes.
        MigrationStep(version: 4, additive: true, summary: "invoices, provider events and recovery receipts", sql: """
        CREATE TABLE badge_invoices (
            invoice_id     TEXT PRIMARY KEY,
            purchase_key   TEXT NOT NULL,
            badge_type     TEXT NOT NULL,
            months         INTEGER NOT NULL CHECK (months BETWEEN 1 AND 255),
            price          INTEGER NOT NULL CHECK (price >= 0),
            discount       INTEGER NOT NULL CHECK (discount >= 0),
            credit         INTEGER NOT NULL CHECK (credit >= 0),
            amount         INTEGER NOT NULL CHECK (amount >= 0),
            currency       TEXT NOT NULL,
            price_id       TEXT NOT NULL,
            offer_id       TEXT,
            provider       TEXT NOT NULL CHECK (provider IN ('stripe', 'btcpay')),
            method         TEXT NOT NULL CHECK (method IN ('card', 'btc', 'xmr')),
            provider_ref   TEXT NOT NULL,
            payment_url    TEXT,
            address        TEXT,
            crypto_amount  TEXT,
            status         TEXT NOT NULL CHECK (status IN ('open', 'paid', 'closed', 'refunded')),
            created_at     INTEGER NOT NULL,
            expires_at     INTEGER NOT NULL,
            paid_at        INTEGER,
            payment_ref    TEXT,
            UNIQUE (provider, provider_ref)
        );
        CREATE UNIQUE INDEX badge_invoices_one_open ON badge_invoices (purchase_key) WHERE status = 'open';
        CREATE INDEX badge_invoices_by_key ON badge_invoices (purchase_key, created_at);
        CREATE TABLE badge_provider_events (
            provider     TEXT NOT NULL,
            event_id     TEXT NOT NULL,
            received_at  INTEGER NOT NULL,
            PRIMARY KEY (provider, event_id)
        );
        CREATE TABLE badge_receipts (
            receipt_hash BLOB PRIMARY KEY,
            purchase_id  INTEGER NOT NULL UNIQUE REFERENCES badge_purchases (purchase_id)
        );
        """),
        // Store subscriptions (issues 10 and 11): one record per (store, reference) with the state
        // last read and the hour windows of each path; the charges seen, each granted at most
        // once; which purchases a subscription funded, and when it moved away from one.
        MigrationStep(version: 5, additive: true, summary: "store subscriptions, their charges and funding", sql: """
        CREATE TABLE badge_subscriptions (
            subscription_id        INTEGER PRIMARY KEY,
            store                  TEXT NOT NULL CHECK (store IN ('apple', 'google')),
            reference              TEXT NOT NULL,
            purchase_id            INTEGER UNIQUE REFERENCES badge_purchases (purchase_id),
            state                  TEXT CHECK (state IN ('renewing', 'cancelled', 'billingRetry', 'ended')),
            read_at                INTEGER,
            latest_charge_id       TEXT,
            latest_charge_revoked  INTEGER NOT NULL DEFAULT 0 CHECK (latest_charge_revoked IN (0, 1)),
            granted_charge_id      TEXT,
            purchase_checked_at    INTEGER,
            transfer_checked_at    INTEGER,
            renewal_checked_at     INTEGER,
            moved_from_purchase_id INTEGER REFERENCES badge_purchases (purchase_id),
            moved_at               INTEGER,
            UNIQUE (store, reference)
        );
        CREATE TABLE badge_subscription_charges (
            subscription_id INTEGER NOT NULL REFERENCES badge_subscriptions (subscription_id),
            charge_id       TEXT NOT NULL,
            product_id      TEXT NOT NULL,
            badge_type      TEXT NOT NULL,
            months          INTEGER NOT NULL CHECK (months >= 1),
            period_start    INTEGER NOT NULL,
            period_end      INTEGER NOT NULL CHECK (period_end > period_start),
            seen_at         INTEGER NOT NULL,
            granted_at      INTEGER,
            PRIMARY KEY (subscription_id, charge_id)
        );
        CREATE TABLE badge_subscription_funding (
            purchase_id     INTEGER PRIMARY KEY REFERENCES badge_purchases (purchase_id),
            subscription_id INTEGER NOT NULL REFERENCES badge_subscriptions (subscription_id),
            moved_away_at   INTEGER
        );
        """),
        // Store products (issues 10 and 11): what a verified App Store or Play purchase grants,
        // changed with `catalog set-product` / `remove-product`; seeded with the SimpleX apps' ids.
        // base_plan_id is '' for products without base plans, so the key stays a plain constraint.
        MigrationStep(version: 6, additive: true, summary: "store products, seeded with the SimpleX apps' ids", sql: """
        CREATE TABLE badge_store_products (
            store         TEXT NOT NULL CHECK (store IN ('apple', 'google')),
            product_id    TEXT NOT NULL,
            base_plan_id  TEXT NOT NULL,
            badge_type    TEXT NOT NULL,
            months        INTEGER NOT NULL CHECK (months BETWEEN 1 AND 255),
            kind          TEXT NOT NULL CHECK (kind IN ('one-time', 'subscription')),
            PRIMARY KEY (store, product_id, base_plan_id)
        );
        INSERT INTO badge_store_products (store, product_id, base_plan_id, badge_type, months, kind) VALUES ('apple', 'BADGE_SUPPORTER_01', '', 'supporter', 1, 'one-time');
        INSERT INTO badge_store_products (store, product_id, base_plan_id, badge_type, months, kind) VALUES ('apple', 'BADGE_LEGEND_01', '', 'legend', 1, 'one-time');
        INSERT INTO badge_store_products (store, product_id, base_plan_id, badge_type, months, kind) VALUES ('apple', 'SUBSCR_BADGE_SUPPORTER_MONTH_01', '', 'supporter', 1, 'subscription');
        INSERT INTO badge_store_products (store, product_id, base_plan_id, badge_type, months, kind) VALUES ('apple', 'SUBSCR_BADGE_SUPPORTER_YEAR_01', '', 'supporter', 12, 'subscription');
        INSERT INTO badge_store_products (store, product_id, base_plan_id, badge_type, months, kind) VALUES ('apple', 'SUBSCR_BADGE_LEGEND_MONTH_01', '', 'legend', 1, 'subscription');
        INSERT INTO badge_store_products (store, product_id, base_plan_id, badge_type, months, kind) VALUES ('apple', 'SUBSCR_BADGE_LEGEND_YEAR_01', '', 'legend', 12, 'subscription');
        INSERT INTO badge_store_products (store, product_id, base_plan_id, badge_type, months, kind) VALUES ('google', 'badge_supporter_01', '', 'supporter', 1, 'one-time');
        INSERT INTO badge_store_products (store, product_id, base_plan_id, badge_type, months, kind) VALUES ('google', 'badge_legend_01', '', 'legend', 1, 'one-time');
        INSERT INTO badge_store_products (store, product_id, base_plan_id, badge_type, months, kind) VALUES ('google', 'subscr_badge_supporter_01', 'subscr-badge-supporter-month-02', 'supporter', 1, 'subscription');
        INSERT INTO badge_store_products (store, product_id, base_plan_id, badge_type, months, kind) VALUES ('google', 'subscr_badge_supporter_01', 'subscr-badge-supporter-year-01', 'supporter', 12, 'subscription');
        INSERT INTO badge_store_products (store, product_id, base_plan_id, badge_type, months, kind) VALUES ('google', 'subscr_badge_legend_01', 'subscr-badge-legend-month-01', 'legend', 1, 'subscription');
        INSERT INTO badge_store_products (store, product_id, base_plan_id, badge_type, months, kind) VALUES ('google', 'subscr_badge_legend_01', 'subscr-badge-legend-year-01', 'legend', 12, 'subscription');
        """),
        // Issue 12: a purchase's pause (pauseBadge), which no ledger row records until one ends
        // it; and recovery receipts retired by funding a new purchase, so a repeat by the key
        // they funded replays and any other key is receipt_used.
        MigrationStep(version: 7, additive: true, summary: "pauses and receipt transfers", sql: """
        CREATE TABLE badge_pauses (
            purchase_id   INTEGER PRIMARY KEY REFERENCES badge_purchases (purchase_id),
            paused_since  INTEGER NOT NULL
        );
        CREATE TABLE badge_receipt_transfers (
            receipt_hash      BLOB PRIMARY KEY,
            from_purchase_id  INTEGER NOT NULL REFERENCES badge_purchases (purchase_id),
            to_purchase_id    INTEGER NOT NULL UNIQUE REFERENCES badge_purchases (purchase_id),
            transferred_at    INTEGER NOT NULL
        );
        """),
        // Issue 12: upgrade invoices (getBadgeInvoice.upgrade), each converting the unissued months
        // of one purchase; settlement debits them from it as `upgrade`.
        MigrationStep(version: 8, additive: true, summary: "upgrade invoices", sql: """
        CREATE TABLE badge_invoice_upgrades (
            invoice_id        TEXT PRIMARY KEY REFERENCES badge_invoices (invoice_id),
            from_purchase_id  INTEGER NOT NULL REFERENCES badge_purchases (purchase_id),
            months            INTEGER NOT NULL CHECK (months >= 1)
        );
        CREATE INDEX badge_invoice_upgrades_by_purchase ON badge_invoice_upgrades (from_purchase_id);
        """),
        // Issue 12: store one-time upgrade SKUs (purchaseBadge.upgrade) are a product kind of their
        // own. SQLite cannot widen a CHECK in place, so the table is rebuilt with its rows.
        MigrationStep(version: 9, additive: false, summary: "store products rebuilt to take the kind 'upgrade'", sql: """
        CREATE TABLE badge_store_products_new (
            store         TEXT NOT NULL CHECK (store IN ('apple', 'google')),
            product_id    TEXT NOT NULL,
            base_plan_id  TEXT NOT NULL,
            badge_type    TEXT NOT NULL,
            months        INTEGER NOT NULL CHECK (months BETWEEN 1 AND 255),
            kind          TEXT NOT NULL CHECK (kind IN ('one-time', 'subscription', 'upgrade')),
            PRIMARY KEY (store, product_id, base_plan_id)
        );
        INSERT INTO badge_store_products_new (store, product_id, base_plan_id, badge_type, months, kind)
            SELECT store, product_id, base_plan_id, badge_type, months, kind FROM badge_store_products;
        DROP TABLE badge_store_products;
        ALTER TABLE badge_store_products_new RENAME TO badge_store_products;
        """),
        // Issue 13: the coin wallet's ledger, one append-only row per purchase, reversal or dev
        // grant. entry_key is the idempotency key (coin_purchase:<channel>:<ref>): a store's
        // purchase funds one account once, platform-wide. No balance column: the balance is the
        // rows' sum, and a reversal that outruns it shows as debt.
        MigrationStep(version: 10, additive: true, summary: "the coin wallet's ledger", sql: """
        CREATE TABLE wallet_coin_ledger (
            row_id          INTEGER PRIMARY KEY,
            entry_key       TEXT NOT NULL UNIQUE,
            account         TEXT NOT NULL,
            kind            TEXT NOT NULL CHECK (kind IN ('purchase', 'reversal', 'dev_grant')),
            channel         TEXT NOT NULL CHECK (channel IN ('apple', 'google', 'dev')),
            external_ref    TEXT,
            pack_id         TEXT NOT NULL,
            coins           INTEGER NOT NULL CHECK ((kind = 'reversal' AND coins < 0) OR (kind <> 'reversal' AND coins > 0)),
            gross_usd_cents INTEGER NOT NULL CHECK (gross_usd_cents >= 0),
            net_usd_cents   INTEGER NOT NULL CHECK (net_usd_cents >= 0 AND net_usd_cents <= gross_usd_cents),
            created_at      INTEGER NOT NULL
        );
        CREATE INDEX wallet_coin_ledger_by_account ON wallet_coin_ledger (account, row_id);
        """),
        // A provider's word that it took a payment or a charge back, kept when nothing this service
        // credited matched it yet: a refund can arrive before the payment is presented (an App
        // Store transaction kept unpresented, a Stripe refund delivered before the paid session, a
        // Play renewal voided before a check saw it), and the later credit must be refused.
        // kind 'payment' is a one-time payment as `badge_payments.provider_ref` holds it (a Stripe
        // payment intent); 'charge' a subscription charge (`charge {chargeId}`).
        MigrationStep(version: 11, additive: true, summary: "refunds seen before their credit", sql: """
        CREATE TABLE badge_refunds (
            provider     TEXT NOT NULL,
            kind         TEXT NOT NULL CHECK (kind IN ('payment', 'charge')),
            reference    TEXT NOT NULL,
            refunded_at  INTEGER NOT NULL,
            PRIMARY KEY (provider, kind, reference)
        );
        """),
        MigrationStep(version: 12, additive: true, summary: "issuer public keys by index", sql: """
        CREATE TABLE issuer_public_keys (
            key_index    INTEGER NOT NULL CHECK (key_index BETWEEN 1 AND 8),
            public_key   BLOB NOT NULL,
            recorded_at  INTEGER NOT NULL,
            PRIMARY KEY (key_index)
        );
        """),
        // Expand and contract: a step is recorded with whether it is additive, so a binary that
        // knows fewer steps can tell a newer database it may serve from one it must refuse.
        // Steps 1–12 (which ran before the column existed) are recorded as the table above classes
        // them: all additive but 9, which rebuilt a table. The list is checked against the table
        // by a test (MigrationStepTests).
        MigrationStep(version: 13, additive: true, summary: "schema_migrations records whether each step is additive", sql: """
        ALTER TABLE schema_migrations ADD COLUMN additive INTEGER NOT NULL DEFAULT 0 CHECK (additive IN (0, 1));
        UPDATE schema_migrations SET additive = 1 WHERE version IN (1, 2, 3, 4, 5, 6, 7, 8, 10, 11, 12);
        """),
        // Issue 37: a payment provider is a folder and a line in the catalog, so an invoice
        // records its provider's name without a list of the names allowed. Not additive: SQLite
        // cannot drop a CHECK in place, so badge_invoices is rebuilt with its rows and indexes
        // (its one referrer, badge_invoice_upgrades, set aside and put back, so no foreign key is
        // left dangling at the drop). PostgreSQL drops the constraint.
        MigrationStep(version: 14, additive: false, summary: "invoices record any provider's name (the provider CHECK dropped; SQLite rebuilds badge_invoices)", sql: """
        CREATE TEMP TABLE badge_invoice_upgrades_kept AS SELECT invoice_id, from_purchase_id, months FROM badge_invoice_upgrades;
        DELETE FROM badge_invoice_upgrades;
        CREATE TABLE badge_invoices_new (
            invoice_id     TEXT PRIMARY KEY,
            purchase_key   TEXT NOT NULL,
            badge_type     TEXT NOT NULL,
            months         INTEGER NOT NULL CHECK (months BETWEEN 1 AND 255),
            price          INTEGER NOT NULL CHECK (price >= 0),
            discount       INTEGER NOT NULL CHECK (discount >= 0),
            credit         INTEGER NOT NULL CHECK (credit >= 0),
            amount         INTEGER NOT NULL CHECK (amount >= 0),
            currency       TEXT NOT NULL,
            price_id       TEXT NOT NULL,
            offer_id       TEXT,
            provider       TEXT NOT NULL,
            method         TEXT NOT NULL CHECK (method IN ('card', 'btc', 'xmr')),
            provider_ref   TEXT NOT NULL,
            payment_url    TEXT,
            address        TEXT,
            crypto_amount  TEXT,
            status         TEXT NOT NULL CHECK (status IN ('open', 'paid', 'closed', 'refunded')),
            created_at     INTEGER NOT NULL,
            expires_at     INTEGER NOT NULL,
            paid_at        INTEGER,
            payment_ref    TEXT,
            UNIQUE (provider, provider_ref)
        );
        INSERT INTO badge_invoices_new (invoice_id, purchase_key, badge_type, months, price, discount, credit, amount, currency,
                                        price_id, offer_id, provider, method, provider_ref, payment_url, address, crypto_amount,
                                        status, created_at, expires_at, paid_at, payment_ref)
            SELECT invoice_id, purchase_key, badge_type, months, price, discount, credit, amount, currency, price_id, offer_id,
                   provider, method, provider_ref, payment_url, address, crypto_amount, status, created_at, expires_at, paid_at,
                   payment_ref
            FROM badge_invoices;
        DROP TABLE badge_invoices;
        ALTER TABLE badge_invoices_new RENAME TO badge_invoices;
        CREATE UNIQUE INDEX badge_invoices_one_open ON badge_invoices (purchase_key) WHERE status = 'open';
        CREATE INDEX badge_invoices_by_key ON badge_invoices (purchase_key, created_at);
        INSERT INTO badge_invoice_upgrades (invoice_id, from_purchase_id, months)
            SELECT invoice_id, from_purchase_id, months FROM badge_invoice_upgrades_kept;
        DROP TABLE badge_invoice_upgrades_kept;
        """, postgresSQL: """
        ALTER TABLE badge_invoices DROP CONSTRAINT badge_invoices_provider_check;
        """),
        // Play's budget of subscription checks a minute is the deployment's, so the instances over
        // one PostgreSQL database count in a table. SQLite serves one instance, which counts in
        // memory; the table is made there too, so both backends keep one schema.
        MigrationStep(version: 15, additive: true, summary: "Play subscription checks counted per minute for every instance (PostgreSQL)",
                      sql: """
        CREATE TABLE badge_play_check_minutes (
            minute INTEGER NOT NULL,
            used   INTEGER NOT NULL CHECK (used >= 0),
            PRIMARY KEY (minute)
        );
        """),
        // Card payments given back in part, and disputed: how much of a payment its refunds gave
        // back so far and the months that debited (a later, larger refund debits the difference),
        // and each dispute of a payment (an open one holds the issuance of what it funded).
        MigrationStep(version: 16, additive: true, summary: "partial refunds and disputes of provider payments", sql: """
        CREATE TABLE badge_refund_amounts (
            provider        TEXT NOT NULL,
            payment_ref     TEXT NOT NULL,
            refunded        INTEGER NOT NULL CHECK (refunded > 0),
            amount          INTEGER NOT NULL CHECK (amount > 0),
            months_debited  INTEGER NOT NULL CHECK (months_debited >= 0),
            updated_at      INTEGER NOT NULL,
            PRIMARY KEY (provider, payment_ref)
        );
        CREATE TABLE badge_disputes (
            provider     TEXT NOT NULL,
            dispute_id   TEXT NOT NULL,
            payment_ref  TEXT NOT NULL,
            status       TEXT NOT NULL CHECK (status IN ('open', 'won', 'lost')),
            opened_at    INTEGER NOT NULL,
            closed_at    INTEGER,
            PRIMARY KEY (provider, dispute_id)
        );
        CREATE INDEX badge_disputes_by_payment ON badge_disputes (provider, payment_ref);
        """),
        // A coin purchase records where the store says it was made, so a Sandbox one (App Review's,
        // TestFlight's: paid by nobody) is told from a paid one, and a Play purchase records its
        // token's digest, so the buyer's repeat is found before Play is asked. NULL on older rows.
        MigrationStep(version: 17, additive: true, summary: "coin purchases record their store environment and Play token digest", sql: """
        ALTER TABLE wallet_coin_ledger ADD COLUMN environment TEXT CHECK (environment IN ('production', 'sandbox'));
        ALTER TABLE wallet_coin_ledger ADD COLUMN token_sha256 TEXT;
        CREATE INDEX wallet_coin_ledger_by_token ON wallet_coin_ledger (token_sha256);
        """),
    ]

    static var latestVersion: Int { steps.last!.version }

    /// The step that gave `schema_migrations` its `additive` column: rows of later steps say it.
    static let additiveRecordedSince = 13

    /// The version recorded in the database: 0 for an empty file or one without the version table.
    static func storedVersion(_ conn: SQLiteConnection) throws -> Int {
        try recordedSteps(conn).map(\.version).max() ?? 0
    }

    /// The rows of `schema_migrations` (none for an empty file or one without the table).
    static func recordedSteps(_ conn: SQLiteConnection) throws -> [RecordedStep] {
        let hasTable = try conn.query("SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'").first?.int(0) ?? 0
        guard hasTable == 1 else { return [] }
        let hasColumn = try conn.query("SELECT COUNT(*) FROM pragma_table_info('schema_migrations') WHERE name = 'additive'").first?.int(0) ?? 0
        return try recordedSteps(conn, additiveColumn: hasColumn == 1)
    }

    /// The rows of an existing `schema_migrations`, on either backend; a table without the
    /// `additive` column (before step 13) records no step as additive.
    static func recordedSteps(_ conn: some SQLConnection, additiveColumn: Bool) throws -> [RecordedStep] {
        try conn.query("SELECT version, \(additiveColumn ? "additive" : "0") FROM schema_migrations ORDER BY version").map {
            RecordedStep(version: Int(try $0.int(0)), additive: try $0.int(1) == 1)
        }
    }

    /// Records that `step` ran, with whether it is additive once the table has the column.
    static func record(_ step: MigrationStep, on conn: some SQLConnection, at seconds: Int64) throws {
        if step.version >= additiveRecordedSince {
            try conn.query("INSERT INTO schema_migrations (version, applied_at, additive) VALUES (?, ?, ?)",
                           [.integer(Int64(step.version)), .integer(seconds), .integer(step.additive ? 1 : 0)])
        } else {
            try conn.query("INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)", [.integer(Int64(step.version)), .integer(seconds)])
        }
    }

    /// Applies the steps up to `version` (every step unless a test builds an older database),
    /// reporting each (or, on an empty database, all at once) to `report`. A newer database is
    /// left as it is: served when its extra steps are all additive (reported), else refused
    /// (``StorageError/newerSchema(path:found:supported:)``).
    static func apply(to conn: SQLiteConnection, path: String, through version: Int = latestVersion,
                      report: SchemaReport = { _ in }) throws {
        try conn.execute("""
        CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at INTEGER NOT NULL)
        """)
        let plan = SchemaPlan(recorded: try recordedSteps(conn))
        if plan.isNewer {
            guard plan.servesNewer else { throw StorageError.newerSchema(path: path, found: plan.found, supported: latestVersion) }
            report(.acceptedNewer(found: plan.found, supported: latestVersion, additiveSteps: plan.beyond.map(\.version)))
            return
        }
        let clock = ContinuousClock(), started = clock.now
        var applied = 0, reached = plan.found
        for step in plan.pending where step.version <= version {
            let stepStarted = clock.now
            try conn.execute("BEGIN IMMEDIATE")
            var from: Int?
            do {
                // Another process may have migrated while we waited for the lock.
                let now = try storedVersion(conn)
                if now < step.version {
                    try conn.execute(step.sql)
                    try record(step, on: conn, at: Int64(Date().timeIntervalSince1970))
                    from = now
                }
                try conn.execute("COMMIT")
            } catch {
                try? conn.execute("ROLLBACK")
                throw error
            }
            guard let from else { continue }
            applied += 1
            reached = step.version
            if plan.found > 0 { report(.migrated(from: from, to: step.version, milliseconds: (clock.now - stepStarted).wholeMilliseconds)) }
        }
        if plan.found == 0, applied > 0 {
            report(.created(version: reached, steps: applied, milliseconds: (clock.now - started).wholeMilliseconds))
        }
    }
}
