import Foundation
import Glibc
import TestSupport

/// The real `badge-service` binary run by a test: `serve` on a free loopback port with its own
/// data directory, stopped (or killed) by the test and never left behind.
final class ServiceProcess: @unchecked Sendable {
    let data: TemporaryDirectory
    let process = Process()
    private(set) var port = 0
    /// The host as URLs write it (`127.0.0.1`, `[::1]`).
    let host: String
    let stderrPath: String
    let stdoutPath: String
    private var launched = false
    /// The service's own process: the launcher's child when there is a launcher.
    private var servicePID: pid_t = 0

    /// The built executable beside the test bundle (`swift build --build-tests` builds both).
    static var executable: String {
        let beside = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("badge-service").path
        if FileManager.default.isExecutableFile(atPath: beside) { return beside }
        return Repository.root.appendingPathComponent(".build/debug/badge-service").path
    }

    /// Starts `serve` and waits until it listens. With a `launcher` (a program and its arguments,
    /// e.g. `faketime TIME`), the launcher runs the service as its child. Standard output (the
    /// access log) goes to `stdoutPath` unless `standardOutput` is given.
    init(data: TemporaryDirectory = TemporaryDirectory("e2e"), listen: String = "127.0.0.1:0", arguments: [String] = [],
         environment: [String: String] = [:], executable: String = ServiceProcess.executable, launcher: [String] = [],
         standardOutput: FileHandle? = nil) throws {
        self.data = data
        stderrPath = data.file("serve.err")
        stdoutPath = data.file("serve.out")
        _ = FileManager.default.createFile(atPath: stderrPath, contents: nil)
        _ = FileManager.default.createFile(atPath: stdoutPath, contents: nil)
        let serve = ["serve", "--listen", listen, "--data", data.file("badge-data")] + arguments
        host = String(listen[..<listen.lastIndex(of: ":")!])
        if let program = launcher.first {
            process.executableURL = URL(fileURLWithPath: program)
            process.arguments = Array(launcher.dropFirst()) + [executable] + serve
        } else {
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = serve
        }
        launched = !launcher.isEmpty
        process.currentDirectoryURL = data.url
        var env = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("BADGE_SERVICE_") }
        for (k, v) in environment { env[k] = v }
        process.environment = env
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: stderrPath))
        process.standardOutput = try standardOutput ?? FileHandle(forWritingTo: URL(fileURLWithPath: stdoutPath))
        guard FileManager.default.isExecutableFile(atPath: executable) else {
            throw Failure("no badge-service binary at \(executable); run `swift build --build-tests` first")
        }
        try process.run()
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline {
            if let text = try? String(contentsOfFile: stderrPath, encoding: .utf8),
               let range = text.range(of: "listening on http://\(host):") {
                let digits = text[range.upperBound...].prefix { $0.isNumber }
                if let p = Int(digits) {
                    port = p
                    if launched { servicePID = Self.onlyChild(of: process.processIdentifier) }
                    return
                }
            }
            if !process.isRunning { throw Failure("serve exited \(process.terminationStatus): \(stderr)") }
            usleep(20_000)
        }
        if launched { kill(Self.onlyChild(of: process.processIdentifier), SIGKILL) }
        process.terminate()
        throw Failure("serve did not start listening: \(stderr)")
    }

    var url: String { "http://\(host):\(port)" }
    var stderr: String { (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? "" }
    /// Standard output (the access log) once the service's writer has caught up with it: the
    /// access log is written every 0.25 s, off the request path, so a read right after a request
    /// may miss its line. Read until two reads half a second apart agree.
    var accessLog: String {
        func read() -> String { (try? String(contentsOfFile: stdoutPath, encoding: .utf8)) ?? "" }
        var last = read()
        for _ in 0..<20 {
            usleep(500_000)
            let now = read()
            if now == last { return now }
            last = now
        }
        return last
    }

    /// The child process of `parent` (a launcher runs exactly one), or 0.
    static func onlyChild(of parent: pid_t) -> pid_t {
        let text = (try? String(contentsOfFile: "/proc/\(parent)/task/\(parent)/children", encoding: .utf8)) ?? ""
        return text.split(separator: " ").first.flatMap { pid_t($0) } ?? 0
    }

    /// Sends `signal` to the service and waits for the exit status (nil if it did not exit in
    /// time). A launcher does not forward signals, so they go to its child, whose exit status it
    /// passes on.
    @discardableResult
    func stop(_ signal: Int32 = SIGTERM, within seconds: Double = 15) -> Int32? {
        guard process.isRunning else { return process.terminationStatus }
        if launched && servicePID > 0 {
            kill(servicePID, signal)
        } else {
            kill(process.processIdentifier, signal)
        }
        let deadline = Date().addingTimeInterval(seconds)
        while process.isRunning && Date() < deadline { usleep(10_000) }
        if process.isRunning {
            if launched && servicePID > 0 { kill(servicePID, SIGKILL) }
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            return nil
        }
        return process.terminationStatus
    }

    /// Runs another `badge-service` command on the same data directory.
    func cli(_ arguments: [String]) throws -> CLIResult {
        try CLIResult.run(arguments + ["--data", data.file("badge-data")], in: data.url)
    }

    deinit { stop(SIGKILL, within: 5) }

    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ d: String) { description = d }
    }
}

/// One run of the binary: exit status and both outputs.
struct CLIResult {
    let status: Int32
    let stdout: String
    let stderr: String

    static func run(_ arguments: [String], in directory: URL? = nil, environment: [String: String] = [:],
                    executable: String = ServiceProcess.executable) throws -> CLIResult {
        var env = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("BADGE_SERVICE_") }
        for (k, v) in environment { env[k] = v }
        let result = try runChildProcess(executable, arguments: arguments, environment: env, directory: directory)
        return CLIResult(status: result.status, stdout: String(decoding: result.stdout, as: UTF8.self),
                         stderr: String(decoding: result.stderr, as: UTF8.self))
    }
}
