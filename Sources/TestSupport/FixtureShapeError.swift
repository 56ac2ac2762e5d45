/// A JSON fixture without the expected shape: the test fails, naming what is missing,
/// instead of crashing the whole run on a forced cast.
public struct FixtureShapeError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
