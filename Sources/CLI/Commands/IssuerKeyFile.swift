import Credentials
import Foundation

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
            return (try load(path: path), false)
        }
        guard !databaseHoldsPurchases else {
            throw CommandFailure("issuer key file \(path) is missing but \(databasePath) holds purchases: restore the key file (a new key would invalidate every credential issued)")
        }
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        let keyring = try IssuerKeyring(index: 1, secretKey: IssuerSecretKey.generate())
        try keyring.save(to: url)
        return (keyring, true)
    }

    static func load(path: String) throws -> IssuerKeyring {
        do {
            return try IssuerKeyring.load(from: URL(fileURLWithPath: path))
        } catch let error as CredentialError {
            throw CommandFailure("issuer key file \(path): \(error)")
        } catch {
            throw CommandFailure("cannot read issuer key file \(path): \((error as NSError).localizedDescription)")
        }
    }
}
