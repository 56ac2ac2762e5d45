import Foundation

/// Paths the tests read: the repository root and the shared reference material beside it
/// (`../shared/reference`, ARCHITECTURE.md §6). Missing data is an error, never a skip.
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

    /// `../shared/reference/<relative>`, required to exist.
    public static func reference(_ relative: String) throws -> URL {
        let url = root.deletingLastPathComponent().appendingPathComponent("shared/reference").appendingPathComponent(relative)
        guard FileManager.default.fileExists(atPath: url.path) else { throw MissingTestData(path: url.path) }
        return url
    }

    /// The bytes of a reference file.
    public static func referenceData(_ relative: String) throws -> Data {
        try Data(contentsOf: reference(relative))
    }
}

/// Conformance data the tests need is not where ARCHITECTURE.md §6 says it lives.
public struct MissingTestData: Error, CustomStringConvertible {
    public let path: String
    public var description: String { "missing test data: \(path)" }
}
