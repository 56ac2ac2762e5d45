/// A row of `schema_migrations`: a step some binary applied, and whether it recorded it additive
/// (false for a database from before step 13, whose rows say nothing).
public struct RecordedStep: Equatable, Sendable {
    public let version: Int
    public let additive: Bool

    public init(version: Int, additive: Bool) {
        self.version = version
        self.additive = additive
    }
}

/// Where a database's schema stands against this binary's steps, and so what opening it does:
/// apply the pending steps, nothing, serve a newer schema whose extra steps are all additive,
/// or refuse a newer one.
public struct SchemaPlan: Equatable, Sendable {
    /// The rows of the database's `schema_migrations`, in order.
    public let recorded: [RecordedStep]
    /// The version the database is at (0: empty, never migrated).
    public let found: Int
    /// This binary's latest version.
    public let latest: Int
    /// The steps migrating would apply, in order (none when the database is as new or newer).
    public let pending: [MigrationStep]
    /// The steps the database has beyond this binary's latest, as recorded.
    public let beyond: [RecordedStep]

    public init(recorded: [RecordedStep], steps: [MigrationStep]) {
        let found = recorded.map(\.version).max() ?? 0, latest = steps.last?.version ?? 0
        self.recorded = recorded.sorted { $0.version < $1.version }
        self.found = found
        self.latest = latest
        pending = steps.filter { $0.version > found }
        beyond = recorded.filter { $0.version > latest }.sorted { $0.version < $1.version }
    }

    /// The plan for a database as this binary's steps find it.
    public init(recorded: [RecordedStep]) {
        self.init(recorded: recorded, steps: Migrations.steps)
    }

    /// This binary's steps, in order.
    public static var steps: [MigrationStep] { Migrations.steps }

    /// A newer binary migrated the database past this one's steps.
    public var isNewer: Bool { found > latest }
    /// A newer database this binary serves: every step past its own is recorded additive, so the
    /// reads and writes of this binary still work on it.
    public var servesNewer: Bool { isNewer && beyond.allSatisfy(\.additive) }
    /// The steps past this binary's that are not recorded additive (why a newer database is refused).
    public var notAdditive: [Int] { beyond.filter { !$0.additive }.map(\.version) }
}

/// What opening a database did to its schema, as it happens, for the operator's log.
public enum SchemaEvent: Equatable, Sendable {
    /// An empty database given every step (a first start): one event, not one per step.
    case created(version: Int, steps: Int, milliseconds: Int)
    /// One step applied to a database a release had migrated before.
    case migrated(from: Int, to: Int, milliseconds: Int)
    /// A newer database served: `additiveSteps` are the steps past `supported`, each recorded additive.
    case acceptedNewer(found: Int, supported: Int, additiveSteps: [Int])
}

/// Receives each ``SchemaEvent`` while a database is opened.
public typealias SchemaReport = (SchemaEvent) -> Void

extension Duration {
    /// Whole milliseconds (the migration log, the database deadlines).
    var wholeMilliseconds: Int {
        Int(components.seconds) * 1_000 + Int(components.attoseconds / 1_000_000_000_000_000)
    }
}
