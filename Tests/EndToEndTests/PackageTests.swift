import Foundation
import Glibc
import TestSupport
import Testing

/// The Debian package `scripts/package` builds (README, Installing), tested as a host without the
/// Swift toolchain gets it: extracted, and run in a mount namespace where an empty directory
/// hides the toolchain. `scripts/test` runs `scripts/package` first; a missing package fails.
@Suite(.timeLimit(.minutes(5))) struct PackageTests {
    let dir = TemporaryDirectory("package")

    static let releaseBinary = Repository.root.appendingPathComponent(".build/release/badge-service").path
    static let units = ["badge-service.service", "badge-service-backup.service", "badge-service-backup.timer"]
    static let expectedFiles = ["./etc/badge-service/badge-service.ini"] + units.map { "./lib/systemd/system/\($0)" } + [
                                "./usr/bin/badge-service", "./usr/share/doc/badge-service/LICENSE",
                                "./usr/share/doc/badge-service/README.md"]

    /// dist/badge-service_<version>_<arch>.deb for the version the release binary reports.
    static func package() throws -> String {
        let version = try CLIResult.run(["--version"], executable: releaseBinary).stdout
            .trimmingCharacters(in: .whitespacesAndNewlines).replacingOccurrences(of: "badge-service ", with: "")
        let arch = try tool("/usr/bin/dpkg", ["--print-architecture"]).trimmingCharacters(in: .whitespacesAndNewlines)
        let deb = "dist/badge-service_\(version)_\(arch).deb"
        guard FileManager.default.fileExists(atPath: Repository.root.appendingPathComponent(deb).path) else {
            throw ServiceProcess.Failure("no \(deb): run scripts/package")
        }
        return Repository.root.appendingPathComponent(deb).path
    }

    /// The toolchain directory the tests themselves load the Swift runtime from (/opt/swift here
    /// and in CI): the prefix of libswiftCore.so's path in this process's mappings.
    static func toolchain() throws -> String {
        // read to its end: String(contentsOfFile:) stops at the first page of a /proc file
        guard let file = FileHandle(forReadingAtPath: "/proc/self/maps") else { throw ServiceProcess.Failure("cannot read /proc/self/maps") }
        let maps = String(decoding: file.readDataToEndOfFile(), as: UTF8.self)
        guard let line = maps.split(separator: "\n").first(where: { $0.hasSuffix("/libswiftCore.so") }),
              let path = line.split(separator: " ").last, let cut = path.range(of: "/usr/lib/swift") else {
            throw ServiceProcess.Failure("this test process loads no libswiftCore.so: cannot tell where the toolchain is")
        }
        return String(path[..<cut.lowerBound])
    }

    /// A tool's standard output; a failure throws with its standard error.
    static func tool(_ executable: String, _ arguments: [String]) throws -> String {
        let result = try CLIResult.run(arguments, executable: executable)
        guard result.status == 0 else { throw ServiceProcess.Failure("\(executable) \(arguments): \(result.stderr)") }
        return result.stdout
    }

    /// The program and arguments that run a command in a new mount namespace whose toolchain
    /// directory is an empty one (unshare execs the shell, which execs the command: one process).
    func withoutToolchain() throws -> [String] {
        let empty = dir.file("empty")
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: true)
        return ["/usr/bin/unshare", "--mount", "--propagation", "private", "/bin/sh", "-c",
                "mount --bind \"$1\" \"$2\" && shift 2 && exec \"$@\"", "sh", empty, try Self.toolchain()]
    }

    func runWithoutToolchain(_ command: [String]) throws -> CLIResult {
        let launcher = try withoutToolchain()
        return try CLIResult.run(Array(launcher.dropFirst()) + command, in: dir.url, executable: launcher[0])
    }

    /// The package extracted as `dpkg -i` would lay it out, under `root`.
    func extract() throws -> String {
        let root = dir.file("root")
        _ = try Self.tool("/usr/bin/dpkg-deb", ["-x", try Self.package(), root])
        return root
    }

    /// Depends' package names (alternatives included, versions and architecture qualifiers dropped).
    static func dependencyNames(_ depends: String) -> Set<String> {
        Set(depends.split(whereSeparator: { $0 == "," || $0 == "|" }).map {
            String($0.trimmingCharacters(in: .whitespaces).prefix { $0 != " " && $0 != "(" && $0 != ":" })
        })
    }

    @Test func theControlFileAndContentsAreAPackage() throws {
        let deb = try Self.package()
        func field(_ name: String) throws -> String {
            try Self.tool("/usr/bin/dpkg-deb", ["--field", deb, name]).trimmingCharacters(in: .whitespacesAndNewlines)
        }
        let version = try CLIResult.run(["--version"], executable: Self.releaseBinary).stdout
        #expect(try field("Package") == "badge-service")
        #expect(try "badge-service \(field("Version"))\n" == version)
        #expect(try field("Architecture") == Self.tool("/usr/bin/dpkg", ["--print-architecture"]).trimmingCharacters(in: .newlines))
        #expect(try field("Maintainer").contains("<") && field("Description").hasPrefix("sells and issues SimpleX Chat"))
        let depends = try field("Depends")
        let names = Self.dependencyNames(depends)
        #expect(names.isSuperset(of: ["libc6", "libssl3", "libsqlite3-0", "libpq5"]), "\(depends)")
        #expect(!names.contains { $0.hasSuffix("-dev") } && !depends.contains("swift") && !depends.contains("/"), "\(depends)")
        let contents = try Self.tool("/usr/bin/dpkg-deb", ["--contents", deb]).split(separator: "\n").map { $0.split(separator: " ", omittingEmptySubsequences: true) }
        let files = contents.filter { $0[0].hasPrefix("-") }
        #expect(files.map { String($0[5]) }.sorted() == Self.expectedFiles.sorted())
        #expect(contents.allSatisfy { $0[1] == "root/root" })
        #expect(files.allSatisfy { $0[0] == ($0[5] == "./usr/bin/badge-service" ? "-rwxr-xr-x" : "-rw-r--r--") })
        let binarySize = try #require(files.first { $0[5] == "./usr/bin/badge-service" }.flatMap { Int($0[2]) })
        let installedSize = try #require(Int(try field("Installed-Size")))
        #expect(installedSize >= binarySize / 1024 && installedSize < binarySize / 1024 + 1024)

        // the control archive: the conffile, and no maintainer script
        let control = dir.file("control")
        _ = try Self.tool("/usr/bin/dpkg-deb", ["--control", deb, control])
        #expect(try FileManager.default.contentsOfDirectory(atPath: control).sorted() == ["conffiles", "control"])
        #expect(try String(contentsOfFile: control + "/conffiles", encoding: .utf8) == "/etc/badge-service/badge-service.ini\n")
    }

    /// Every library the packaged binary names is a system library the package depends on, none
    /// is the Swift runtime, and the binary carries no search path into the toolchain.
    @Test func everyNeededLibraryIsADependency() throws {
        let root = try extract()
        let binary = root + "/usr/bin/badge-service"
        let dynamic = try Self.tool("/usr/bin/readelf", ["-d", binary])
        let toolchain = try Self.toolchain()
        #expect(!dynamic.contains("RUNPATH") && !dynamic.contains("RPATH") && !dynamic.contains(toolchain), "\(dynamic)")
        let needed = dynamic.split(separator: "\n").filter { $0.contains("(NEEDED)") }.compactMap { line -> String? in
            guard let open = line.firstIndex(of: "["), let close = line.lastIndex(of: "]") else { return nil }
            return String(line[line.index(after: open)..<close])
        }
        #expect(needed.contains("libssl.so.3") && needed.contains("libsqlite3.so.0") && needed.contains("libpq.so.5"), "\(needed)")
        #expect(!needed.contains { $0.contains("swift") || $0.contains("Foundation") || $0.contains("dispatch") }, "\(needed)")

        // where the loader finds each one on a host without the toolchain, and its package
        let ldd = try runWithoutToolchain(["/usr/bin/ldd", binary])
        #expect(ldd.status == 0 && !ldd.stdout.contains("not found") && !ldd.stdout.contains("swift"), "\(ldd.stdout)\(ldd.stderr)")
        let depends = Self.dependencyNames(try Self.tool("/usr/bin/dpkg-deb", ["--field", try Self.package(), "Depends"])
            .trimmingCharacters(in: .whitespacesAndNewlines))
        for soname in needed {
            let line = try #require(ldd.stdout.split(separator: "\n").first { $0.contains(soname) }, "ldd does not list \(soname)")
            let path = try #require(line.split(whereSeparator: \.isWhitespace).first { $0.hasPrefix("/") }.map(String.init), "\(line)")
            let candidates = [path, URL(fileURLWithPath: path).resolvingSymlinksInPath().path,
                              path.hasPrefix("/usr/") ? String(path.dropFirst(4)) : "/usr" + path]
            let owner = candidates.lazy.compactMap { try? Self.tool("/usr/bin/dpkg-query", ["-S", $0]) }.first
            let package = try #require(owner.map { String($0.prefix { $0 != ":" && $0 != "," }) }, "no package owns \(path)")
            #expect(depends.contains(package), "\(soname) (\(path)) is in \(package), which Depends does not name: \(depends.sorted())")
        }
    }

    /// The packaged units (the service, the backup service and its timer) are contrib's with the
    /// package's paths and verify together; their documentation is in the package; the example
    /// configuration passes `config check`.
    @Test func theUnitsAndTheConfigurationAreThePackagesOwn() throws {
        let root = try extract()
        func body(_ unit: String) -> String { String(unit[unit.range(of: "\n[Unit]\n")!.lowerBound...]) }
        var copies: [String] = []
        for name in Self.units {
            let contrib = try String(contentsOf: Repository.root.appendingPathComponent("contrib/\(name)"), encoding: .utf8)
            let packaged = try String(contentsOfFile: root + "/lib/systemd/system/\(name)", encoding: .utf8)
            #expect(body(packaged) == body(contrib).replacingOccurrences(of: "/usr/local/", with: "/usr/"), "\(name)")
            #expect(!packaged.contains("/usr/local/"), "\(name)")
            let lines = packaged.split(separator: "\n")
            let documentation = try #require(lines.first { $0.hasPrefix("Documentation=file://") }).dropFirst("Documentation=file://".count)
            #expect(FileManager.default.fileExists(atPath: root + documentation), "\(name): \(documentation)")
            // systemd-analyze verify needs the programs a unit runs to exist: the extracted binary
            let copy = dir.file(name)
            try packaged.replacingOccurrences(of: "/usr/bin/badge-service", with: "\(root)/usr/bin/badge-service")
                .write(toFile: copy, atomically: true, encoding: .utf8)
            copies.append(copy)
        }
        let service = try String(contentsOfFile: root + "/lib/systemd/system/badge-service.service", encoding: .utf8).split(separator: "\n")
        #expect(service.contains("ExecStart=/usr/bin/badge-service serve --config /etc/badge-service/badge-service.ini --data /var/lib/badge-service"))
        #expect(service.contains("DynamicUser=yes") && service.contains("StateDirectory=badge-service"))
        let backup = try String(contentsOfFile: root + "/lib/systemd/system/badge-service-backup.service", encoding: .utf8)
        #expect(backup.contains("exec /usr/bin/badge-service backup --config /etc/badge-service/badge-service.ini"), "\(backup)")
        let verified = try CLIResult.run(["verify", "--man=no"] + copies, in: dir.url, executable: "/usr/bin/systemd-analyze")
        #expect(verified.status == 0 && verified.stderr.isEmpty && verified.stdout.isEmpty, "\(verified.stderr)\(verified.stdout)")

        // the conffile is valid as shipped (mode 0644: it would be refused if it set a secret)
        let ini = root + "/etc/badge-service/badge-service.ini"
        let checked = try runWithoutToolchain([root + "/usr/bin/badge-service", "config", "check", "--config", ini])
        #expect(checked.status == 0, "\(checked.stderr)")
        #expect(checked.stdout.contains("[server] listen = 127.0.0.1:8080") && checked.stdout.contains("badge-service.ini:"), "\(checked.stdout)")
    }

    /// With the toolchain hidden, the packaged binary prints its version, makes a data directory,
    /// serves /healthz and stops cleanly on SIGTERM; the toolchain-linked debug binary cannot start there.
    @Test func theBinaryRunsWithoutTheToolchain() throws {
        let root = try extract()
        let binary = root + "/usr/bin/badge-service"

        // the namespace does hide the runtime: a binary linked against the toolchain's fails
        let dynamic = try runWithoutToolchain([ServiceProcess.executable, "--version"])
        #expect(dynamic.status == 127 && dynamic.stderr.contains(": cannot open shared object file"), "\(dynamic.stderr)")
        #expect(dynamic.stderr.contains("error while loading shared libraries: libswift"), "\(dynamic.stderr)")

        let version = try runWithoutToolchain([binary, "--version"])
        #expect(version.status == 0, "\(version.stderr)")
        #expect(try version.stdout == "badge-service \(Self.tool("/usr/bin/dpkg-deb", ["--field", try Self.package(), "Version"]))")

        let data = TemporaryDirectory("package-serve")
        let initialised = try runWithoutToolchain([binary, "init", "--data", data.file("badge-data")])
        #expect(initialised.status == 0, "\(initialised.stderr)")
        #expect(FileManager.default.fileExists(atPath: data.file("badge-data/issuer-keys.json")))

        let service = try ServiceProcess(data: data, executable: binary, launcher: try withoutToolchain())
        let health = try HTTP.request("GET", service.url + "/healthz")
        #expect(health.status == 200, "\(health.text)")
        #expect(service.stop() == 0, "\(service.stderr)")
        #expect(service.stderr.contains("listening on http://127.0.0.1:"))
    }
}
