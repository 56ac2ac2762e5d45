import BadgeCore
import Credentials
import Foundation
import Glibc
import Handlers
import Locking
import Storage

/// What SIGHUP does, and what a changed issuer key file does without a signal (README,
/// Operations, Key rotation): reads the key file and the catalog again, checked as at start,
/// and switches to both only when both check out. A reload that fails keeps what the service
/// was using. Each reload is one log line; reloads never overlap.
public final class ServiceReloader: Sendable {
    /// A reload's result, as its log line says it.
    public enum Outcome: Equatable, Sendable {
        case reloaded(String)
        case failed(String)
    }

    public let keyFile: String
    private let issuer: KeyringIssuer
    private let service: BadgeService
    private let store: any OperatedStore
    /// Runs reloads one at a time, whichever thread asks.
    private let queue = DispatchQueue(label: "service-reload")
    /// The key file as the last reload (or the start) saw it.
    private let seen: LockedValueBox<FileSignature?>
    private let watching = LockedValueBox(false)
    /// The last reload's failure line until a reload succeeds, and how many failed in all.
    private let failure = LockedValueBox<(last: String?, count: Int)>((nil, 0))

    /// `issuer` holds the keys the service started with, read from `keyFile`.
    /// `store` records each index's public key (``IssuerKeyFile/refuseIfChangedSinceRecorded(_:path:store:)``).
    public init(keyFile: String, issuer: KeyringIssuer, service: BadgeService, store: any OperatedStore) {
        self.keyFile = keyFile
        self.issuer = issuer
        self.service = service
        self.store = store
        seen = LockedValueBox(FileSignature(path: keyFile))
    }

    /// Reloads now and logs the outcome; `trigger` says why ("SIGHUP").
    public func reloadAndLog(trigger: String) {
        switch queue.sync(execute: { reload(trigger: trigger) }) {
        case .reloaded(let line): ServiceLog.info(line)
        case .failed(let line): ServiceLog.error(line)
        }
    }

    /// Looks at the key file every `interval` seconds on a thread of its own and reloads when it
    /// was replaced or rewritten (`issuer add`, `issuer activate`), until ``stopWatching()``.
    public func watchKeyFile(every interval: Double) {
        watching.withLock { $0 = true }
        let thread = Thread { [self] in
            while watching.withLock({ $0 }) {
                Thread.sleep(forTimeInterval: interval)
                if FileSignature(path: keyFile) != seen.withLock({ $0 }) {
                    reloadAndLog(trigger: "issuer key file changed")
                }
            }
        }
        thread.name = "key-file-watch"
        thread.start()
    }

    public func stopWatching() { watching.withLock { $0 = false } }

    /// Not ready while the last reload failed: the service runs on, but what the operator put in
    /// place is not in use and the next start would refuse it, so a load balancer and an alert
    /// see it now rather than at the next restart.
    public var readiness: Readiness {
        failure.withLock { $0.last }.map { .notReady(reason: $0) } ?? .ready
    }

    /// Reloads that failed since the start (`badge_reload_failures_total`).
    public var failureCount: Int { failure.withLock { $0.count } }

    /// One reload, its outcome kept for ``readiness`` and ``failureCount``.
    func reload(trigger: String) -> Outcome {
        let outcome = attemptReload(trigger: trigger)
        failure.withLock {
            switch outcome {
            case .reloaded: $0.last = nil
            case .failed(let line): $0 = (line, $0.count + 1)
            }
        }
        return outcome
    }

    /// The key file (mode, format, every secret against its public key) and the catalog are
    /// read first; only then are both put in use.
    private func attemptReload(trigger: String) -> Outcome {
        let old = issuer.keyring
        let keeping = "reload (\(trigger)) failed, keeping issuer key \(old.activeIndex)"
        // What this reload read, so the watcher does not reload it again (a failed read too:
        // one line per change, not one a second).
        seen.withLock { $0 = FileSignature(path: keyFile) }
        let next: IssuerKeyring
        do {
            try IssuerKeyFile.refuseIfShared(path: keyFile)
            next = try IssuerKeyFile.load(path: keyFile)
        } catch {
            return .failed("\(keeping): \(error)")
        }
        if let index = old.changedIndexes(in: next).first {
            return .failed("\(keeping): issuer key file \(keyFile) holds another key at index \(index), which is in use; add a new key at a free index instead")
        }
        do { try IssuerKeyFile.refuseIfChangedSinceRecorded(next, path: keyFile, store: store) } catch {
            return .failed("\(keeping): \(error)")
        }
        let catalog: (prices: Int, offers: Int)
        do { catalog = try service.reloadCatalog() } catch {
            return .failed("\(keeping): cannot read the catalog: \(error)")
        }
        issuer.replace(with: next)
        let was = next.activeIndex == old.activeIndex ? "" : " (was \(old.activeIndex))"
        let indexes = next.entries.keys.sorted().map(String.init).joined(separator: ", ")
        return .reloaded("reloaded (\(trigger)): issuer key \(next.activeIndex) active\(was), keys \(indexes); catalog of \(catalog.prices) prices and \(catalog.offers) offers")
    }
}

/// What tells a file's versions apart without reading it: inode, size and modification time
/// (nanoseconds), or nil when the file cannot be looked at.
struct FileSignature: Equatable, Sendable {
    let inode: UInt64
    let size: Int64
    let seconds: Int
    let nanoseconds: Int

    init?(path: String) {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        inode = UInt64(info.st_ino)
        size = Int64(info.st_size)
        seconds = info.st_mtim.tv_sec
        nanoseconds = info.st_mtim.tv_nsec
    }
}
