import BadgeCore
import Foundation
import Glibc
import Storage

/// The backup written before an SQLite database a release made is migrated (by `serve`, `init` or
/// `migrate`): `backup`'s format, in `<data_dir>/backups/pre-migrate-<from>-<to>-<UTC time>/`,
/// the last three kept. Restoring it with the binary that made the database undoes the upgrade
/// (README, Upgrading). `[database] backup_before_migrate = off` skips it, with a warning.
enum PreMigrateBackup {
    /// How many pre-migrate backups stay; older ones are deleted after a new one is written.
    static let kept = 3
    static let prefix = "pre-migrate-"

    /// Where pre-migrate backups go: beside the data, in the data directory.
    static func directory(_ config: ServiceConfiguration) -> String {
        (config.dataDirectory as NSString).appendingPathComponent("backups")
    }

    /// `path` made absolute, as the log names a backup: a relative data directory depends on
    /// the working directory.
    static func absolute(_ path: String) -> String { URL(fileURLWithPath: path).standardizedFileURL.path }

    /// `pre-migrate-12-13-20261204T154127Z`: the versions, then the UTC time (which orders them);
    /// a second backup in the same second (`sequence` 2 on) ends `-2`, and so on.
    static func name(from: Int, to: Int, at time: Timestamp, sequence: Int = 1) -> String {
        let date = time.date, second = time.secondOfDay
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        let stamp = "\(date.year)\(two(date.month))\(two(date.day))T\(two(second / 3600))\(two(second / 60 % 60))\(two(second % 60))Z"
        return "\(prefix)\(from)-\(to)-\(stamp)" + (sequence > 1 ? "-\(sequence)" : "")
    }

    /// When a pre-migrate backup was written, as its name says (the UTC time, then its sequence in
    /// that second), or nil for a name `name(from:to:at:sequence:)` does not make (another backup,
    /// a partial one, a file of the operator's).
    static func order(ofName name: String) -> (time: String, sequence: Int)? {
        func digits(_ text: Substring) -> Bool { !text.isEmpty && text.allSatisfy { $0 >= "0" && $0 <= "9" } }
        guard name.hasPrefix(prefix) else { return nil }
        let parts = name.dropFirst(prefix.count).split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3 || parts.count == 4, digits(parts[0]), digits(parts[1]) else { return nil }
        let stamp = parts[2]
        guard stamp.count == 16, stamp.hasSuffix("Z"), digits(stamp.prefix(8)), stamp.dropFirst(8).first == "T",
              digits(stamp.dropFirst(9).dropLast()) else { return nil }
        guard parts.count == 4 else { return (String(stamp), 1) }
        guard digits(parts[3]), parts[3].first != "0", let sequence = Int(parts[3]), sequence > 1 else { return nil }
        return (String(stamp), sequence)
    }

    /// Of the directories named `names`, the pre-migrate backups past the `keeping` newest: what
    /// to delete. Nothing else is ever named.
    static func expired(_ names: [String], keeping: Int) -> [String] {
        let backups = names.compactMap { name in order(ofName: name).map { (name: name, order: $0) } }
            .sorted { ($0.order.time, $0.order.sequence) > ($1.order.time, $1.order.sequence) }
        return backups.dropFirst(keeping).map(\.name)
    }

    /// The backup directory for a migration from `from` to `to` at `time`: the first name of that
    /// second that neither a backup nor a partial one holds.
    static func destination(_ config: ServiceConfiguration, from: Int, to: Int, at time: Timestamp) -> String {
        let directory = directory(config)
        var sequence = 1
        while true {
            let path = (directory as NSString).appendingPathComponent(name(from: from, to: to, at: time, sequence: sequence))
            var info = stat()
            if lstat(path, &info) != 0 && lstat(path + ".partial", &info) != 0 { return path }
            sequence += 1
        }
    }

    /// What a start or `migrate` does before migrating `config`'s SQLite database, given where
    /// its schema stands: nothing unless a release made it at an older version; with
    /// `backup_before_migrate` on, writes the backup, logs its path and deletes the pre-migrate
    /// backups past the last three; off, logs a warning. A backup that cannot be written stops
    /// the migration, in one line naming the path. Returns the backup's path.
    @discardableResult
    static func beforeMigrating(_ config: ServiceConfiguration, plan: SchemaPlan, at time: Timestamp = systemClock()) throws -> String? {
        guard config.databaseURL == nil, plan.found > 0, !plan.isNewer, let to = plan.pending.last?.version else { return nil }
        let database = config.databasePath, from = plan.found
        guard config.backupBeforeMigrate else {
            ServiceLog.warning("migrating database \(database) from schema version \(from) to \(to) without a backup: "
                               + "[database] backup_before_migrate is off")
            return nil
        }
        let directory = directory(config)
        let destination = Self.destination(config, from: from, to: to, at: time)
        do {
            if mkdir(directory, 0o700) != 0, errno != EEXIST {
                throw FileSystemError("create backup directory", path: directory, errno: errno)
            }
            _ = try DataDirectoryBackup.write(config, to: destination)
        } catch {
            throw CommandFailure("not migrating database \(database) from schema version \(from) to \(to): the backup before it failed: \(error) "
                                 + "(set [database] backup_before_migrate = off to migrate without one)")
        }
        ServiceLog.info("backed up database \(database) before migrating it from schema version \(from) to \(to): \(absolute(destination))")
        deleteExpired(in: directory)
        return destination
    }

    /// Deletes the pre-migrate backups past the last ``kept`` in `directory`; one that cannot be
    /// deleted is a warning, not a failure (the migration is already backed up).
    private static func deleteExpired(in directory: String) {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        let directories = entries.filter { entry in
            var info = stat()
            return lstat((directory as NSString).appendingPathComponent(entry), &info) == 0 && info.st_mode & S_IFMT == S_IFDIR
        }
        for name in expired(directories, keeping: kept) {
            let path = (directory as NSString).appendingPathComponent(name)
            do {
                try FileManager.default.removeItem(atPath: path)
                ServiceLog.info("deleted pre-migrate backup \(absolute(path)): the last \(kept) are kept")
            } catch {
                ServiceLog.warning("could not delete pre-migrate backup \(path): \(FileSystemError.reason(error))")
            }
        }
    }
}
