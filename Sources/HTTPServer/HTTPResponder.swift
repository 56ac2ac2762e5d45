/// What the server calls for every complete, well-framed request.
public protocol HTTPResponder: Sendable {
    /// Called on an event-loop thread. Respond inline for cheap work, or hand off and call
    /// `respond` later from any thread, exactly once (later calls are ignored).
    ///
    /// Blocking here stalls every connection of that loop: hand slow work (database, outside
    /// APIs, BBS) to another queue and call `respond` from there.
    func handle(_ request: HTTPRequest, respond: @escaping @Sendable (HTTPResponse) -> Void)
}
