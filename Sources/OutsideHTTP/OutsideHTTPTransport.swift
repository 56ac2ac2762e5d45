import Foundation
import Locking
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One answer from an outside API as received: status, header fields (names lower-cased) and
/// the whole body, within the cap.
public struct OutsideHTTPAnswer: Sendable, Equatable {
    public var status: Int
    public var headers: [String: String]
    public var body: [UInt8]

    public init(status: Int, headers: [String: String] = [:], body: [UInt8]) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}

/// Why a call produced no answer the caller can read: none at all (unreachable, timed out, not
/// HTTP, a redirect, an error page over the cap), or a success over the cap. Callers class them
/// differently (the spec answers an outage provider_unavailable and an answer over the cap
/// internal), so they stay apart.
public enum OutsideHTTPFailure: Error, Sendable, Equatable {
    case noAnswer(String)
    case tooLarge(Int)
}

/// Sends one HTTP request to an outside API and waits for the whole answer: the seam every
/// provider client (Stripe, BTCPay, the App Store, Google) is tested through, against fakes
/// over real HTTP on 127.0.0.1, never against the network.
public protocol OutsideHTTPTransport: Sendable {
    func send(method: String, url: String, headers: [(String, String)], body: [UInt8]?,
              timeoutSeconds: Double, maxResponseBytes: Int) throws(OutsideHTTPFailure) -> OutsideHTTPAnswer
}

/// ``OutsideHTTPTransport`` over Foundation's URL session: an ephemeral session per call (no
/// cache, no cookies), one deadline for the whole call, and the body read through a delegate
/// that cancels as soon as it passes the cap.
public struct URLSessionTransport: OutsideHTTPTransport {
    public init() {}

    public func send(method: String, url: String, headers: [(String, String)], body: [UInt8]?,
                     timeoutSeconds: Double, maxResponseBytes: Int) throws(OutsideHTTPFailure) -> OutsideHTTPAnswer {
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
        return try reader.answer()
    }
}

/// Collects one answer on the session's queue; the caller waits on `finished`.
/// `@unchecked Sendable`: its own state is Sendable, but NSObject, its superclass, is not marked so.
private final class CappedAnswerReader: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    /// What the delegate callbacks collect and the caller reads.
    private struct Received {
        var status = 0
        var headers: [String: String] = [:]
        var body: [UInt8] = []
        var overflow = false
        var failure: (any Error)?
    }
    let finished = DispatchSemaphore(value: 0)
    private let limit: Int
    private let received = LockedValueBox(Received())

    init(limit: Int) { self.limit = limit }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                    completionHandler: @escaping (URLSession.ResponseDisposition) -> Void) {
        let tooLarge = response.expectedContentLength > Int64(limit)
        let http = response as? HTTPURLResponse
        var fields: [String: String] = [:]
        for (name, value) in http?.allHeaderFields ?? [:] {
            if let name = name as? String, let value = value as? String { fields[name.lowercased()] = value }
        }
        received.withLock {
            $0.status = http?.statusCode ?? 0
            $0.headers = fields
            if tooLarge { $0.overflow = true }
        }
        completionHandler(tooLarge ? .cancel : .allow)
    }

    /// Never follows: Foundation would resend the request, credentials and all, to wherever the
    /// `Location` points (another host, plain http), and turn a POST into a GET on a 301/302.
    func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                    newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void) {
        completionHandler(nil)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let over = received.withLock { received -> Bool in
            if received.body.count + data.count > limit { received.overflow = true } else { received.body.append(contentsOf: data) }
            return received.overflow
        }
        if over { dataTask.cancel() }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        received.withLock { $0.failure = error }
        finished.signal()
    }

    func answer() throws(OutsideHTTPFailure) -> OutsideHTTPAnswer {
        let (status, headers, body, overflow, failure) = received.withLock {
            ($0.status, $0.headers, $0.body, $0.overflow, $0.failure)
        }
        // Only a success over the cap is the provider's answer too large to read; an error page
        // over it (a proxy's 502) says no more than an outage.
        if overflow {
            throw (200..<300).contains(status) ? .tooLarge(limit) : .noAnswer("answered \(status) with a body over \(limit) bytes")
        }
        if let failure {
            let error = failure as NSError
            throw .noAnswer(error.code == NSURLErrorTimedOut ? "timed out" : "failed (\(error.domain) \(error.code))")
        }
        guard status > 0 else { throw .noAnswer("no HTTP status") }
        guard !(300..<400).contains(status) else { throw .noAnswer("answered \(status), a redirect, which is not followed") }
        return OutsideHTTPAnswer(status: status, headers: headers, body: body)
    }
}
