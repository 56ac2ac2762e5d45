import Foundation
import OutsideHTTP

/// One outside API as configured: where it is, how long a call may take, how much it may answer.
public struct OutsideAPI: Sendable, Equatable {
    /// Scheme, host and port (and an optional path prefix), without a trailing slash.
    public var baseURL: String
    /// The longest a call may take, connecting and reading included.
    public var timeoutSeconds: Double
    /// The largest response body read; a larger one is a failure.
    public var maxResponseBytes: Int

    public init(baseURL: String, timeoutSeconds: Double = 10, maxResponseBytes: Int = 1 << 20) {
        var base = baseURL
        while base.hasSuffix("/") { base.removeLast() }
        self.baseURL = base
        self.timeoutSeconds = timeoutSeconds
        self.maxResponseBytes = maxResponseBytes
    }
}

extension OutsideHTTPTransport {
    /// One call to `api` within its timeout and cap. No answer, or one over the cap, is the
    /// provider being unavailable; a URL that cannot be formed is this service's refusal.
    func call(_ method: String, url: String, headers: [(String, String)], body: [UInt8]?,
              api: OutsideAPI) throws(PaymentProviderError) -> OutsideHTTPAnswer {
        guard let target = URL(string: url) else { throw .refused("not a URL: \(url)") }
        do {
            return try send(method: method, url: url, headers: headers, body: body,
                            timeoutSeconds: api.timeoutSeconds, maxResponseBytes: api.maxResponseBytes)
        } catch {
            switch error {
            case .noAnswer(let why): throw .unavailable("\(method) \(target.path): \(why)")
            case .tooLarge(let limit): throw .unavailable("\(method) \(target.path): response larger than \(limit) bytes")
            }
        }
    }
}
