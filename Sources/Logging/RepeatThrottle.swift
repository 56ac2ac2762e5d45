/// Whether a line that may repeat once per request (a database outage, refused notifications,
/// a provider down) is written, or only counted: the first of a kind is written, the rest within
/// `window` seconds are counted and summarised once the window ends. A pure value: the caller
/// brings the time (seconds on a monotonic clock).
public struct RepeatThrottle: Sendable, Equatable {
    /// The lines of one kind counted and not written over `seconds`.
    public struct Summary: Sendable, Equatable {
        public let kind: String
        public let count: Int
        public let seconds: Double

        public init(kind: String, count: Int, seconds: Double) {
            self.kind = kind
            self.count = count
            self.seconds = seconds
        }
    }

    private struct Window: Sendable, Equatable {
        var start: Double
        var counted: Int
    }

    public let window: Double
    private var open: [String: Window] = [:]

    public init(window: Double = 10) { self.window = window }

    /// Whether the line of `kind` at `now` is written, and the summary of the window it closes
    /// when its kind kept repeating and no ``due(at:)`` reported it yet.
    public mutating func record(_ kind: String, at now: Double) -> (write: Bool, closed: Summary?) {
        guard let current = open[kind] else {
            open[kind] = Window(start: now, counted: 0)
            return (true, nil)
        }
        if now - current.start < window {
            open[kind]?.counted += 1
            return (false, nil)
        }
        guard current.counted > 0 else {
            open[kind] = Window(start: now, counted: 0)
            return (true, nil)
        }
        // Still repeating: this line opens the next window's count.
        open[kind] = Window(start: now, counted: 1)
        return (false, Summary(kind: kind, count: current.counted, seconds: now - current.start))
    }

    /// The summaries of the windows ended by `now`, in kind order. A kind whose window ended
    /// without a repeat is forgotten: its next line is written again.
    public mutating func due(at now: Double) -> [Summary] {
        var out: [Summary] = []
        for (kind, current) in open.sorted(by: { $0.key < $1.key }) where now - current.start >= window {
            if current.counted > 0 {
                out.append(Summary(kind: kind, count: current.counted, seconds: now - current.start))
                open[kind] = Window(start: now, counted: 0)
            } else {
                open[kind] = nil
            }
        }
        return out
    }

    /// Every count still open, summarised at `now` (a stop): nothing is left counted.
    public mutating func drain(at now: Double) -> [Summary] {
        let out = open.sorted(by: { $0.key < $1.key }).filter { $0.value.counted > 0 }.map {
            Summary(kind: $0.key, count: $0.value.counted, seconds: now - $0.value.start)
        }
        open = [:]
        return out
    }

    /// The kind of a report line: what it says before its first `: ` (the command, provider or
    /// webhook it is about), except a database that cannot be reached, one kind whatever asked.
    public static func kind(of message: String) -> String {
        if message.contains(": database: ") { return "database unavailable" }
        guard let colon = message.range(of: ": ") else { return message }
        return String(message[..<colon.lowerBound])
    }
}
