import Foundation

/// Runs a Python peer (an independent implementation from PyPI, pinned in
/// Tests/Peers/requirements.txt) in the virtual environment `scripts/peers-venv` made.
///
/// The interpreter is `$BADGE_PEERS_PYTHON`, else `.venv-peers/bin/python` in the repository.
/// A missing interpreter or package fails the test that needs it.
public enum PeerPython {
    public struct Failure: Error, CustomStringConvertible {
        public let status: Int32
        public let stderr: String
        public var description: String { "peer exited \(status): \(stderr)" }
    }

    public static var interpreter: String {
        ProcessInfo.processInfo.environment["BADGE_PEERS_PYTHON"]
            ?? Repository.root.appendingPathComponent(".venv-peers/bin/python").path
    }

    /// Runs `Tests/Peers/<script>` with `arguments`, feeding `input` on stdin; returns stdout.
    /// Throws when the interpreter is missing or the script exits non-zero.
    @discardableResult
    public static func run(script: String, arguments: [String] = [], input: Data = Data(),
                           environment: [String: String] = [:]) throws -> Data {
        let python = interpreter
        guard FileManager.default.isExecutableFile(atPath: python) else {
            throw Failure(status: -1, stderr: "no peer interpreter at \(python); run scripts/peers-venv")
        }
        var env = ProcessInfo.processInfo.environment
        for (k, v) in environment { env[k] = v }
        let scriptPath = Repository.root.appendingPathComponent("Tests/Peers").appendingPathComponent(script).path
        let result = try runChildProcess(python, arguments: [scriptPath] + arguments, environment: env, input: input)
        guard result.status == 0 else {
            throw Failure(status: result.status, stderr: String(decoding: result.stderr, as: UTF8.self))
        }
        return result.stdout
    }
}

