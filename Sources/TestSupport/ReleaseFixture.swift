import Foundation

/// A data directory an earlier release made (`Tests/Fixtures/upgrade/<release>/`, sources in
/// `Tests/Fixtures/PROVENANCE.md`): the upgrade tests copy it before use, never open the fixture.
public enum ReleaseFixture {
    /// The release before this one: its database is at schema version 12.
    public static let previous = "0.1.0"

    /// The fixture file `name` of `release` (`badges.sqlite`, `issuer-keys.json`, `badge-client.json`):
    /// to compare with, not to open for writing.
    public static func file(_ name: String, release: String = previous) throws -> String {
        try Repository.fixture("upgrade/\(release)/\(name)").path
    }

    /// Copies the release's database and issuer key file into a new data directory at `directory`
    /// (mode 0700, files 0600, as the service makes them).
    public static func copyDataDirectory(to directory: String, release: String = previous) throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        for name in ["badges.sqlite", "issuer-keys.json"] {
            try copy(try file(name, release: release), to: (directory as NSString).appendingPathComponent(name))
        }
    }

    /// Copies the release's client key file (the purchase that redeemed its code) to `path` (0600).
    public static func copyClientKeyFile(to path: String, release: String = previous) throws {
        try copy(try file("badge-client.json", release: release), to: path)
    }

    private static func copy(_ source: String, to destination: String) throws {
        try FileManager.default.copyItem(atPath: source, toPath: destination)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: destination)
    }
}
