/// One metric family of the Prometheus text format 0.0.4: its samples, help and type, rendered
/// in a stable order. Label values are escaped; names are the caller's constants.
public struct MetricFamily: Sendable, Equatable {
    public enum Kind: String, Sendable { case counter, gauge, histogram }

    public struct Sample: Sendable, Equatable {
        /// Full sample name (the family's, or with `_bucket`/`_sum`/`_count` for histograms).
        public let name: String
        public let labels: [(String, String)]
        public let value: Double

        public init(name: String, labels: [(String, String)] = [], value: Double) {
            self.name = name
            self.labels = labels
            self.value = value
        }

        public static func == (a: Sample, b: Sample) -> Bool {
            a.name == b.name && a.value == b.value && a.labels.elementsEqual(b.labels) { $0 == $1 }
        }
    }

    public let name: String
    public let help: String
    public let kind: Kind
    public var samples: [Sample]

    public init(_ name: String, _ kind: Kind, help: String, samples: [Sample] = []) {
        self.name = name
        self.kind = kind
        self.help = help
        self.samples = samples
    }

    /// Adds a sample of the family itself.
    public mutating func add(_ labels: [(String, String)] = [], _ value: Double) {
        samples.append(Sample(name: name, labels: labels, value: value))
    }

    /// `# HELP`, `# TYPE` and one line per sample.
    public var text: String {
        var out = "# HELP \(name) \(help)\n# TYPE \(name) \(kind.rawValue)\n"
        for sample in samples {
            out += sample.name
            if !sample.labels.isEmpty {
                out += "{" + sample.labels.map { "\($0.0)=\"\(Self.escape($0.1))\"" }.joined(separator: ",") + "}"
            }
            out += " " + Self.format(sample.value) + "\n"
        }
        return out
    }

    /// Integers without a fraction; others as Swift prints them (which Go's ParseFloat reads).
    static func format(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value < 0 ? "-Inf" : "+Inf" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return "\(value)"
    }

    static func escape(_ s: String) -> String {
        s.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            .replacingOccurrences(of: "\n", with: "\\n")
    }
}

/// Families read at scrape time from something other than the request counters (the process,
/// the database, the issuer keys). Called on a worker thread, never on an event loop.
public protocol MetricsSource: Sendable {
    func families() -> [MetricFamily]
}
