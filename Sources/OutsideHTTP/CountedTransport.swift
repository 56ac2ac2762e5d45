/// ``OutsideHTTPTransport`` that tells `record` how each call through `inner` ended, for the
/// operator's metrics: `2xx`, `3xx`, `4xx` or `5xx` by the answer's status, `no_answer` (none
/// came, or not in time) or `too_large` (past the cap). Nothing of the request or answer.
public struct CountedTransport: OutsideHTTPTransport {
    let inner: any OutsideHTTPTransport
    let record: @Sendable (String) -> Void

    public init(_ inner: any OutsideHTTPTransport = URLSessionTransport(), record: @escaping @Sendable (String) -> Void) {
        self.inner = inner
        self.record = record
    }

    public func send(method: String, url: String, headers: [(String, String)], body: [UInt8]?,
                     timeoutSeconds: Double, maxResponseBytes: Int) throws(OutsideHTTPFailure) -> OutsideHTTPAnswer {
        do {
            let answer = try inner.send(method: method, url: url, headers: headers, body: body,
                                        timeoutSeconds: timeoutSeconds, maxResponseBytes: maxResponseBytes)
            record((100...599).contains(answer.status) ? "\(answer.status / 100)xx" : "no_answer")
            return answer
        } catch {
            switch error {
            case .noAnswer: record("no_answer")
            case .tooLarge: record("too_large")
            }
            throw error
        }
    }
}
