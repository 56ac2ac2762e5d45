/// What the server calls for every complete, well-framed request.
public protocol HTTPResponder: Sendable {
    /// Called on an event-loop thread. Respond inline for cheap work, or hand off and call
    /// `respond` later from any thread, exactly once (later calls are ignored).
    ///
    /// Blocking here stalls every connection of that loop: hand slow work (database, outside
    /// APIs, BBS) to another queue and call `respond` from there.
    func handle(_ request: HTTPRequest, respond: @escaping @Sendable (HTTPResponse) -> Void)

    /// The answer to a request the server refused before dispatching it (``HTTPRefusal``).
    /// Called on an event-loop thread, synchronously: keep it cheap. The server sends it with
    /// the refusal's status and closes the connection. By default, ``HTTPRefusal/defaultResponse``.
    func refused(_ refusal: HTTPRefusal) -> HTTPResponse

    /// Judges a request from its head alone (its `body` is empty), on the loop thread, before the
    /// server sends `100 Continue`: a response refuses it (sent as the final answer, then the
    /// connection closes unread); nil lets the client send the body. Must be cheap. Default: nil.
    func checkHead(_ head: HTTPRequest) -> HTTPResponse?

    /// The body and headers of an answer the server makes itself, where no request reaches the
    /// responder: a connection refused at accept (503, with `Retry-After`) and a response that
    /// cannot be sent (500). `headers` are the ones the answer needs. Called on an event-loop
    /// thread, synchronously: keep it cheap, and record nothing (no request was made). The server
    /// keeps the status. Default: ``HTTPResponse/plain(status:message:headers:)``.
    func answer(status: Int, message: String, headers: HTTPHeaders) -> HTTPResponse
}

extension HTTPResponder {
    public func refused(_ refusal: HTTPRefusal) -> HTTPResponse { refusal.defaultResponse }
}

extension HTTPResponder {
    public func checkHead(_ head: HTTPRequest) -> HTTPResponse? { nil }
}

extension HTTPResponder {
    public func answer(status: Int, message: String, headers: HTTPHeaders) -> HTTPResponse {
        .plain(status: status, message: message, headers: headers)
    }
}
