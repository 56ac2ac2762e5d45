import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// The App Store Server API needs what neither `OutsideHTTPClient` (Payments) nor `PlayTransport`
// gives: the response headers (Apple's Retry-After holds a UNIX time in milliseconds) and an
// overrun of the cap told apart from a failure to answer (the spec answers them internal and
// provider_unavailable).

/// One answer from the App Store Server API as received: status, headers (names lowercased) and
/// the whole body, within the cap.
public struct AppStoreHTTPResponse: Sendable, Equatable {
    public var status: Int
    public var headers: [String: String]
    public var body: [UInt8]

    public init(status: Int, headers: [String: String] = [:], body: [UInt8]) {
        self.status = status
        self.headers = Dictionary(headers.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { a, _ in a })
        self.body = body
    }
}

/// Why a call produced no answer this service can read: none at all (unreachable, timed out),
/// or one over the cap.
public enum AppStoreTransportFailure: Error, Sendable, Equatable {
    case noAnswer(String)
    case tooLarge(Int)
}

/// Sends one GET and waits for the answer: the seam the API client is tested through, against
/// the fake App Store Server API on 127.0.0.1.
public protocol AppStoreTransport: Sendable {
    func get(url: String, headers: [(String, String)], timeoutSeconds: Double,
             maxResponseBytes: Int) throws(AppStoreTransportFailure) -> AppStoreHTTPResponse
}

/// ``AppStoreTransport`` over Foundation's URL session: a session per call, a deadline for the
/// whole call, and the body read through a delegate that stops as soon as it passes the cap.
public struct URLSessionAppStoreTransport: AppStoreTransport {
    public init() {}

    public func get(url: String, headers: [(String, String)], timeoutSeconds: Double,
                    maxResponseBytes: Int) throws(AppStoreTransportFailure) -> AppStoreHTTPResponse {
        guard let target = URL(string: url) else { throw .noAnswer("not a URL") }
        var request = URLRequest(url: target, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: timeoutSeconds)
        request.httpMethod = "GET"
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeoutSeconds
        configuration.timeoutIntervalForResource = timeoutSeconds
        configuration.urlCache = nil
        configuration.httpCookieStorage = nil
        let reader = CappedAnswerReader(limit: maxResponseBytes)
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
private final class CappedAnswerReader: NSObject, URLSessionDataDelegate, @unchecked Sendable {
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
        let http = response as? HTTPURLResponse
        var fields: [String: String] = [:]
        for (name, value) in http?.allHeaderFields ?? [:] {
            if let name = name as? String, let value = value as? String { fields[name.lowercased()] = value }
        }
        lock.withLock {
            status = http?.statusCode ?? 0
            headers = fields
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

    func response() throws(AppStoreTransportFailure) -> AppStoreHTTPResponse {
        let (status, headers, body, overflow, failure) = lock.withLock {
            (self.status, self.headers, self.body, self.overflow, self.failure)
        }
        if overflow { throw .tooLarge(limit) }
        if let failure {
            let error = failure as NSError
            throw .noAnswer(error.code == NSURLErrorTimedOut ? "timed out" : "failed (\(error.domain) \(error.code))")
        }
        guard status > 0 else { throw .noAnswer("no HTTP status") }
        return AppStoreHTTPResponse(status: status, headers: headers, body: body)
    }
}
