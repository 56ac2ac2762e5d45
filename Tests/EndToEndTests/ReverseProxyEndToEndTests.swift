import BadgeCore
import Crypto
import Foundation
import Glibc
import JSON
import RequestAuth
import Testing
import TestSupport

/// Debian's nginx in front of the release binary with the documented configuration
/// (contrib/nginx/badge-service.conf, TLS lines aside): clients on 127.0.0.2 and 127.0.0.3
/// reach the service only through nginx, which names them in `X-Forwarded-For`.
@Suite(.serialized) struct ReverseProxyEndToEndTests {
    /// nginx run as the current user from a temporary prefix, in the foreground, stopped on deinit.
    final class Nginx {
        let directory = TemporaryDirectory("nginx")
        let process = Process()
        let port: Int

        init(upstreamPort: Int) throws {
            let documented = try String(contentsOf: Repository.root.appendingPathComponent("contrib/nginx/badge-service.conf"), encoding: .utf8)
            port = try Self.freePort()
            // The documented server, on a loopback port without TLS (the test has no certificate).
            var server: [String] = []
            for line in documented.split(separator: "\n", omittingEmptySubsequences: false) {
                let trimmed = line.trimmingCharacters(in: .whitespaces)
                if trimmed.hasPrefix("#") || trimmed.hasPrefix("ssl_") || trimmed.hasPrefix("listen ") { continue }
                if trimmed == "server 127.0.0.1:8080;" {
                    server.append("    server 127.0.0.1:\(upstreamPort);")
                } else if trimmed.hasPrefix("server_name ") {
                    server.append("    listen 127.0.0.1:\(port);")
                    server.append(String(line))
                } else {
                    server.append(String(line))
                }
            }
            let root = directory.path
            // As root, nginx would hand its workers to `nobody`: keep them the current user.
            let user = geteuid() == 0 ? "user root;\n" : ""
            let configuration = """
                \(user)daemon off;
                master_process off;
                worker_processes 1;
                pid \(root)/nginx.pid;
                error_log \(root)/error.log warn;
                events { worker_connections 128; }
                http {
                    access_log off;
                    client_body_temp_path \(root)/body;
                    proxy_temp_path \(root)/proxy;
                    fastcgi_temp_path \(root)/fastcgi;
                    uwsgi_temp_path \(root)/uwsgi;
                    scgi_temp_path \(root)/scgi;
                \(server.joined(separator: "\n"))
                }
                """
            try configuration.write(toFile: directory.file("nginx.conf"), atomically: true, encoding: .utf8)
            guard let nginx = ["/usr/sbin/nginx", "/usr/bin/nginx"].first(where: FileManager.default.isExecutableFile) else {
                throw ServiceProcess.Failure("no nginx: scripts/install-deps installs Debian's")
            }
            process.executableURL = URL(fileURLWithPath: nginx)
            process.arguments = ["-p", root, "-e", directory.file("error.log"), "-c", directory.file("nginx.conf")]
            process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: {
                _ = FileManager.default.createFile(atPath: directory.file("nginx.err"), contents: nil)
                return directory.file("nginx.err")
            }()))
            try process.run()
            let deadline = Date().addingTimeInterval(15)
            while (try? RawSocket(port: port)) == nil {
                guard process.isRunning, Date() < deadline else {
                    let log = (try? String(contentsOfFile: directory.file("error.log"), encoding: .utf8)) ?? ""
                    throw ServiceProcess.Failure("nginx did not start: \(log)")
                }
                usleep(50_000)
            }
        }

        deinit {
            // SIGKILL: nginx keeps the signal mask it inherits, and the test runner's blocks SIGTERM and SIGQUIT.
            if process.isRunning {
                kill(process.processIdentifier, SIGKILL)
                process.waitUntilExit()
            }
        }

        /// A port nothing listens on now.
        static func freePort() throws -> Int {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            defer { close(fd) }
            var address = RawSocket.address("127.0.0.1", port: 0)
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard bound == 0 else { throw ServiceProcess.Failure("bind: \(String(cString: strerror(errno)))") }
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            getsockname(fd, withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { $0 } }, &length)
            return Int(UInt16(bigEndian: address.sin_port))
        }
    }

    /// A signed `redeemBadgeCode` of `code` by a new key, sent through nginx from `source`.
    static func redeem(_ code: String, through nginx: Nginx, from source: String) throws -> String {
        let key = Ed25519PrivateKey()
        let authority = "127.0.0.1:\(nginx.port)"
        let body = JSONValue.object(["version": 1, "purchaseKey": .string(key.publicKey.purchaseKeyText),
                                     "request": ["type": "redeemBadgeCode", "masterKey": .string(Base64URL.encode(SecureRandom.bytes(32))),
                                                 "code": .string(code)]]).serialized()
        let signed = try RequestSigner(key: key).sign(method: "POST", authority: authority, path: "/rpc", body: body,
                                                      created: Timestamp(seconds: Int64(Date().timeIntervalSince1970)))
        let fields = signed.fields.map { "\($0.name): \($0.value)\r\n" }.joined()
        let socket = try RawSocket(port: nginx.port, source: source, receiveTimeout: 30)
        // A client's own X-Forwarded-For is replaced by nginx: it cannot pose as another client.
        socket.send("POST /rpc HTTP/1.1\r\nHost: \(authority)\r\nContent-Type: application/json\r\nX-Forwarded-For: 127.0.0.9\r\n\(fields)"
                    + "Content-Length: \(body.count)\r\nConnection: close\r\n\r\n")
        socket.send(body)
        return socket.receive()
    }

    /// 30 wrong codes from 127.0.0.2, then a valid code from 127.0.0.3; what each got.
    static func lockoutThenAnotherClientsRedemption(trustedProxies: String?) throws -> (lockedOut: String, other: String, service: ServiceProcess) {
        var environment: [String: String] = [:]
        if let trustedProxies { environment["BADGE_SERVICE_SERVER_TRUSTED_PROXIES"] = trustedProxies }
        let service = try ServiceProcess(environment: environment)
        let created = try service.cli(["codes", "create", "--type", "supporter", "--months", "1"])
        let code = created.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(created.status == 0 && code.hasPrefix("SB-"), "\(created.stderr)")
        let nginx = try Nginx(upstreamPort: service.port)
        for attempt in 0..<30 {
            let reply = try redeem("SB-0C0QS-XAQW1-N1VSA-R00Y3", through: nginx, from: "127.0.0.2")
            guard RawSocket.status(reply) == 422, reply.contains("\"code_invalid\"") else {
                Issue.record("wrong code \(attempt + 1): \(reply)")
                break
            }
        }
        let lockedOut = try redeem("SB-0C0QS-XAQW1-N1VSA-R00Y3", through: nginx, from: "127.0.0.2")
        let other = try redeem(code, through: nginx, from: "127.0.0.3")
        return (lockedOut, other, service)
    }

    @Test func oneClientsLockoutLeavesAnothersRedemptionWorking() throws {
        let (lockedOut, other, service) = try Self.lockoutThenAnotherClientsRedemption(trustedProxies: "127.0.0.1")
        #expect(RawSocket.status(lockedOut) == 429 && lockedOut.contains("\"rate_limited\""), "\(lockedOut)")
        #expect(RawSocket.status(other) == 200 && other.contains("\"credential\""), "\(other)")
        // The access log names no client: neither the peers nor what nginx forwarded.
        let log = service.accessLog
        #expect(log.components(separatedBy: "\"path\":\"/rpc\"").count - 1 == 32, "\(log.prefix(400))")
        for address in ["127.0.0.1", "127.0.0.2", "127.0.0.3", "127.0.0.9"] { #expect(!log.contains(address), "\(address) logged") }
        #expect(service.stop() == 0)
    }

    /// The same run without `trusted_proxies`: everyone is nginx, and one client's lockout is everyone's.
    @Test func withoutTrustedProxiesTheLockoutHitsEveryone() throws {
        let (lockedOut, other, service) = try Self.lockoutThenAnotherClientsRedemption(trustedProxies: nil)
        #expect(RawSocket.status(lockedOut) == 429, "\(lockedOut)")
        #expect(RawSocket.status(other) == 429 && other.contains("\"rate_limited\""), "\(other)")
        #expect(service.stop() == 0)
    }
}
