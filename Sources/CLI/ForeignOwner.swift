import Glibc

/// A command run as another user than the one owning the data it would write: the refusal's
/// line names both and the ways to run the command as the owner.
struct ForeignOwner: CustomStringConvertible {
    let what: String
    let path: String
    let owner: uid_t
    let runner: uid_t

    var description: String {
        let ownerName = Self.userName(owner)
        let runnerNamed = Self.userName(runner).map { "\($0) (uid \(runner))" } ?? "uid \(runner)"
        // A dynamic user's name resolves only while its unit runs: sudo takes "#UID" then.
        let ways = ownerName.map { "sudo -u \($0) badge-service …, runuser -u \($0) -- badge-service …" } ?? "sudo -u '#\(owner)' badge-service …"
        return "\(what) \(path) belongs to \(ownerName.map { "user \($0) (uid \(owner))" } ?? "uid \(owner)"), but this command runs as "
            + "\(runnerNamed): files it made there would not be the service's to open; run it as the owner: \(ways), or beside "
            + "a DynamicUser= unit systemd-run --pty --wait -p DynamicUser=yes -p User=badge-service -p StateDirectory=badge-service "
            + "badge-service … (README, Operations)"
    }

    static func userName(_ uid: uid_t) -> String? {
        guard let entry = getpwuid(uid), let name = entry.pointee.pw_name else { return nil }
        return String(cString: name)
    }
}
