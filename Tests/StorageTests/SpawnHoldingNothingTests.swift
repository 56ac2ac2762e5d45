import Foundation
import Glibc
import TestSupport
import Testing

/// The PostgreSQL harness starts its server through ``runHoldingNoDescriptorOfOurs(_:environment:output:)``:
/// what the child leaves running must not keep a pipe of another test open.
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

    @Test func theExitStatusAndTheOutputComeBack() throws {
        let files = TemporaryDirectory("spawn")
        let status = try runHoldingNoDescriptorOfOurs(["/bin/sh", "-c", "echo out; echo err >&2; exit 7"],
                                                      environment: ["PATH": "/usr/bin:/bin"], output: files.file("out"))
        #expect(status == 7)
        #expect(try String(contentsOfFile: files.file("out"), encoding: .utf8) == "out\nerr\n")
    }
}
