import BadgeCore
import Foundation
import JSON

/// What `backup` records in the copy it makes (`backup.json`): when the snapshot was taken, of
/// which database, at which schema version; never a secret. A data directory holding it at its
/// top level is a restore of that backup (one in a subdirectory, such as `backups/…`, is just a
/// backup kept there).
public struct BackupRecord: Equatable, Sendable {
    /// The record in a backup, and in a restored data directory until the restore is acknowledged.
    public static let fileName = "backup.json"
    /// The same record once `serve --restored` acknowledged the restore: the operator's note of
    /// it, and `reconcile`'s default `--since`.
    public static let acknowledgedFileName = "restored-from-backup.json"

    /// The moment the copy was started: everything written after it is missing from the copy.
    public var madeAt: Timestamp
    /// The database the copy was taken from.
    public var sourceDatabase: String
    /// The copy's schema version.
    public var schemaVersion: Int

    public init(madeAt: Timestamp, sourceDatabase: String, schemaVersion: Int) {
        self.madeAt = madeAt
        self.sourceDatabase = sourceDatabase
        self.schemaVersion = schemaVersion
    }

    /// The file's bytes: one JSON object, the time both as RFC 3339 and as Unix seconds.
    public var bytes: [UInt8] {
        let json: JSONValue = ["backupTime": .string(RFC3339.format(madeAt)), "backupTimeSeconds": .number(JSONNumber(Int(madeAt.seconds))),
                               "sourceDatabase": .string(sourceDatabase), "schemaVersion": .number(JSONNumber(schemaVersion))]
        return json.serialized(.spaced) + [UInt8(ascii: "\n")]
    }

    /// The record at `path`; a file that cannot be read or is not such a record is one line naming it.
    public static func read(_ path: String) throws -> BackupRecord {
        let bytes: [UInt8]
        switch FileSystem.read(path) {
        case .success(let read): bytes = read
        case .failure(let failure): throw CommandFailure("cannot read backup record \(path): \(failure.reason)")
        }
        guard let json = try? JSONParser().parse(bytes), let seconds = json["backupTimeSeconds"]?.numberValue?.exactInt else {
            throw CommandFailure("backup record \(path) is not one: no backupTimeSeconds")
        }
        return BackupRecord(madeAt: Timestamp(seconds: Int64(seconds)), sourceDatabase: json["sourceDatabase"]?.stringValue ?? "",
                            schemaVersion: json["schemaVersion"]?.numberValue?.exactInt ?? 0)
    }
}

/// Whether a data directory was restored from a backup, and whether that was acknowledged.
public enum RestoreState: Equatable, Sendable {
    case notRestored
    /// `backup.json` at its top level: the first `serve` refuses until `--restored`.
    case unacknowledged(BackupRecord, path: String)
    /// `restored-from-backup.json`: acknowledged by a `serve --restored`.
    case acknowledged(BackupRecord, path: String)

    /// The backup this data directory was restored from, either way.
    public var record: BackupRecord? {
        switch self {
        case .notRestored: nil
        case .unacknowledged(let record, _), .acknowledged(let record, _): record
        }
    }
}

extension ServiceConfiguration {
    /// Whether the data directory is a restore: only records at its top level count.
    public func restoreState() throws -> RestoreState {
        let marker = (dataDirectory as NSString).appendingPathComponent(BackupRecord.fileName)
        if FileManager.default.fileExists(atPath: marker) { return .unacknowledged(try BackupRecord.read(marker), path: marker) }
        let acknowledged = (dataDirectory as NSString).appendingPathComponent(BackupRecord.acknowledgedFileName)
        if FileManager.default.fileExists(atPath: acknowledged) {
            return .acknowledged(try BackupRecord.read(acknowledged), path: acknowledged)
        }
        return .notRestored
    }

    /// Records that the operator acknowledged the restore (`serve --restored`): `backup.json`
    /// becomes `restored-from-backup.json`, so later starts do not ask again. Returns the new path.
    func acknowledgeRestore(marker: String) throws -> String {
        let acknowledged = (dataDirectory as NSString).appendingPathComponent(BackupRecord.acknowledgedFileName)
        guard rename(marker, acknowledged) == 0 else { throw FileSystemError("rename \(marker) to", path: acknowledged, errno: errno) }
        return acknowledged
    }
}

/// What the operator must do after a restore, as `serve --restored` logs it.
enum RestoreInstructions {
    static func lines(_ record: BackupRecord, dataDirectory: String, acknowledgedIn path: String, now: Timestamp) -> [String] {
        let time = RFC3339.format(record.madeAt)
        let lost = max(0, now.seconds - record.madeAt.seconds)
        let age = lost >= 3600 ? "\(lost / 3600) h \(lost / 60 % 60) min" : "\(lost / 60) min"
        return [
            "restored data directory \(dataDirectory) from the backup made at \(time): everything written after it is lost "
                + "(the recovery point is \(age) before this start); acknowledged in \(path)",
            "after the restore: run badge-service reconcile --since \(time) (with this --config and --data) to credit the "
                + "Stripe and BTCPay payments settled since the backup",
            "after the restore: codes created after \(time) are unknown here (give their holders new ones), and codes redeemed "
                + "after it can be redeemed again: revoke the codes handed out since (badge-service codes revoke)",
        ]
    }
}
