import Foundation
import Storage
#if canImport(Glibc)
import Glibc
#endif

/// A throw-away PostgreSQL cluster for the tests of this process: `initdb` into a temporary
/// directory, the server on a free port of 127.0.0.1 only (no Unix socket), password
/// authentication, stopped and removed by a watchdog once this process has exited.
///
/// The server refuses to run as root, as tests do in CI: then `initdb`, `pg_ctl` and the server
/// run as the `postgres` user the Debian packages create (`scripts/install-deps` installs them).
/// The binaries are found with `pg_config --bindir`, else the newest `/usr/lib/postgresql/*/bin`.
public final class PostgresCluster: Sendable {
    /// The cluster of this test process, started by the first test that asks for it.
    public static let shared: PostgresCluster = {
        do {
            return try PostgresCluster()
        } catch {
            fatalError("cannot start the test PostgreSQL cluster: \(error)")
        }
    }()

    /// A cluster of its own, for a test that stops or restarts the server; `durable` keeps
    /// fsync on (a benchmark's commits cost what they cost in production).
    public static func dedicated(durable: Bool = false) throws -> PostgresCluster { try PostgresCluster(durable: durable) }

    /// The server's major version (the directory its binaries came from).
    public var version: String { URL(fileURLWithPath: binDirectory).deletingLastPathComponent().lastPathComponent }

    public let port: Int
    public let user = "badge"
    /// The superuser's password; connections give it apart from the URL, as the service does.
    public let password: String
    public let directory: String
    private let binDirectory: String
    private let runAs: String?
    private let durable: Bool

    private init(durable: Bool = false) throws {
        self.durable = durable
        binDirectory = try Self.findBinaries()
        runAs = getuid() == 0 ? "postgres" : nil
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("badge-pg-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        password = UUID().uuidString
        let passwordFile = directory + "/password"
        try Data(password.utf8).write(to: URL(fileURLWithPath: passwordFile))
        if let runAs {
            guard let account = getpwnam(runAs) else {
                throw ChildProcessError(description: "tests run as root and there is no \(runAs) user to run PostgreSQL as (scripts/install-deps installs postgresql)")
            }
            for path in [directory, passwordFile] { chown(path, account.pointee.pw_uid, account.pointee.pw_gid) }
        }
        port = try Self.freePort()
        try run("initdb", ["-D", directory + "/data", "-U", user, "--pwfile=" + passwordFile, "--auth=scram-sha-256",
                           "-E", "UTF8", "--no-locale", "--no-sync"])
        // The watchdog first, so a failed start is cleaned up too.
        try startWatchdog()
        try start()
    }

    /// A fresh, empty database in the cluster, and the settings that reach it.
    public func makeDatabase(poolSize: Int = 4, statementTimeoutMilliseconds: Int = 10_000) throws -> PostgresSettings {
        let name = "t_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        try PostgresDatabase.execute("CREATE DATABASE \(name) TEMPLATE template0 STRATEGY FILE_COPY", settings: try settings(database: "postgres"))
        return try settings(database: name, poolSize: poolSize, statementTimeoutMilliseconds: statementTimeoutMilliseconds)
    }

    /// Settings for `database` on this cluster.
    public func settings(database: String, poolSize: Int = 4, statementTimeoutMilliseconds: Int = 10_000) throws -> PostgresSettings {
        try PostgresSettings(url: url(database: database), password: password, poolSize: poolSize,
                             statementTimeoutMilliseconds: statementTimeoutMilliseconds)
    }

    /// The URL of `database` (no password in it).
    public func url(database: String) -> String { "postgresql://\(user)@127.0.0.1:\(port)/\(database)" }

    /// Stops the server (fast: connections are closed) and starts it again on the same port.
    public func restart() throws {
        try run("pg_ctl", ["-D", directory + "/data", "-m", "fast", "-w", "-t", "60", "restart"])
    }

    /// Stops the server; ``start()`` brings it back.
    public func stop() throws { try run("pg_ctl", ["-D", directory + "/data", "-m", "fast", "-w", "-t", "60", "stop"]) }

    /// Starts the server (again, after ``stop()``) on its port of 127.0.0.1 only, without a Unix socket.
    public func start() throws {
        let options = "-c listen_addresses=127.0.0.1 -p \(port) -c unix_socket_directories='' -c max_connections=300"
            + (durable ? "" : " -c fsync=off -c synchronous_commit=off -c full_page_writes=off")
        try run("pg_ctl", ["-D", directory + "/data", "-l", directory + "/server.log", "-w", "-t", "60", "-o", options, "start"])
    }

    /// Stops every process of the server with SIGSTOP, as a hung host would: connections stay
    /// open and connects are accepted by the kernel, but nothing answers. ``thaw()`` resumes it.
    public func freeze() throws { try signalServer(SIGSTOP) }

    /// Resumes a server ``freeze()`` stopped.
    public func thaw() throws { try signalServer(SIGCONT) }

    /// Sends `signal` to the postmaster (its pid is `postmaster.pid`'s first line) and each of its children.
    private func signalServer(_ signal: Int32) throws {
        let pidFile = directory + "/data/postmaster.pid"
        guard let text = try? String(contentsOfFile: pidFile, encoding: .utf8),
              let first = text.split(separator: "\n").first, let postmaster = pid_t(first) else {
            throw ChildProcessError(description: "no running server: \(pidFile) names no process")
        }
        var processes = [postmaster]
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
            guard let pid = pid_t(entry), let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                  let close = stat.lastIndex(of: ")") else { continue }
            // After the command's closing parenthesis: the state, then the parent's pid.
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            if fields.count > 1, pid_t(fields[1]) == postmaster { processes.append(pid) }
        }
        for pid in processes { kill(pid, signal) }
    }

