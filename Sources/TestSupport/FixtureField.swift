/// A JSON fixture without the expected shape: the test fails, naming what is missing,
/// instead of crashing the whole run on a forced cast.
public struct FixtureShapeError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// `object[key]` as a `T`, where `object` is a decoded JSON object; an error names the key.
public func field<T>(_ object: Any, _ key: String, _ type: T.Type = T.self) throws -> T {
    guard let value = (object as? [String: Any])?[key] as? T else {
        throw FixtureShapeError("fixture: '\(key)' is missing or not \(T.self)")
    }
    return value
}
