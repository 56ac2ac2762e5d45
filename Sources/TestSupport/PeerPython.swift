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

    /// ``interpreter``, or a failure naming it and the command that installs it.
    static func installedInterpreter() throws -> String {
        let python = interpreter
        guard FileManager.default.isExecutableFile(atPath: python) else {
            throw Failure(status: -1, stderr: "no peer interpreter at \(python); run scripts/peers-venv")
        }
        return python
    }

    /// Runs `Tests/Peers/<script>` with `arguments`, feeding `input` on stdin; returns stdout.
    /// Throws when the interpreter is missing or the script exits non-zero.
    @discardableResult
    public static func run(script: String, arguments: [String] = [], input: Data = Data(),
                           environment: [String: String] = [:]) throws -> Data {
        let python = try installedInterpreter()
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


/// A Python fake from `Tests/Peers` serving on 127.0.0.1: started with its arguments, its port
/// read from the last word of the first line it prints, stopped when this is released (the
/// fakes exit when their standard input closes, so a crashed test leaves none behind).
public final class PeerServer: @unchecked Sendable {
    public let port: Int
    private let process = Process()
    /// The fake's process id.
    public var processIdentifier: Int32 { process.processIdentifier }
    private let stdin = Pipe()

    public init(script: String, arguments: [String]) throws {
        let python = try PeerPython.installedInterpreter()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [Repository.root.appendingPathComponent("Tests/Peers").appendingPathComponent(script).path] + arguments
        let stdout = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        try process.run()
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = stdout.fileHandleForReading.availableData
            if chunk.isEmpty { throw PeerPython.Failure(status: -1, stderr: "\(script) exited before listening") }
            line.append(chunk)
        }
        let text = String(decoding: line, as: UTF8.self)
        guard let port = text.split(separator: " ").last.flatMap({ Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }) else {
            throw PeerPython.Failure(status: -1, stderr: "\(script) said: \(text)")
        }
        self.port = port
    }

    /// Closes the fake's standard input and waits for it to exit; a fake still running 10 s later
    /// (its input held open elsewhere, or stuck) is killed, so releasing one never blocks a test.
    deinit {
        try? stdin.fileHandleForWriting.close()
        if !waitUntil(timeout: .seconds(10), { !process.isRunning }) { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }
}
