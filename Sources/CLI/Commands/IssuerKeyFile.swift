import Credentials
import Foundation
import Glibc
import Storage

/// The service's issuer key file (format on ``IssuerKeyring``): created with key index 1 on
/// first start, and from then on loaded and checked, refusing to start on any mismatch.
public enum IssuerKeyFile {
    /// Loads the key file, or creates it with a fresh key at index 1 when it does not exist and
    /// the database has never sold anything: credentials already issued were signed with a key
    /// that a new one would silently replace.
    public static func loadOrCreate(path: String, databasePath: String, databaseHoldsPurchases: Bool) throws
        -> (keyring: IssuerKeyring, created: Bool) {
        let url = URL(fileURLWithPath: path)
        if FileManager.default.fileExists(atPath: path) {
            try refuseIfShared(path: path)
            return (try load(path: path), false)
        }
        guard !databaseHoldsPurchases else {
            throw CommandFailure("issuer key file \(path) is missing but \(databasePath) holds purchases: restore the key file (a new key would invalidate every credential issued)")
        }
        if case .failure(let failure) = FileSystem.makeDirectory(url.deletingLastPathComponent().path, mode: 0o700, parents: true) {
            throw CommandFailure("cannot create issuer key file \(path): \(failure)")
        }
        let keyring = try IssuerKeyring(index: 1, secretKey: IssuerSecretKey.generate())
        try save(keyring, path: path)
        return (keyring, true)
    }

    /// Replaces the key file in one step, a temporary file renamed over it (a crash leaves the
    /// old file or the new one), mode 0600. A symbolic link stays one: its target is replaced,
    /// in the target's own directory.
    static func save(_ keyring: IssuerKeyring, path: String) throws {
        var target = path
        if let resolved = realpath(path, nil) {
            target = String(cString: resolved)
            free(resolved)
        }
        if case .failure(let failure) = FileSystem.writeAtomically(target, keyring.fileBytes) {
            throw CommandFailure("cannot write issuer key file \(path): \(failure.path == path ? "" : failure.path + ": ")\(failure.reason)")
        }
    }

    /// Refuses a key file holding, under an index stored credentials were signed with, another
    /// public key than the database recorded for it (they would stop verifying); records the rest.
    static func refuseIfChangedSinceRecorded(_ keyring: IssuerKeyring, path: String, store: any OperatedStore) throws {
        if let index = try store.recordIssuerKeys(keyring.publicKeysByIndex.mapValues(\.bytes), at: systemClock()) {
            throw CommandFailure("issuer key file \(path) holds another key at index \(index) than database \(store.location) "
                                 + "recorded, and credentials signed with it are stored: restore the key file; a new key goes at a free index")
        }
    }

    /// A secret key file others may read is refused rather than used: the operator must notice.
    static func refuseIfShared(path: String) throws {
        var info = stat()
        guard stat(path, &info) == 0 else {
            throw CommandFailure("cannot read issuer key file \(path): \(String(cString: strerror(errno)))")
        }
        try FileSystem.refuseShared(path, naming: "issuer key file")
    }

    static func load(path: String) throws -> IssuerKeyring {
        switch FileSystem.read(path) {
        case .failure(let failure): throw CommandFailure("cannot read issuer key file \(path): \(failure.reason)")
        case .success(let bytes):
            do { return try IssuerKeyring(json: bytes) } catch { throw CommandFailure("issuer key file \(path): \(error)") }
        }
    }
}

extension String {
    /// Padded with leading zeros to `width` (a file mode shown as `0644`).
    func leftPadded(to width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}
