import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One answer from Google as received: the status and the whole body, within the cap.
public struct PlayHTTPResponse: Sendable, Equatable {
    public var status: Int
    public var body: [UInt8]
    /// The header fields, names lower-cased (the JWKS fetch reads `cache-control`).
    public var headers: [String: String]
    public init(status: Int, body: [UInt8], headers: [String: String] = [:]) {
        self.status = status
        self.body = body
        self.headers = headers
    }
}

/// Why a call produced no answer: no answer at all (Play unreachable) or one over the cap
/// (which this service cannot read: internal).
public enum PlayTransportFailure: Error, Sendable, Equatable {
    case noAnswer(String)
    case tooLarge(Int)
}

/// Sends one HTTP request and waits for the answer: the seam the client is tested through,
/// against fakes over real HTTP on 127.0.0.1.
public protocol PlayTransport: Sendable {
    func send(method: String, url: String, headers: [(String, String)], body: [UInt8]?,
              timeoutSeconds: Double, maxResponseBytes: Int) throws(PlayTransportFailure) -> PlayHTTPResponse
}

/// ``PlayTransport`` over Foundation's URL session: a session per call, a deadline for the
/// whole call, and the body read through a delegate that stops as soon as it passes the cap.
public struct URLSessionPlayTransport: PlayTransport {
    public init() {}

    public func send(method: String, url: String, headers: [(String, String)], body: [UInt8]?,
                     timeoutSeconds: Double, maxResponseBytes: Int) throws(PlayTransportFailure) -> PlayHTTPResponse {
        guard let target = URL(string: url) else { throw .noAnswer("not a URL") }
        var request = URLRequest(url: target, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: timeoutSeconds)
        request.httpMethod = method
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        if let body { request.httpBody = Data(body) }
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeoutSeconds
        configuration.timeoutIntervalForResource = timeoutSeconds
        configuration.urlCache = nil
        configuration.httpCookieStorage = nil
        let reader = CappedBodyReader(limit: maxResponseBytes)
        let session = URLSession(configuration: configuration, delegate: reader, delegateQueue: nil)
        defer { session.invalidateAndCancel() }
        let task = session.dataTask(with: request)
        task.resume()
        // The session's own timeout fires first; this bounds a session that never calls back.
        if reader.finished.wait(timeout: .now() + timeoutSeconds + 1) == .timedOut {
            task.cancel()
            throw .noAnswer("no answer within \(timeoutSeconds) s")
        }
        return try reader.response()
    }
}

/// Collects one response on the session's queue; the caller waits on `finished`.
private final class CappedBodyReader: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    let finished = DispatchSemaphore(value: 0)
    private let limit: Int
    private let lock = NSLock()
    private var status = 0
    private var headers: [String: String] = [:]
    private var body: [UInt8] = []
    private var overflow = false
    private var failure: (any Error)?

    init(limit: Int) { self.limit = limit }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                    completionHandler: @escaping (URLSession.ResponseDisposition) -> Void) {
        let tooLarge = response.expectedContentLength > Int64(limit)
        lock.withLock {
            status = (response as? HTTPURLResponse)?.statusCode ?? 0
            for (name, value) in (response as? HTTPURLResponse)?.allHeaderFields ?? [:] {
                if let name = name as? String, let value = value as? String { headers[name.lowercased()] = value }
            }
            if tooLarge { overflow = true }
        }
        completionHandler(tooLarge ? .cancel : .allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let over = lock.withLock { () -> Bool in
            if body.count + data.count > limit { overflow = true } else { body.append(contentsOf: data) }
            return overflow
        }
        if over { dataTask.cancel() }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        lock.withLock { failure = error }
        finished.signal()
    }

    func response() throws(PlayTransportFailure) -> PlayHTTPResponse {
        let (status, body, headers, overflow, failure) = lock.withLock {
            (self.status, self.body, self.headers, self.overflow, self.failure)
        }
        if overflow { throw .tooLarge(limit) }
        if let failure {
            let error = failure as NSError
            throw .noAnswer(error.code == NSURLErrorTimedOut ? "timed out" : "failed (\(error.domain) \(error.code))")
        }
        guard status > 0 else { throw .noAnswer("no HTTP status") }
        return PlayHTTPResponse(status: status, body: body, headers: headers)
    }
}
