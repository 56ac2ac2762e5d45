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
}

extension HTTPResponder {
    public func refused(_ refusal: HTTPRefusal) -> HTTPResponse { refusal.defaultResponse }
}

extension HTTPResponder {
    public func checkHead(_ head: HTTPRequest) -> HTTPResponse? { nil }
}
