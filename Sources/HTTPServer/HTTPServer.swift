import Foundation
import Glibc
import Locking

/// What every loop of one server shares.
final class ServerContext: Sendable {
    let configuration: HTTPServerConfiguration
    let responder: any HTTPResponder
    /// `responder.refused`, made once rather than per connection.
    let refusals: @Sendable (HTTPRefusal) -> HTTPResponse
    /// `responder.answer`: the server's own answers outside a request.
    let answers: @Sendable (Int, String, HTTPHeaders) -> HTTPResponse
    let table: ConnectionTable
    /// Open connections per loop, where new ones go.
    let balance: LoopBalance

    init(configuration: HTTPServerConfiguration, responder: any HTTPResponder) {
        self.configuration = configuration
        self.responder = responder
        refusals = { [responder] in responder.refused($0) }
        answers = { [responder] in responder.answer(status: $0, message: $1, headers: $2) }
        table = ConnectionTable(policy: ConnectionPolicy(maxConnections: configuration.maxConnections,
                                                         maxPerAddress: configuration.maxConnectionsPerAddress,
                                                         idleReserve: configuration.idleReserve))
        balance = LoopBalance(loops: configuration.loopCount)
    }
}

/// An HTTP/1.1 server on `configuration.loopCount` epoll event-loop threads.
///
/// ```swift
/// let server = HTTPServer(configuration: .init(port: 8080), responder: router)
/// let port = try server.start()
/// server.runUntilTerminated()   // SIGTERM/SIGINT → graceful shutdown
/// ```
public final class HTTPServer: Sendable {
    private let context: ServerContext
    private let lifecycle = Lifecycle()

    /// A server that will answer with `responder`; nothing is bound until `start()`.
    public init(configuration: HTTPServerConfiguration, responder: any HTTPResponder) {
        context = ServerContext(configuration: configuration, responder: responder)
    }

    /// The configuration the server was created with.
    public var configuration: HTTPServerConfiguration { context.configuration }

    /// Binds one listening socket, shared by the loops (each owns a duplicate descriptor of it),
    /// starts the loop threads, and returns the bound port (the configured one, or the free port
    /// picked when it is 0). A second process on the same address fails here: no SO_REUSEPORT.
    /// With `listener`, bound earlier on the configured address, that socket is used instead.
    @discardableResult
    public func start(on listener: HTTPListener? = nil) throws -> Int {
        try lifecycle.start {
            let configuration = context.configuration
            context.table.clamp(maxConnections: DescriptorLimit.fit(connections: configuration.maxConnections,
                                                                    reserved: configuration.descriptorReserve))
            var listeners: [Int32] = []
            var loops: [EventLoop] = []
            do {
                let first = try listener?.take() ?? Socket.listen(host: configuration.host, port: configuration.port)
                listeners.append(first)
                let port = Socket.boundPort(first)
                for _ in 1..<configuration.loopCount {
                    listeners.append(try Socket.duplicate(first))
                }
                for (index, listener) in listeners.enumerated() {
                    loops.append(try EventLoop(context: context, index: index, listener: listener))
                }
                for loop in loops { loop.peers = loops }
                return (loops, port)
            } catch {
                // Each loop created owns (and closes) its listener; close the others.
                for fd in listeners.dropFirst(loops.count) { close(fd) }
                throw error
            }
        }
    }

    /// Graceful shutdown, from any thread, returning at once: stop accepting (new connections are
    /// refused), close idle connections, let requests in progress finish and their responses be
    /// written (for at most `timeouts.shutdownGrace`), then stop the loops.
    public func shutdown() {
        lifecycle.shutdown()
    }

    /// Blocks until every loop has stopped (returns at once if the server never started).
    public func waitUntilStopped() {
        lifecycle.waitUntilStopped()
    }

    /// Connections currently open across all loops (for /metrics).
    public var openConnections: Int { context.table.count }

    /// The connection policy in force (after `start()`, with the limit the descriptors allow).
    public var connectionPolicy: ConnectionPolicy { context.table.policy }

    /// Open connections on each loop, by loop index (tests: new connections are spread).
    package var connectionsPerLoop: [Int] { context.balance.connections }

    /// Counters of the connection policy and the accept loop (for /metrics).
    public var connectionStatistics: ConnectionStatistics { context.table.statistics }

    /// True while `accept` has failed for lack of descriptors in the last 5 s (for /readyz);
    /// it clears by itself once connections close and accepts succeed again.
    public var isShortOfDescriptors: Bool {
        context.table.shortOfDescriptors(now: SystemConnectionClock.monotonicNanoseconds(), window: 5_000_000_000)
    }
}

/// Start/stop bookkeeping shared by `start`, `shutdown` and `waitUntilStopped`.
private final class Lifecycle: Sendable {
    private enum Phase { case created, running, stopped }
    private struct State {
        var phase = Phase.created
        var loops: [EventLoop] = []
        var runningThreads = 0
        var shutdownAsked = false
    }
    private let state = WaitableBox(State())

    func start(_ makeLoops: () throws -> ([EventLoop], Int)) throws -> Int {
        try state.withLock { state in
            guard state.phase == .created else {
                throw HTTPServerError(operation: "start: server already started or stopped", code: EALREADY)
            }
            let (loops, port) = try makeLoops()
            state.loops = loops
            state.phase = .running
            state.runningThreads = loops.count
            for (index, loop) in loops.enumerated() {
                _ = JoinableThread(name: "http-loop-\(index)") { [self] in
                    loop.run()
                    loopFinished()
                }
            }
            if state.shutdownAsked { loops.forEach { $0.requestShutdown() } }
            return port
        }
    }

    func shutdown() {
        let loops = state.withLock { state in
            state.shutdownAsked = true
            if state.phase == .created { state.phase = .stopped }
            return state.loops
        }
        loops.forEach { $0.requestShutdown() }
    }

    func waitUntilStopped() {
        state.wait(until: { $0.phase != .running }, then: { _ in })
    }

    private func loopFinished() {
        state.withLockNotifyingAll { state in
            state.runningThreads -= 1
            if state.runningThreads == 0 {
                state.phase = .stopped
                state.loops = []
            }
        }
    }
}
