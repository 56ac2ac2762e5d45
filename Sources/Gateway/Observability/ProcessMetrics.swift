import Foundation
import Glibc

/// The standard `process_*` families (as Prometheus client libraries export them), read from
/// `/proc/self`: CPU seconds, resident memory, open and maximum descriptors, start time.
public struct ProcessMetrics: MetricsSource {
    public init() {}

    public func families() -> [MetricFamily] {
        var out: [MetricFamily] = []
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        let pageSize = Double(sysconf(Int32(_SC_PAGESIZE)))
        if let stat = Self.selfStat(), ticks > 0 {
            // Fields after the command's closing parenthesis: state is field 3, so index = field - 3.
            func field(_ n: Int) -> Double? { n - 3 < stat.count ? Double(stat[n - 3]) : nil }
            if let user = field(14), let system = field(15) {
                out.append(MetricFamily("process_cpu_seconds_total", .counter, help: "User and system CPU time spent, in seconds.",
                                        samples: [.init(name: "process_cpu_seconds_total", value: (user + system) / ticks)]))
            }
            if let rss = field(24) {
                out.append(MetricFamily("process_resident_memory_bytes", .gauge, help: "Resident memory size in bytes.",
                                        samples: [.init(name: "process_resident_memory_bytes", value: rss * pageSize)]))
            }
            if let start = field(22), let boot = Self.bootTime() {
                out.append(MetricFamily("process_start_time_seconds", .gauge, help: "Start time of the process since the Unix epoch, in seconds.",
                                        samples: [.init(name: "process_start_time_seconds", value: boot + start / ticks)]))
            }
        }
        if let fds = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd") {
            // The listing itself holds one descriptor while it runs.
            out.append(MetricFamily("process_open_fds", .gauge, help: "Number of open file descriptors.",
                                    samples: [.init(name: "process_open_fds", value: Double(max(0, fds.count - 1)))]))
        }
        if let limit = Self.openFilesLimit() {
            out.append(MetricFamily("process_max_fds", .gauge, help: "Maximum number of open file descriptors.",
                                    samples: [.init(name: "process_max_fds", value: limit)]))
        }
        return out
    }

    /// `/proc/self/stat` split after the command name (which may hold spaces and parentheses).
    static func selfStat() -> [Substring]? {
        guard let text = try? String(contentsOfFile: "/proc/self/stat", encoding: .utf8),
              let close = text.lastIndex(of: ")") else { return nil }
        return text[text.index(after: close)...].split(separator: " ")
    }

    /// The soft limit on open files (`Max open files` of `/proc/self/limits`).
    static func openFilesLimit() -> Double? {
        guard let text = try? String(contentsOfFile: "/proc/self/limits", encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix("Max open files") {
            return line.dropFirst("Max open files".count).split(separator: " ").first.flatMap { Double($0) }
        }
        return nil
    }

    /// The boot time (`btime` of `/proc/stat`), seconds since the Unix epoch.
    static func bootTime() -> Double? {
        guard let text = try? String(contentsOfFile: "/proc/stat", encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix("btime ") {
            return Double(line.dropFirst(6).trimmingCharacters(in: .whitespaces))
        }
        return nil
    }
}
