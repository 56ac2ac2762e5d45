/// Why a Pub/Sub push was not accepted: a token or body that does not pass (answered 400), or
/// Google's keys that could not be fetched (answered 503, so Pub/Sub delivers again). The
/// reason never holds the token.
public enum PushRefusal: Error, Sendable, Equatable, CustomStringConvertible {
    case refused(String)
    case unavailable(String)

    public var description: String {
        switch self {
        case .refused(let why): why
        case .unavailable(let why): "Google's keys are unavailable: \(why)"
        }
    }
}
