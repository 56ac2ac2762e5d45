import Foundation
import Glibc

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
/// `@unchecked Sendable`: every stored variable is read and written only while holding
/// `condition`, which waiting needs (so a LockedValueBox would not do).
private final class Lifecycle: @unchecked Sendable {
    private enum State { case created, running, stopped }
    private let condition = NSCondition()
    private var state = State.created
    private var loops: [EventLoop] = []
    private var runningThreads = 0
    private var shutdownAsked = false

    func start(_ makeLoops: () throws -> ([EventLoop], Int)) throws -> Int {
        condition.lock()
        defer { condition.unlock() }
        guard state == .created else {
            throw HTTPServerError(operation: "start: server already started or stopped", code: EALREADY)
        }
        let (loops, port) = try makeLoops()
        self.loops = loops
        state = .running
        runningThreads = loops.count
        for (index, loop) in loops.enumerated() {
            let thread = Thread { [self] in
                nameCurrentThread("http-loop-\(index)")
                loop.run()
                loopFinished()
            }
            thread.name = "http-loop-\(index)"
            thread.start()
        }
        if shutdownAsked { loops.forEach { $0.requestShutdown() } }
        return port
    }

    func shutdown() {
        condition.lock()
        shutdownAsked = true
        let loops = self.loops
        if state == .created { state = .stopped }
        condition.unlock()
        loops.forEach { $0.requestShutdown() }
    }

    func waitUntilStopped() {
        condition.lock()
        while state == .running {
            condition.wait()
        }
        condition.unlock()
    }

    private func loopFinished() {
        condition.lock()
        runningThreads -= 1
        if runningThreads == 0 {
            state = .stopped
            loops = []
            condition.broadcast()
        }
        condition.unlock()
    }
}
