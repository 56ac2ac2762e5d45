import Storage

/// Schema steps a newer release might bring, in SQL both backends take, each recorded in
/// `schema_migrations` as that release would record it: what the tests of "a binary serves a
/// newer schema whose steps are all additive, and refuses any other" apply to a database.
public enum NewerReleaseStep {
    /// An expand step: a column that takes NULL, one with a default, a new table and an index.
    /// This binary's reads and writes never name them, so they work on as before.
    public static func additive(version: Int) -> String {
        """
        ALTER TABLE badge_purchases ADD COLUMN display_name_\(version) TEXT;
        ALTER TABLE badge_codes ADD COLUMN campaign_\(version) TEXT NOT NULL DEFAULT '';
        CREATE TABLE badge_gift_notes_\(version) (
            purchase_id BIGINT PRIMARY KEY REFERENCES badge_purchases (purchase_id),
            note        TEXT NOT NULL
        );
        CREATE INDEX badge_ledger_by_created_\(version) ON badge_ledger (created_at);
        INSERT INTO schema_migrations (version, applied_at, additive) VALUES (\(version), 0, 1);
        """
    }

    /// A contract step: a column this binary reads renamed (its code queries would fail on it).
    public static func contracting(version: Int) -> String {
        """
        ALTER TABLE badge_codes RENAME COLUMN max_uses TO max_uses_\(version);
        INSERT INTO schema_migrations (version, applied_at, additive) VALUES (\(version), 0, 0);
        """
    }
}

extension TestDatabase {
    /// Runs `sql` in one write transaction on a handle of its own (the database migrated first).
    public func execute(_ sql: String) throws {
        switch self {
        case .sqlite(let path): try SQLiteBadgeStore(path: path).database.executeForTesting(sql)
        case .postgres(let settings): try PostgresBadgeStore(settings: settings).database.executeForTesting(sql)
        }
    }
}
