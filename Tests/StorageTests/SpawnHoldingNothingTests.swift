import Foundation
import Glibc
import Locking
import TestSupport
import Testing

/// The PostgreSQL harness starts its server through ``runHoldingNoDescriptorOfOurs(_:environment:output:)``:
/// what the child leaves running must not keep a pipe of another test open. And a fake that does
/// not exit when its input closes does not hold up the test that releases it.
@Suite struct SpawnHoldingNothingTests {
    @Test func aProcessLeftRunningHoldsNoPipeOfOurs() throws {
        // A reader that ends at the end of its input, as the Python fakes do.
        let reader = Process()
        reader.executableURL = URL(fileURLWithPath: "/bin/cat")
        let input = Pipe()
        reader.standardInput = input
        reader.standardOutput = FileHandle.nullDevice
        try reader.run()
        defer { if reader.isRunning { kill(reader.processIdentifier, SIGKILL) } }

        // sh leaves a sleeper running and exits, as `pg_ctl start` leaves the server.
        let files = TemporaryDirectory("spawn")
        let status = try runHoldingNoDescriptorOfOurs(["/bin/sh", "-c", "sleep 120 & echo $! > '\(files.file("pid"))'"],
                                                      environment: ["PATH": "/usr/bin:/bin"], output: files.file("out"))
        #expect(status == 0)
        let sleeper = try String(contentsOfFile: files.file("pid"), encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        defer { if let pid = pid_t(sleeper) { kill(pid, SIGKILL) } }
        #expect(kill(try #require(pid_t(sleeper)), 0) == 0, "the sleeper runs")

        try input.fileHandleForWriting.close()
        #expect(waitUntil(timeout: .seconds(30)) { !reader.isRunning }, "the reader saw the end of its input while the sleeper ran")
    }

    /// A fake that does not exit when its input closes (stopped here; in the incident, a child
    /// held its input) is killed 10 s after its release instead of blocking the test.
    @Test func aFakeThatDoesNotExitIsKilledOnRelease() throws {
        var fake: PeerServer? = try PeerServer(script: "fake_payments.py", arguments: ["sk_test_x", "btcpay-x", "Store"])
        let (port, pid) = (try #require(fake?.port), try #require(fake?.processIdentifier))
        kill(pid, SIGSTOP)
        // Without the bound the release would wait forever: the fake resumes after 60 s, so the
        // test fails instead of hanging.
        let released = LockedValueBox(false)
        Thread {
            sleep(60)
            if !released.withLock({ $0 }) { kill(pid, SIGCONT) }
        }.start()
        let start = ContinuousClock.now
        fake = nil
        released.withLock { $0 = true }
        #expect(ContinuousClock.now - start < .seconds(50), "released within the bound")
        #expect(!accepts(port: port), "the fake no longer listens")
    }

    private func accepts(port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }

    @Test func theExitStatusAndTheOutputComeBack() throws {
        let files = TemporaryDirectory("spawn")
        let status = try runHoldingNoDescriptorOfOurs(["/bin/sh", "-c", "echo out; echo err >&2; exit 7"],
                                                      environment: ["PATH": "/usr/bin:/bin"], output: files.file("out"))
        #expect(status == 7)
        #expect(try String(contentsOfFile: files.file("out"), encoding: .utf8) == "out\nerr\n")
    }
}
