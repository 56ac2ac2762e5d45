import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

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

/// A response as received: status and the whole body (within the cap).
public struct OutsideResponse: Sendable, Equatable {
    public var status: Int
    public var body: [UInt8]
}

/// Sends one HTTP request to an outside API and waits for the answer. A seam, so the provider
/// clients are tested against fakes over real HTTP and never against the network.
public protocol OutsideHTTPClient: Sendable {
    /// Throws ``PaymentProviderError/unavailable(_:)`` when the call fails, times out or overruns the cap.
    func send(_ method: String, url: String, headers: [(String, String)], body: [UInt8]?,
              api: OutsideAPI) throws(PaymentProviderError) -> OutsideResponse
}

/// ``OutsideHTTPClient`` over Foundation's URL session: one session per call, a deadline for the
/// whole call, and the body read through a delegate that cancels as soon as it passes the cap.
public struct URLSessionHTTPClient: OutsideHTTPClient {
    public init() {}

    public func send(_ method: String, url: String, headers: [(String, String)], body: [UInt8]?,
                     api: OutsideAPI) throws(PaymentProviderError) -> OutsideResponse {
        guard let target = URL(string: url) else { throw .refused("not a URL: \(url)") }
        var request = URLRequest(url: target, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: api.timeoutSeconds)
        request.httpMethod = method
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        if let body { request.httpBody = Data(body) }

        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = api.timeoutSeconds
        configuration.timeoutIntervalForResource = api.timeoutSeconds
        configuration.urlCache = nil
        configuration.httpCookieStorage = nil
        let collector = ResponseCollector(limit: api.maxResponseBytes)
        let session = URLSession(configuration: configuration, delegate: collector, delegateQueue: nil)
        defer { session.invalidateAndCancel() }
        let task = session.dataTask(with: request)
        task.resume()
        // The session's own timeout should fire first; this bounds a session that never calls back.
        if collector.done.wait(timeout: .now() + api.timeoutSeconds + 2) == .timedOut {
            task.cancel()
            throw .unavailable("\(method) \(target.path): no answer within \(api.timeoutSeconds) s")
        }
        return try collector.result(describing: "\(method) \(target.path)")
    }
}

/// Collects one response on the session's queue; the caller waits on `done`.
private final class ResponseCollector: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    let done = DispatchSemaphore(value: 0)
    private let limit: Int
    private let lock = NSLock()
    private var status = 0
    private var data: [UInt8] = []
    private var overflow = false
    private var failure: (any Error)?

    init(limit: Int) { self.limit = limit }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                    completionHandler: @escaping (URLSession.ResponseDisposition) -> Void) {
        lock.withLock { status = (response as? HTTPURLResponse)?.statusCode ?? 0 }
        if response.expectedContentLength > Int64(limit) {
            lock.withLock { overflow = true }
            completionHandler(.cancel)
            return
        }
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive chunk: Data) {
        let over = lock.withLock { () -> Bool in
            if data.count + chunk.count > limit { overflow = true } else { data.append(contentsOf: chunk) }
            return overflow
        }
        if over { dataTask.cancel() }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        lock.withLock { failure = error }
        done.signal()
    }

    func result(describing call: String) throws(PaymentProviderError) -> OutsideResponse {
        let (status, data, overflow, failure) = lock.withLock { (self.status, self.data, self.overflow, self.failure) }
        if overflow { throw .unavailable("\(call): response larger than \(limit) bytes") }
        if let failure {
            let e = failure as NSError
            let what = e.code == NSURLErrorTimedOut ? "timed out" : "failed (\(e.domain) \(e.code))"
            throw .unavailable("\(call): \(what)")
        }
        guard status > 0 else { throw .unavailable("\(call): no HTTP status") }
        return OutsideResponse(status: status, body: data)
    }
}