    /// Runs a PostgreSQL tool to its end, its output to a file: the server `pg_ctl start` leaves
    /// running must hold no pipe of ours (``runHoldingNoDescriptorOfOurs(_:environment:output:)``).
    private func run(_ tool: String, _ arguments: [String]) throws {
        let executable = binDirectory + "/" + tool
        let output = directory + "/\(tool).out"
        let argv = runAs.map { ["/usr/sbin/runuser", "-u", $0, "--", executable] } ?? [executable]
        let status = try runHoldingNoDescriptorOfOurs(argv + arguments, environment: Self.environment, output: output)
        guard status == 0 else {
            let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
            throw ChildProcessError(description: "\(tool) \(arguments.last ?? "") failed (\(status)): \(text)")
        }
    }

    private static let environment = ["PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "LANG": "C"]

    /// Stops the server and removes the directory once this process is gone, however it ends.
    private func startWatchdog() throws {
        let stop = [runAs.map { "/usr/sbin/runuser -u \($0) -- " } ?? "", binDirectory, "/pg_ctl -D '\(directory)/data' -m immediate stop"].joined()
        let script = "while kill -0 \(getpid()) 2>/dev/null; do sleep 1; done; \(stop) >/dev/null 2>&1; rm -rf '\(directory)'"
        let watchdog = Process()
        watchdog.executableURL = URL(fileURLWithPath: "/bin/sh")
        watchdog.arguments = ["-c", script]
        watchdog.standardInput = FileHandle.nullDevice
        watchdog.standardOutput = FileHandle.nullDevice
        watchdog.standardError = FileHandle.nullDevice
        try watchdog.run()
    }

    private static func findBinaries() throws -> String {
        if let result = try? runChildProcess("/usr/bin/pg_config", arguments: ["--bindir"], environment: environment), result.status == 0 {
            let dir = String(decoding: result.stdout, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            if FileManager.default.isExecutableFile(atPath: dir + "/initdb") { return dir }
        }
        let root = "/usr/lib/postgresql"
        let versions = ((try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []).compactMap(Int.init).sorted()
        for version in versions.reversed() where FileManager.default.isExecutableFile(atPath: "\(root)/\(version)/bin/initdb") {
            return "\(root)/\(version)/bin"
        }
        throw ChildProcessError(description: "no initdb under \(root)/*/bin (scripts/install-deps installs postgresql)")
    }

    /// A port of 127.0.0.1 free now (the kernel picks it; the server binds it right after).
    private static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw ChildProcessError(description: "socket: \(errno)") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard bound else { throw ChildProcessError(description: "bind 127.0.0.1:0: \(errno)") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}

/// The storage backends the storage and handler suites run against.
public enum StoreBackend: String, CaseIterable, Sendable, CustomStringConvertible {
    case sqlite, postgres

    public var description: String { rawValue }

    /// The backend the handler and payment suites run on: `BADGE_TEST_STORE` (`sqlite`, the
    /// default, or `postgres`); `scripts/test` runs those suites once on each.
    public static let underTest: StoreBackend = {
        let name = ProcessInfo.processInfo.environment["BADGE_TEST_STORE"] ?? "sqlite"
        guard let backend = StoreBackend(rawValue: name) else { fatalError("BADGE_TEST_STORE=\(name): expected sqlite or postgres") }
        return backend
    }()

    /// A fresh, empty database of this backend (a file in `directory`, or a database in the
    /// test cluster), which ``TestDatabase/open()`` opens as often as a test needs.
    public func makeDatabase(in directory: TemporaryDirectory) throws -> TestDatabase {
        switch self {
        case .sqlite: return .sqlite(path: directory.file("badges.sqlite"))
        case .postgres: return .postgres(try PostgresCluster.shared.makeDatabase())
        }
    }

    /// A store on a fresh, empty database of this backend.
    public func makeStore(in directory: TemporaryDirectory) throws -> any BadgeStore {
        try makeDatabase(in: directory).open()
    }
}

/// A database a test made, opened as a new store (a new handle on it) by each ``open()``.
public enum TestDatabase: Sendable {
    case sqlite(path: String)
    case postgres(PostgresSettings)

    public func open() throws -> any BadgeStore {
        switch self {
        case .sqlite(let path): return try SQLiteBadgeStore(path: path)
        case .postgres(let settings): return try PostgresBadgeStore(settings: settings)
        }
    }
}
