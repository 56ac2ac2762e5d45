/// The life of one connection, free of I/O: bytes in, actions out, time from an injected clock.
///
/// The driver (the event loop) feeds it what the socket produced (`bytesReceived`,
/// `peerClosed`), what the responder produced (`responseReady`), write progress
/// (`writeCompleted`) and the passage of time (`deadlinePassed`, whenever `clock` reaches
/// `deadline`), and performs the returned `Action`. `wantsInput` says whether the socket
/// should be read at all.
///
/// Pipelining and back-pressure: exactly one request is in flight per connection. Once a
/// request is complete the machine stops asking for input until its response has been
/// written in full; pipelined bytes that arrived with it are parked unparsed and looked at
/// only then, so responses go out strictly in request order and a client that floods
/// requests without reading responses fills its own socket buffers, not the server's memory
/// (the same reasoning as SwiftNIO's HTTPServerPipelineHandler). The parked bytes are at most
/// what one read returned.
///
/// Closing: every refusal (framing error, limit, 408) is answered with `Connection: close`,
/// after which the machine never parses another byte of that connection. A connection that
/// closes after a response first shuts down its write side and reads-and-discards input for a
/// short while (`closeAfterDraining`): closing a socket with unread input makes the kernel send
/// a reset, which can destroy the response before the client has read it.
///
/// Deadlines (all totals counted from the request's start, so neither trickling bytes nor a
/// late first byte can extend them; see ``HTTPTimeouts``): a new connection must finish its
/// first head within `requestHead` of its accept; a kept-alive connection may idle for `idle`
/// after the previous response, then is closed silently, and once a byte of the next request
/// arrives its head must finish within `requestHead` of that byte but never after the idle
/// deadline; the body must finish within `requestBody` after the head deadline (else 408); a
/// response must be written within `write` (else the connection is dropped). No deadline runs
/// while the responder works.
///
/// `Expect: 100-continue`: the head is first shown to `headCheck` (routing, plausible
/// credentials); a refusal is sent as the final response without a 100, and the connection
/// closes without reading the body.
package struct HTTPConnectionStateMachine<Clock: HTTPConnectionClock> {
    /// What the driver must do next.
    package enum Action: Equatable {
        /// Nothing.
        case none
        /// Read the socket (resume if reading was stopped).
        case startReading
        /// Write these bytes (a `100 Continue`) and keep reading.
        case writeInterim([UInt8])
        /// Stop reading and hand this request to the responder; call `responseReady` with its
        /// response and `sequence`.
        case dispatch(HTTPRequest)
        /// Stop reading and write this final response; call `writeCompleted` once every byte is out.
        case write([UInt8])
        /// Shut down the write side, keep reading and discarding until EOF or `deadline`, then close.
        case closeAfterDraining
        /// Close the socket now.
        case close
    }

    enum State: Equatable {
        /// Between requests (or before the first); `fresh` until the first request completes.
        case idle(fresh: Bool)
        /// Some bytes of a request arrived; parsing head or body.
        case receiving
        /// A complete request is with the responder.
        case awaitingResponse
        /// A final response is being written.
        case writing(close: Bool)
        /// Write side shut; discarding input before closing.
        case draining
        case closed
    }

    /// Most octets discarded while draining before giving up and closing anyway.
    static var drainLimit: Int { 256 * 1024 }

    package let clock: Clock
    let limits: HTTPLimits
    let headTimeout: UInt64
    let bodyTimeout: UInt64
    let idleTimeout: UInt64
    let writeTimeout: UInt64
    let lingerTimeout: UInt64
    /// The connection's client as per-address limits count it: the TCP peer, or the source its
    /// PROXY header names. A request's own address may differ (``ClientAddress``).
    package private(set) var remoteAddress: String
    /// The peers whose forwarding headers and PROXY header are believed.
    let trustedProxies: TrustedProxies
    /// The connection's client (the peer, or the PROXY header's source) when it is a trusted
    /// proxy, whose requests' forwarding headers then name the client; nil otherwise.
    private var forwardingPeer: IPAddress?
    /// Reads the PROXY header before any HTTP: set for a trusted peer when the protocol is on.
    private var proxyParser: ProxyProtocolParser?
    /// The responder's answer to a refusal (``HTTPResponder/refused(_:)``).
    let refusals: @Sendable (HTTPRefusal) -> HTTPResponse
    /// The responder's rendering of the server's own answers (``HTTPResponder/answer(status:message:headers:)``).
    let answers: @Sendable (Int, String, HTTPHeaders) -> HTTPResponse
    /// Judges a head (as a request without body) before `100 Continue` is sent; nil lets it continue.
    let headCheck: ((HTTPRequest) -> HTTPResponse?)?
    /// The loop's share of the request-buffer memory; nil: unbounded.
    let budget: RequestBufferBudget?
    /// What this connection's buffers count against `budget`.
    private var accounted = 0

    private(set) var state: State
    /// When `deadlinePassed` must be called; nil while the responder works.
    package private(set) var deadline: UInt64?
    /// When the connection last became idle (accepted, or its last response written).
    package private(set) var idleSince: UInt64
    /// Identifies the request in flight, so a late or repeated `respond` is ignored.
    package private(set) var sequence: UInt64 = 0
    private var parser: HTTPRequestParser
    private var head: HTTPRequestHead?
    private var body: [UInt8] = []
    private var parked: [UInt8] = []
    private var parkedOffset = 0
    private var inputClosed = false
    private var shuttingDown = false
    private var drained = 0

    /// A machine for a connection accepted now from `remoteAddress` (a limit key), or, when
    /// `peer` is given, from `peer`: then a trusted peer's forwarding headers name each request's
    /// client, and with `proxyProtocol` it must open with a PROXY header naming the connection's.
    package init(limits: HTTPLimits, timeouts: HTTPTimeouts, remoteAddress: String = "", peer: IPAddress? = nil,
                 trustedProxies: TrustedProxies = .none, proxyProtocol: Bool = false, clock: Clock,
                 refusals: @escaping @Sendable (HTTPRefusal) -> HTTPResponse = { $0.defaultResponse },
                 answers: @escaping @Sendable (Int, String, HTTPHeaders) -> HTTPResponse = { .plain(status: $0, message: $1, headers: $2) },
                 headCheck: ((HTTPRequest) -> HTTPResponse?)? = nil, budget: RequestBufferBudget? = nil) {
        self.refusals = refusals
        self.answers = answers
        self.headCheck = headCheck
        self.budget = budget
        self.clock = clock
        self.limits = limits
        headTimeout = timeouts.requestHead.nanoseconds
        bodyTimeout = timeouts.requestBody.nanoseconds
        idleTimeout = timeouts.idle.nanoseconds
        writeTimeout = timeouts.write.nanoseconds
        lingerTimeout = timeouts.linger.nanoseconds
        self.remoteAddress = peer?.limitKey ?? remoteAddress
        self.trustedProxies = trustedProxies
        if let peer, trustedProxies.contains(peer) {
            forwardingPeer = peer
            if proxyProtocol { proxyParser = ProxyProtocolParser() }
        }
        parser = HTTPRequestParser(limits: limits)
        state = .idle(fresh: true)
        idleSince = clock.nanoseconds
        deadline = clock.nanoseconds &+ headTimeout
    }

    /// Whether the driver should read the socket now.
    package var wantsInput: Bool {
        switch state {
        case .idle, .receiving, .draining: !inputClosed
        case .awaitingResponse, .writing, .closed: false
        }
    }

    /// No request in progress and none pending: closing loses nothing (eviction candidates).
    package var isIdle: Bool {
        if case .idle = state { return parkedOffset >= parked.count }
        return false
    }

    /// True once the machine asked for the socket to close (or it was closed).
    package var isClosed: Bool { state == .closed }

    /// The connection must still send its PROXY header before anything else.
    package var awaitingProxyHeader: Bool { proxyParser != nil }

    /// Refuses the connection because its client holds its share of connections (found out once
    /// the PROXY header or a request named the client): 503 with `Retry-After`, then close.
    package mutating func refuseAddressFull() -> Action {
        refuse(status: 503, message: "too many connections from one address", retryAfter: 1)
    }

    /// Bytes read from the socket.
    package mutating func bytesReceived(_ input: UnsafeRawBufferPointer) -> Action {
        let action = receive(input)
        guard let budget, !isClosed else { return action }
        let holding = parser.headBytes.capacity + body.capacity + parked.capacity
        let withinBudget = budget.update(from: accounted, to: holding)
        accounted = holding
        // Over the loop's share and growing with a request still arriving: refuse it, which
        // returns its buffers. (Bytes parked behind a dispatched request are at most one read.)
        guard !withinBudget, state == .receiving else { return action }
        return refuse(status: 503, message: "request buffers are full; retry later", retryAfter: 1)
    }

    /// The bytes held in buffers now (counted against the budget).
    package var bufferedBytes: Int { accounted }

    private mutating func receive(_ input: UnsafeRawBufferPointer) -> Action {
        switch state {
        case .idle, .receiving:
            if proxyParser != nil { return receiveProxyHeader(input) }
            if parkedOffset < parked.count {
                parked.append(contentsOf: input)
                return processParked()
            }
            return process(input, parked: false)
        case .awaitingResponse, .writing:
            parked.append(contentsOf: input)
            return .none
        case .draining:
            drained += input.count
            if drained > Self.drainLimit { return closeNow() }
            return .none
        case .closed:
            return .none
        }
    }

    /// Bytes before the PROXY header is complete: the rest of a read that completes it is HTTP.
    /// Anything but a valid header closes the connection unanswered (the peer does not speak
    /// HTTP yet, or is not the proxy it should be).
    private mutating func receiveProxyHeader(_ input: UnsafeRawBufferPointer) -> Action {
        guard var header = proxyParser else { return .none }
        let (event, consumed) = header.parse(input)
        proxyParser = header
        switch event {
        case .needMoreData:
            return .startReading
        case .error:
            return closeNow()
        case .header(let said):
            proxyParser = nil
            if case .proxied(let source, _, _, _) = said {
                remoteAddress = source.limitKey
                forwardingPeer = trustedProxies.contains(source) ? source : nil
            }
            guard consumed < input.count else { return .startReading }
            return process(UnsafeRawBufferPointer(rebasing: input[consumed...]), parked: false)
        }
    }

    /// The peer shut down its write side (read returned 0).
    package mutating func peerClosed() -> Action {
        inputClosed = true
        switch state {
        case .idle, .receiving, .draining:
            // Nothing more can arrive: an incomplete request can never complete.
            return closeNow()
        case .awaitingResponse, .writing, .closed:
            return .none
        }
    }

    /// The responder's answer to request `sequence`.
    package mutating func responseReady(_ response: HTTPResponse, sequence: UInt64) -> Action {
        guard state == .awaitingResponse, sequence == self.sequence, let head else { return .none }
        self.head = nil
        self.sequence &+= 1
        let close = !head.keepAlive || shuttingDown || (inputClosed && parkedOffset >= parked.count)
            || self.sequence >= UInt64(limits.maxRequestsPerConnection)
        let encoded = HTTPResponseEncoder.encode(response, isHEAD: head.method == "HEAD", version: head.version,
                                                 close: close, clock: clock, answers: answers)
        state = .writing(close: encoded.close)
        deadline = clock.nanoseconds &+ writeTimeout
        return .write(encoded.bytes)
    }

    /// Every byte of the last `.write` reached the socket.
    package mutating func writeCompleted() -> Action {
        let action = afterWrite()
        releaseBuffers()
        return action
    }

    private mutating func afterWrite() -> Action {
        guard case .writing(let close) = state else { return .none }
        if close {
            parked = []
            parkedOffset = 0
            state = .draining
            deadline = clock.nanoseconds &+ lingerTimeout
            return .closeAfterDraining
        }
        if shuttingDown { return closeNow() }
        state = .idle(fresh: false)
        idleSince = clock.nanoseconds
        deadline = clock.nanoseconds &+ idleTimeout
        if parkedOffset < parked.count { return processParked() }
        if inputClosed { return closeNow() }
        return .startReading
    }

    /// Call when `clock` has reached `deadline`.
    package mutating func deadlinePassed() -> Action {
        guard let deadline, clock.nanoseconds >= deadline else { return .none }
        switch state {
        case .idle, .writing, .draining:
            // Idle keep-alive and new silent connections close without a 408 (no request exists);
            // a client that does not read its response, or lingers, is simply dropped.
            return closeNow()
        case .receiving:
            return refuse(status: 408, message: "request not received in time")
        case .awaitingResponse, .closed:
            return .none
        }
    }

    /// Graceful shutdown: close if idle, otherwise finish the request in progress and close after
    /// its response.
    package mutating func shutdown() -> Action {
        shuttingDown = true
        if case .idle = state { return closeNow() }
        return .none
    }

    /// The driver closed the socket (error, reset, forced shutdown).
    package mutating func closed() {
        state = .closed
        deadline = nil
        parked = []
        body = []
        head = nil
        parser = HTTPRequestParser(limits: limits)
        releaseBuffers()
    }

    /// Gives back what the budget counts for this connection (after a dispatch, a refusal, a close).
    private mutating func releaseBuffers() {
        guard let budget else { return }
        let holding = state == .closed ? 0 : parser.headBytes.capacity + body.capacity + parked.capacity
        _ = budget.update(from: accounted, to: holding)
        accounted = holding
    }

    private mutating func closeNow() -> Action {
        closed()
        return .close
    }

    private mutating func refuse(status: Int, message: String, retryAfter: Int? = nil) -> Action {
        let requestLine = head.map { ($0.method, $0.target) } ?? parser.requestLine
        var response = refusals(HTTPRefusal(status: status, message: message, method: requestLine?.0, target: requestLine?.1,
                                            retryAfter: retryAfter))
        response.status = status
        if let retryAfter { response.headers.replaceOrAdd(name: "Retry-After", value: String(retryAfter)) }
        return writeAndClose(response, isHEAD: parser.methodIsHEAD, version: .http1_1)
    }

    /// A final response refusing the request before its body: sent with `Connection: close`.
    private mutating func refuse(_ response: HTTPResponse) -> Action {
        writeAndClose(response, isHEAD: head.map { $0.method == "HEAD" } ?? parser.methodIsHEAD,
                      version: head?.version ?? .http1_1)
    }

    /// Drops whatever was read (nothing more is parsed) and writes `response` as the last one.
    private mutating func writeAndClose(_ response: HTTPResponse, isHEAD: Bool, version: HTTPVersion) -> Action {
        parser = HTTPRequestParser(limits: limits)
        parked = []
        parkedOffset = 0
        body = []
        head = nil
        state = .writing(close: true)
        deadline = clock.nanoseconds &+ writeTimeout
        releaseBuffers()
        return .write(HTTPResponseEncoder.encode(response, isHEAD: isHEAD, version: version, close: true, clock: clock,
                                                 answers: answers).bytes)
    }

    private func request(_ head: HTTPRequestHead, body: [UInt8]) -> HTTPRequest {
        let client = forwardingPeer.map { ClientAddress.resolve(peer: $0, headers: head.headers, trusted: trustedProxies).limitKey }
        return HTTPRequest(method: head.method, target: head.target, path: head.path, query: head.query,
                           version: head.version, headers: head.headers, body: body, remoteAddress: client ?? remoteAddress)
    }

    private mutating func processParked() -> Action {
        let bytes = parked
        let start = parkedOffset
        return bytes.withUnsafeBytes { buffer in
            process(UnsafeRawBufferPointer(rebasing: buffer[start...]), parked: true)
        }
    }

    /// Runs the parser over `input` until it needs more, completes a request, or fails.
    private mutating func process(_ input: UnsafeRawBufferPointer, parked fromParked: Bool) -> Action {
        if case .idle(let fresh) = state, !input.isEmpty {
            state = .receiving
            // A new connection's head deadline runs from its accept and stays; a kept-alive one
            // gets `requestHead` from this first byte, but never past the idle deadline already set.
            if !fresh { deadline = Swift.min(deadline ?? .max, clock.nanoseconds &+ headTimeout) }
        }
        var offset = 0
        var sendContinue = false
        while true {
            let (event, consumed) = parser.parse(UnsafeRawBufferPointer(rebasing: input[offset...]))
            let eventStart = offset
            offset += consumed
            switch event {
            case .needMoreData:
                if fromParked {
                    parked = []
                    parkedOffset = 0
                }
                if inputClosed { return closeNow() }
                if sendContinue { return .writeInterim(HTTPResponseEncoder.continueResponse) }
                return .startReading
            case .head(let newHead):
                // No reservation up front: a declared length is not a promise, and reserving it for
                // every unfinished body is what let 9,900 of them take 600 MiB (issue 8).
                // The body's deadline follows the head's, not the moment the head happened to end.
                if newHead.framing != .none { deadline = (deadline ?? clock.nanoseconds) &+ bodyTimeout }
                head = newHead
                // 100 only while no body byte has arrived (a client that did not wait needs none),
                // and only for a head the responder would accept.
                if newHead.expectsContinue && offset == input.count {
                    if let refusal = headCheck?(request(newHead, body: [])) { return refuse(refusal) }
                    sendContinue = true
                }
            case .body(let range):
                body.append(contentsOf: UnsafeRawBufferPointer(rebasing: input[(eventStart + range.lowerBound)..<(eventStart + range.upperBound)]))
            case .end:
                if fromParked {
                    parkedOffset += offset
                    if parkedOffset >= parked.count {
                        parked = []
                        parkedOffset = 0
                    }
                } else if offset < input.count {
                    parked = Array(UnsafeRawBufferPointer(rebasing: input[offset...]))
                    parkedOffset = 0
                }
                guard let head else { preconditionFailure("end without head") }
                state = .awaitingResponse
                deadline = nil
                let complete = request(head, body: body)
                body = []
                releaseBuffers()
                return .dispatch(complete)
            case .error(let error):
                return refuse(status: error.httpStatus, message: error.description)
            }
        }
    }
}
