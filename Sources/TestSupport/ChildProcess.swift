import Foundation
import Locking

/// A finished child process: its exit status and both outputs.
public struct ChildProcessResult: Sendable {
    public let status: Int32
    public let stdout: Data
    public let stderr: Data
}

/// Runs `executable` to its end with exactly `environment`, feeding `input` (when given) on
/// standard input. Both outputs are read to their end before waiting, standard error on its
/// own thread, so neither pipe can fill up and block the child.
public func runChildProcess(_ executable: String, arguments: [String], environment: [String: String],
                            directory: URL? = nil, input: Data? = nil) throws -> ChildProcessResult {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    process.environment = environment
    if let directory { process.currentDirectoryURL = directory }
    let stdin = Pipe(), stdout = Pipe(), stderr = Pipe()
    if input != nil { process.standardInput = stdin }
    process.standardOutput = stdout
    process.standardError = stderr
    try process.run()
    let errData = LockedValueBox<Data?>(nil)  // nil until standard error is read to its end
    Thread {
        let data = stderr.fileHandleForReading.readDataToEndOfFile()
        errData.withLock { $0 = data }
    }.start()
    if let input {
        stdin.fileHandleForWriting.write(input)
        try stdin.fileHandleForWriting.close()
    }
    let out = stdout.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard waitUntil(timeout: .seconds(30), { errData.withLock { $0 } != nil }) else {
        throw ChildProcessError(description: "\(executable): standard error still open 30 s after it exited")
    }
    return ChildProcessResult(status: process.terminationStatus, stdout: out, stderr: errData.withLock { $0 } ?? Data())
}

/// A child process that could not be run to its end.
public struct ChildProcessError: Error, CustomStringConvertible {
    public let description: String
}
