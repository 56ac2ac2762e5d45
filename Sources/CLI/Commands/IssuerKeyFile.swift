import BadgeCore
import Credentials
import Foundation
import Glibc
import Storage

/// The service's issuer key file (format on ``IssuerKeyring``): created with key index 1 on
/// first start, and from then on loaded and checked, refusing to start on any mismatch.
public enum IssuerKeyFile {
    /// Loads the key file and records its public keys in the database; with no key file, creates
    /// one with a fresh key at index 1, but only for a database that records no key and holds no
    /// purchase. Every instance over one database so signs with the key the database recorded.
    public static func loadOrCreate(path: String, store: any OperatedStore) throws -> (keyring: IssuerKeyring, created: Bool) {
        if FileManager.default.fileExists(atPath: path) {
            try refuseIfShared(path: path)
            let keyring = try load(path: path)
            try refuseIfChangedSinceRecorded(keyring, path: path, store: store)
            return (keyring, false)
        }
        if let (index, key) = try store.recordedIssuerKeys().min(by: { $0.key < $1.key }) {
            throw CommandFailure("issuer key file \(path) is missing but database \(store.location) records issuer key index \(index) "
                                 + "(public key \(prefix(key))…): copy the key file from the instance that made it "
                                 + "(a new key would sign credentials that fail under the recorded one)")
        }
        guard try !store.holdsPurchases() else {
            throw CommandFailure("issuer key file \(path) is missing but \(store.location) holds purchases: restore the key file (a new key would invalidate every credential issued)")
        }
        let url = URL(fileURLWithPath: path)
        if case .failure(let failure) = FileSystem.makeDirectory(url.deletingLastPathComponent().path, mode: 0o700, parents: true) {
            throw CommandFailure("cannot create issuer key file \(path): \(failure)")
        }
        let keyring = try IssuerKeyring(index: 1, secretKey: IssuerSecretKey.generate())
        // Written aside first and put in place only once the database recorded it: of two
        // instances starting at once over one database, the one whose key lost writes nothing.
        let aside = path + ".new-\(getpid())"
        if case .failure(let failure) = FileSystem.writeAtomically(aside, keyring.fileBytes) {
            throw CommandFailure("cannot write issuer key file \(path): \(failure.path == aside ? "" : failure.path + ": ")\(failure.reason)")
        }
        defer { unlink(aside) }
        if let conflict = try store.recordIssuerKeys(keyring.publicKeysByIndex.mapValues(\.bytes), at: systemClock()) {
            throw CommandFailure("database \(store.location) recorded issuer key index \(conflict.index) (public key \(prefix(conflict.recorded))…) "
                                 + "as this start made another: another instance made it first; copy its key file to \(path)")
        }
        // link, not rename: a key file that appeared meanwhile is never replaced.
        guard link(aside, path) == 0 else {
            throw FileSystemError("create issuer key file", path: path, errno: errno)
        }
        return (keyring, true)
    }

    /// The first characters of a public key's text, enough to tell two keys apart in a log line.
    static func prefix(_ publicKey: [UInt8]) -> String { String(Base64URL.encode(publicKey).prefix(12)) }

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

    /// Records the key file's public keys in the database, refusing one that is another than the
    /// key the database recorded for its index: credentials it signs would fail under the
    /// recorded key (the one clients and the other instances have).
    static func refuseIfChangedSinceRecorded(_ keyring: IssuerKeyring, path: String, store: any OperatedStore) throws {
        let offered = keyring.publicKeysByIndex.mapValues(\.bytes)
        if let conflict = try store.recordIssuerKeys(offered, at: systemClock()) {
            throw CommandFailure("issuer key file \(path) holds key index \(conflict.index) with public key \(prefix(offered[conflict.index] ?? []))… "
                                 + "but database \(store.location) recorded \(prefix(conflict.recorded))… for it: copy the key file from the "
                                 + "instance that made it (credentials signed with one fail under the other); a new key goes at a free index")
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
