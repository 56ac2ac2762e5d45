import Storage

/// What opening a database did to its schema, in the operator's log (``ServiceLog``): one line per
/// migration step (from → to, milliseconds), one for a schema created whole on an empty database,
/// and a warning for a newer schema served because its newer steps are additive.
enum SchemaLog {
    /// The log line for `event` on the database at `location` (a file, or PostgreSQL's redacted URL).
    static func line(_ event: SchemaEvent, location: String) -> String {
        switch event {
        case .created(let version, let steps, let milliseconds) where steps == version:
            return "created the schema of database \(location) at version \(version) (\(steps) steps, \(milliseconds) ms)"
        case .created(let version, let steps, let milliseconds):
            // PostgreSQL instances starting together on an empty database share the steps out.
            return "created the schema of database \(location) with another instance: \(steps) of its steps here, "
                + "the last to version \(version) (\(milliseconds) ms)"
        case .migrated(let from, let to, let milliseconds):
            return "migrated database \(location) from schema version \(from) to \(to) (\(milliseconds) ms)"
        case .acceptedNewer(let found, let supported, let steps):
            return "database \(location) is at schema version \(found), this binary knows \(supported); "
                + "serving it, since its newer steps (\(StepList.text(steps))) are additive"
        }
    }

    /// Logs `event`: a newer schema served is a warning, the rest information.
    static func log(_ event: SchemaEvent, location: String) {
        if case .acceptedNewer = event {
            ServiceLog.warning(line(event, location: location))
        } else {
            ServiceLog.info(line(event, location: location))
        }
    }
}

/// Step numbers as the operator reads them: runs of consecutive steps joined (`1–13`, `12, 14`).
enum StepList {
    static func text(_ steps: [Int]) -> String {
        var runs: [String] = []
        var index = 0
        let sorted = steps.sorted()
        while index < sorted.count {
            var end = index
            while end + 1 < sorted.count, sorted[end + 1] == sorted[end] + 1 { end += 1 }
            runs.append(end > index ? "\(sorted[index])–\(sorted[end])" : "\(sorted[index])")
            index = end + 1
        }
        return runs.joined(separator: ", ")
    }
}
