import CSpawn
import Glibc

/// Runs `argv` to its end with exactly `environment`, standard input from /dev/null and both
/// outputs to the file `output`; returns its exit status (128 + the signal when killed).
///
/// The child holds no other descriptor of this process, so nothing it leaves running (the server
/// `pg_ctl start` daemonizes) keeps one of our pipes open. Foundation's pipes are not
/// close-on-exec: a server started while another test's fake ran once kept the write end of the
/// fake's standard input, and that test waited for the fake (which ends when its input closes)
/// until the fake's own 40-minute lifetime ran out. Spawned and waited for directly
/// (posix_spawn, waitpid), so no Foundation run loop or pipe takes part.
public func runHoldingNoDescriptorOfOurs(_ argv: [String], environment: [String: String], output: String) throws -> Int32 {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    let closing = badge_spawn_close_from(&actions, 3)
    guard closing == 0 else { throw ChildProcessError(description: "posix_spawn close-from: errno \(closing)") }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    posix_spawn_file_actions_adddup2(&actions, 1, 2)
    let cArgs = argv.map { strdup($0) } + [nil]
    let cEnv = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer { (cArgs + cEnv).forEach { free($0) } }
    var pid: pid_t = 0
    let rc = posix_spawn(&pid, argv[0], &actions, nil, cArgs, cEnv)
    guard rc == 0 else { throw ChildProcessError(description: "cannot run \(argv[0]): errno \(rc)") }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 {
        guard errno == EINTR else { throw ChildProcessError(description: "waitpid \(argv[0]): errno \(errno)") }
    }
    // WIFEXITED / WEXITSTATUS, which Swift does not import.
    return (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
}
