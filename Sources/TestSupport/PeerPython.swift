import Foundation
import Locking

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
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [Repository.root.appendingPathComponent("Tests/Peers").appendingPathComponent(script).path] + arguments
        var env = ProcessInfo.processInfo.environment
        for (k, v) in environment { env[k] = v }
        process.environment = env
        let stdin = Pipe(), stdout = Pipe(), stderr = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        let errBox = LockedValueBox<Data?>(nil)  // nil until standard error is read to its end
        let errThread = Thread {
            let data = stderr.fileHandleForReading.readDataToEndOfFile()
            errBox.withLock { $0 = data }
        }
        errThread.start()
        stdin.fileHandleForWriting.write(input)
        try stdin.fileHandleForWriting.close()
        let out = stdout.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        var errData = errBox.withLock { $0 }
        while errData == nil {
            usleep(1000)
            errData = errBox.withLock { $0 }
        }
        guard process.terminationStatus == 0 else {
            throw Failure(status: process.terminationStatus, stderr: String(decoding: errData ?? Data(), as: UTF8.self))
        }
        return out
    }
}

