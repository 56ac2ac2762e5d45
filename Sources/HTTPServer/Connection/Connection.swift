import Glibc

/// One accepted socket and its state machine, owned by one event loop and touched only on that
/// loop's thread (the `@unchecked Sendable` only lets a `respond` closure carry it back to the
/// loop, which checks the thread before touching it).
///
/// The socket is registered edge-triggered for input and output once, for its whole life, so
/// pausing and resuming reads costs no epoll_ctl: `readable`/`writable` remember the last edge,
/// reading simply stops while the machine does not want input, and resumes by reading until
/// EAGAIN (or a short read) whenever it wants input again.
final class Connection: @unchecked Sendable {
    let fd: Int32
    let slot: Int
    let generation: UInt32
    /// The key the connection table counts this connection under (memory only, never logged):
    /// its peer's, a trusted proxy's uncapped one, then the client's once the PROXY header or a
    /// request names it.
    var tableKey: String
    /// Still to check the client the PROXY header names against its share of the table.
    private var awaitingProxyHeader: Bool
    unowned let loop: EventLoop
    var machine: HTTPConnectionStateMachine<SystemConnectionClock>

    var readable = false
    var writable = true
    var peerHalfClosed = false
    var outbound: [UInt8] = []
    var outboundOffset = 0
    /// The outbound bytes end with a final response: report `writeCompleted` when flushed.
    var finalResponsePending = false
    var isClosed = false
    var inReadyList = false
    var inFlushList = false
    var dispatchedAt: UInt64 = 0
    var requestForLog: HTTPRequest?

    /// Reads per loop iteration before yielding to other connections (each up to the loop buffer
    /// size). Counted per iteration, not per read pass: each answer starts a new pass, and a
    /// client pipelining without pause would otherwise keep its loop from everyone else. One
    /// read: beside 50 connections pipelining 64 KiB bodies on the same loop, a redemption waited
    /// at most 27–38 ms against 53–100 ms with four (bench/hostile fairness); a request of the
    /// protocol fits one read. The price: under a flood of unfinished 64 KiB bodies more of them
    /// are partly read at once (peak RSS 154 MiB against 114 MiB, under the buffers' cap).
    static let readBudget = 1
    /// Reads left in the loop iteration `budgetIteration`.
    var readsLeft = 0
    var budgetIteration: UInt64 = .max

    init(fd: Int32, slot: Int, generation: UInt32, loop: EventLoop, peer: Peer) {
        self.fd = fd
        self.slot = slot
        self.generation = generation
        tableKey = peer.tableKey
        self.loop = loop
        let configuration = loop.context.configuration
        machine = HTTPConnectionStateMachine(limits: configuration.limits, timeouts: configuration.timeouts,
                                             remoteAddress: peer.tableKey, peer: peer.address,
                                             trustedProxies: configuration.trustedProxies,
                                             proxyProtocol: configuration.proxyProtocol, clock: loop.clock,
                                             refusals: loop.context.refusals, answers: loop.context.answers,
                                             headCheck: { [responder = loop.context.responder] in responder.checkHead($0) },
                                             budget: loop.budget)
        awaitingProxyHeader = machine.awaitingProxyHeader
    }

    /// Counts this connection under `client` from now on, if that client holds less than its
    /// share; false leaves it where it was.
    private func claimSlot(for client: String) -> Bool {
        guard client != tableKey else { return true }
        guard loop.context.table.move(from: tableKey, to: client) else { return false }
        tableKey = client
        return true
    }

    var tag: UInt64 { UInt64(generation) << 32 | UInt64(slot) }

    /// Executes `action` and whatever follows from it until the machine waits on I/O or the responder.
    func perform(_ first: HTTPConnectionStateMachine<SystemConnectionClock>.Action) {
        var action = first
        while !isClosed {
            switch action {
            case .none:
                return
            case .startReading:
                action = readAvailable()
            case .writeInterim(let bytes):
                enqueue(bytes)
                action = flush()
                if action == .none { action = .startReading }
            case .dispatch(let request):
                action = dispatch(request)
            case .write(let bytes):
                enqueue(bytes)
                finalResponsePending = true
                // Sent at the end of the loop's iteration, with the other answers made in it.
                loop.flushAtEndOfIteration(self)
                return
            case .closeAfterDraining:
                shutdown(fd, Int32(SHUT_WR))
                action = .startReading
            case .close:
                loop.close(self)
                return
            }
        }
    }

