import Foundation
import Glibc
import TestSupport
import Testing

/// Issue 7, item 13: the client on an IPv6 server, its errors on standard error, tried on the
/// real binary.
extension OperationsTests {
    /// The client reaches a server on the IPv6 loopback by its bracketed literal. A machine with
    /// IPv6 off (containers often have no `::1`) runs the same exchange on 127.0.0.1 and says so;
    /// ServerURLTests read the brackets either way.
    @Test func theClientReachesAServerOnTheIPv6Loopback() throws {
        let host = Self.hasIPv6Loopback() ? "[::1]" : "127.0.0.1"
        if host != "[::1]" { print("note: no IPv6 loopback on this machine; the client is tried on 127.0.0.1 instead") }
        let service = try ServiceProcess(data: dir, listen: "\(host):0")
        #expect(service.url.hasPrefix("http://\(host):"))
        let code = try service.cli(["codes", "create", "--type", "supporter", "--months", "2"]).stdout
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let codeFile = dir.file("code.txt")
        try Data(code.utf8).write(to: URL(fileURLWithPath: codeFile))
        let redeemed = try CLIResult.run(["client", "--server", service.url, "--key-file", dir.file("k.json"), "redeem", codeFile], in: dir.url)
        #expect(redeemed.status == 0, "\(redeemed.stderr)")
        #expect(redeemed.stdout.contains("\"credential\""), "\(redeemed.stdout)")
        // a base path with a trailing slash, and the signed catalog (the signature covers [::1]:PORT)
        let catalog = try CLIResult.run(["client", "--server", service.url + "/", "--key-file", dir.file("k.json"), "catalog", "--signed"],
                                        in: dir.url)
        #expect(catalog.status == 0, "\(catalog.stderr)")
        #expect(catalog.stdout.contains("\"badgeStatement\""), "\(catalog.stdout)")
        // protocol errors on standard error with exit status 1, the variable naming the server
        let reused = try CLIResult.run(["client", "--key-file", dir.file("other.json"), "redeem", codeFile], in: dir.url,
                                       environment: ["BADGE_SERVICE_SERVER": service.url])
        #expect(reused.status == 1 && reused.stdout.isEmpty, "\(reused.stdout)")
        #expect(reused.stderr.split(separator: "\n").count == 1 && reused.stderr.contains("code_used"), "\(reused.stderr)")
        #expect(service.stop() == 0)

        // nothing listening any more: one line, exit 1
        let gone = try CLIResult.run(["client", "--server", service.url, "--key-file", dir.file("k.json"), "catalog"], in: dir.url)
        #expect(gone.status == 1 && gone.stderr.split(separator: "\n").count == 1, "\(gone.stderr)")
        #expect(gone.stderr.contains("cannot reach \(service.url)/rpc: Connection refused"), "\(gone.stderr)")
        // an unbracketed IPv6 address or another scheme is a usage error naming where it came from
        for (server, named) in [("http://::1:8080", "--server"), ("ftp://127.0.0.1", "--server")] {
            let bad = try CLIResult.run(["client", "--server", server, "--key-file", dir.file("k.json"), "catalog"], in: dir.url)
            #expect(bad.status == 2 && bad.stderr.contains("\(named) \(server): "), "\(bad.stderr)")
        }
        // its key file: one line naming the path and the reason
        let noDirectory = dir.file("missing/k.json")
        let unwritable = try CLIResult.run(["client", "--key-file", noDirectory, "show"], in: dir.url)
        #expect(unwritable.status == 1 && unwritable.stderr
            == "badge-service: client key file: cannot write \(noDirectory).tmp: No such file or directory\n", "\(unwritable.stderr)")
        let unreadable = try CLIResult.run(["client", "--key-file", dir.path, "show"], in: dir.url)
        #expect(unreadable.status == 1 && unreadable.stderr
            == "badge-service: client key file: cannot read \(dir.path): is a directory\n", "\(unreadable.stderr)")
        let fromVariable = try CLIResult.run(["client", "--key-file", dir.file("k.json"), "catalog"], in: dir.url,
                                             environment: ["BADGE_SERVICE_SERVER": "http://[::1"])
        #expect(fromVariable.status == 2 && fromVariable.stderr.contains("BADGE_SERVICE_SERVER http://[::1: missing ]"),
                "\(fromVariable.stderr)")
    }

    /// Whether a socket can bind `::1` (the IPv6 loopback exists and IPv6 is on).
    static func hasIPv6Loopback() -> Bool {
        let fd = socket(AF_INET6, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_in6()
        address.sin6_family = sa_family_t(AF_INET6)
        address.sin6_addr = in6addr_loopback
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) }
        } == 0
    }
}

extension OperationsTests {
    /// A misused client exits 2 before its key file is read or made: trying a command must not
    /// leave a purchase key behind.
    @Test(arguments: [["bogus"], ["redeem"], ["send"], ["send", #"{"type":"pauseBadge"}"#], ["show", "extra"], ["catalog", "--bogus"], ["issue", "x"]])
    func aMisusedClientCreatesNoKeyFile(_ arguments: [String]) throws {
        let keyFile = dir.file("badge-client.json")
        let r = try CLIResult.run(["client", "--server", "http://127.0.0.1:1"] + arguments, in: dir.url)
        #expect(r.status == 2, "\(arguments): \(r.stderr)")
        #expect(r.stderr.split(separator: "\n").count == 1, "\(arguments): \(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: keyFile), "\(arguments)")
    }
}
