import CSQLite
import Foundation

extension SQLiteDatabase {
    /// Copies one consistent snapshot of the database into a new file at `destination` (mode
    /// 0600) with SQLite's online backup API; writers in other processes go on meanwhile.
    public func backup(to destination: String) throws {
        // O_EXCL: never replaces a file; SQLite alone would create it 0644.
        let fd = open(destination, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            throw StorageError.cannotOpen(path: destination, reason: String(cString: strerror(errno)))
        }
        close(fd)
        var target: OpaquePointer?
        let rc = sqlite3_open_v2(destination, &target, SQLITE_OPEN_READWRITE, nil)
        guard rc == SQLITE_OK, let target else {
            let message = target.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            if let target { sqlite3_close_v2(target) }
            throw StorageError.cannotOpen(path: destination, reason: message)
        }
        defer { sqlite3_close_v2(target) }
        // A read-only connection of its own: one step copies every page inside one read
        // transaction, which WAL lets run beside the writer.
        let source = try SQLiteConnection(path: path, readOnly: true)
        guard let backup = sqlite3_backup_init(target, "main", source.handle, "main") else {
            throw StorageError.cannotOpen(path: destination, reason: String(cString: sqlite3_errmsg(target)))
        }
        let step = sqlite3_backup_step(backup, -1)
        sqlite3_backup_finish(backup)
        guard step == SQLITE_DONE else {
            throw StorageError.sqlite(code: step, message: "backup to \(destination): \(String(cString: sqlite3_errstr(step)))")
        }
    }
}
