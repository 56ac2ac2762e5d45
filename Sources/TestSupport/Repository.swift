import Foundation

/// Paths the tests read: the repository root and the conformance data copied into
/// `Tests/Fixtures` (sources in `Tests/Fixtures/PROVENANCE.md`). Missing data is an error, never a skip.
public enum Repository {
    /// The directory holding Package.swift.
    public static let root: URL = {
        var dir = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        while dir.path != "/" {
            if FileManager.default.fileExists(atPath: dir.appendingPathComponent("Package.swift").path) { return dir }
            dir.deleteLastPathComponent()
        }
        fatalError("Package.swift not found above \(#filePath)")
    }()

    /// `Tests/Fixtures/<relative>`, required to exist.
    public static func fixture(_ relative: String) throws -> URL {
        let url = root.appendingPathComponent("Tests/Fixtures").appendingPathComponent(relative)
        guard FileManager.default.fileExists(atPath: url.path) else { throw MissingTestData(path: url.path) }
        return url
    }

    /// The bytes of a fixture file.
    public static func fixtureData(_ relative: String) throws -> Data {
        try Data(contentsOf: fixture(relative))
    }
}

/// Conformance data a test needs is missing from `Tests/Fixtures`.
public struct MissingTestData: Error, CustomStringConvertible {
    public let path: String
    public var description: String { "missing test data: \(path)" }
}