    /// Reads while the machine wants input and the socket has data.
    private func readAvailable() -> HTTPConnectionStateMachine<SystemConnectionClock>.Action {
        if budgetIteration != loop.iteration {
            budgetIteration = loop.iteration
            readsLeft = Self.readBudget
        }
        let buffer = loop.readBuffer
        while machine.wantsInput && readable {
            guard readsLeft > 0 else {
                loop.scheduleRead(self)
                return .none
            }
            readsLeft -= 1
            let n = recv(fd, buffer.baseAddress, buffer.count, 0)
            if n > 0 {
                // A short read emptied the socket; edge-triggered epoll reports the next arrival
                // (a FIN seen with this data was reported as RDHUP: read on to collect the EOF).
                if n < buffer.count && !peerHalfClosed { readable = false }
                var action = machine.bytesReceived(UnsafeRawBufferPointer(rebasing: buffer[0..<n]))
                if awaitingProxyHeader && !machine.awaitingProxyHeader {
                    awaitingProxyHeader = false
                    if !machine.isClosed && !claimSlot(for: machine.remoteAddress) { action = machine.refuseAddressFull() }
                }
                switch action {
                case .none, .startReading: continue
                default: return action
                }
            } else if n == 0 {
                readable = false
                return machine.peerClosed()
            } else {
                switch errno {
                case EAGAIN, EWOULDBLOCK:
                    readable = false
                case EINTR:
                    continue
                default:
                    return .close
                }
            }
        }
        return .none
    }

    private func enqueue(_ bytes: [UInt8]) {
        if outboundOffset >= outbound.count {
            outbound = bytes
            outboundOffset = 0
        } else {
            outbound.append(contentsOf: bytes)
        }
    }

    /// Writes queued bytes until done or the socket is full.
    func flush() -> HTTPConnectionStateMachine<SystemConnectionClock>.Action {
        guard writable else { return .none }
        while outboundOffset < outbound.count {
            let n = outbound.withUnsafeBytes { bytes in
                send(fd, bytes.baseAddress! + outboundOffset, bytes.count - outboundOffset, Int32(MSG_NOSIGNAL))
            }
            if n >= 0 {
                outboundOffset += n
            } else {
                switch errno {
                case EAGAIN, EWOULDBLOCK:
                    writable = false
                    return .none
                case EINTR:
                    continue
                default:
                    return .close
                }
            }
        }
        outbound = []
        outboundOffset = 0
        if finalResponsePending {
            finalResponsePending = false
            return machine.writeCompleted()
        }
        return .none
    }

    private func dispatch(_ request: HTTPRequest) -> HTTPConnectionStateMachine<SystemConnectionClock>.Action {
        // Through a trusted proxy the client may change from one request to the next.
        guard claimSlot(for: request.remoteAddress) else { return machine.refuseAddressFull() }
        let context = loop.context
        if context.configuration.onResponse != nil {
            dispatchedAt = SystemConnectionClock.monotonicNanoseconds()
            requestForLog = request
        }
        let sequence = machine.sequence
        let loop = self.loop
        loop.beginInline(self, sequence: sequence)
        context.responder.handle(request) { [self] response in
            loop.respond(self, sequence: sequence, response: response)
        }
        guard let response = loop.endInline() else { return .none }
        return deliver(response, sequence: sequence)
    }

    /// Feeds the responder's answer to the machine (on the loop thread).
    func deliver(_ response: HTTPResponse, sequence: UInt64) -> HTTPConnectionStateMachine<SystemConnectionClock>.Action {
        guard !isClosed else { return .none }
        let action = machine.responseReady(response, sequence: sequence)
        if action != .none, let onResponse = loop.context.configuration.onResponse, let request = requestForLog {
            requestForLog = nil
            onResponse(request, response, SystemConnectionClock.monotonicNanoseconds() &- dispatchedAt)
        }
        return action
    }
}

/// A connection's peer as accepted: its address (nil if the kernel gave none the server reads)
/// and the connection table key it was admitted under.
struct Peer: Sendable {
    let address: IPAddress?
    let tableKey: String
}
