import Foundation
import Glibc
import Locking

/// One thread, one epoll instance, its descriptor of the shared listening socket, and the
/// connections accepted on it.
///
/// - Listener: level-triggered, accepted in batches of at most `acceptBatch` per wake-up so a
///   connection flood cannot starve the connections already open. Each new connection is
///   admitted by the ``ConnectionPolicy`` (per-address share, table size, idle eviction); a
///   refused one is answered 503 with `Retry-After` and closed. On EMFILE/ENFILE the loop closes
///   its spare descriptor to accept and answer one connection with 503, reports the shortage
///   (at most once per 10 s), and pauses the listener with a growing back-off (50 ms to 1 s).
/// - Connections: edge-triggered for input and output, registered once (see `Connection`).
///   Reads go into one loop-wide buffer; a connection keeps only what it has not consumed, so
///   an idle keep-alive connection costs its object and state machine (well under 2 KiB of
///   heap) plus kernel socket buffers.
/// - Timers: no timer per connection. Each connection's state machine exposes one `deadline`;
///   a sweep every `timerResolution` compares it with the clock. O(connections) per sweep,
///   nothing allocated when a deadline moves (which happens several times per request).
/// - Answers: a final response is sent at the end of the iteration that made it, together
///   with the other answers of that iteration. On a machine shared with its clients, each send
///   woke a client that then preempted the loop in the middle of its batch; sent together, one
///   wake-up serves them all (issue 17: the signed rate rose by 10–20% and system time fell
///   from 33 to 19 µs a request). Groups are at most `answerGroup` answers: a whole batch of 32
///   connections' signed requests, verified one after another, held the first answer about
///   5 ms (issue 17: p99 ÷ p50 of the signed path 1.9 from 2.3 in interleaved runs, at the same
///   CPU a request). Only the sending is grouped; what is read, and in which order, is not.
/// - Balance: the loop that accepts a connection hands it to the loop with the fewest
///   (``LoopBalance``), through that loop's inbox, as requests are answered where they are read.
/// - Other threads (responders answering later, connections handed over, shutdown) reach the
///   loop through a locked inbox and an eventfd; writes to the eventfd are coalesced while a
///   wake-up is pending.
///
/// `@unchecked Sendable`: other threads call only `requestShutdown`, `respond` and `handOver`,
/// which touch the inbox under `shared`'s lock (or, on the loop's own thread, the loop-local inbox);
/// `peers` is set before any loop runs and never changes; everything else is used on the loop's
/// thread alone.
final class EventLoop: @unchecked Sendable {
    let context: ServerContext
    /// This loop's place in ``ServerContext/balance`` and in `peers`.
    let index: Int
    /// Every loop of the server by index, this one included: set before the loops run.
    var peers: [EventLoop] = []
    let clock = SystemConnectionClock()
    let readBuffer: UnsafeMutableRawBufferPointer
    /// This loop's share of the request-buffer memory.
    let budget: RequestBufferBudget

    private let epoll: Int32
    private let wakeFD: Int32
    private var listener: Int32
    private let events: UnsafeMutableRawPointer
    private let maxEvents: Int32 = 256
    /// Answers sent together at most: past this many, the iteration sends them before reading on.
    private static let answerGroup = 16
    private static let listenerTag: UInt64 = 0
    private static let wakeTag: UInt64 = 1
    private static let acceptBatch = 64
    /// The loops share one listening socket; EPOLLEXCLUSIVE wakes one of them per connection
    /// rather than all of them.
    private static let listenerEvents = Linux.epollIn | Linux.epollExclusive

    // Loop-thread state.
    private var connections: [Connection?] = []
    private var freeSlots: [Int] = []
    private var generations: [UInt32] = []
    private var liveConnections = 0
    /// Counts the loop's iterations (each epoll_wait): connections count their reads per iteration.
    private(set) var iteration: UInt64 = 0
    private var readyToRead: [Connection] = []
    private var readyToFlush: [Connection] = []
    private var localInbox: [(Connection, UInt64, HTTPResponse)] = []
    private var inlineConnection: Connection?
    private var inlineSequence: UInt64 = 0
    private var inlineResponse: HTTPResponse?
    private var loopThread = pthread_t()
    private var stopping = false
    private var forceCloseAt: UInt64 = .max
    private var listenerPausedUntil: UInt64 = 0
    private var listenerBackoff: UInt64 = 0
    private var listenerRegistered = false
    /// A descriptor held back (on /dev/null) so that a connection can still be accepted and
    /// answered when the process runs out of descriptors.
    private var spareFD: Int32 = -1

    /// What other threads hand the loop, read by the loop when the eventfd wakes it.
    private struct Inbox {
        var responses: [(Connection, UInt64, HTTPResponse)] = []
        /// Connections another loop accepted for this one: descriptor and peer address.
        var arrivals: [(Int32, Peer)] = []
        var wakePending = false
        var shutdownRequested = false

        /// Whether the caller must write the eventfd (no wake-up is pending yet).
        mutating func needsWake() -> Bool {
            defer { wakePending = true }
            return !wakePending
        }
    }
    private let shared = LockedValueBox(Inbox())

    init(context: ServerContext, index: Int, listener: Int32) throws {
        self.context = context
        self.index = index
        self.listener = listener
        let epoll = Linux.epollCreate1(Linux.closeOnExec)
        guard epoll >= 0 else { throw HTTPServerError(operation: "epoll_create1", code: errno) }
        let wakeFD = Linux.eventfd(0, Linux.nonBlocking | Linux.closeOnExec)
        guard wakeFD >= 0,
              Linux.epollAdd(epoll, wakeFD, events: Linux.epollIn, tag: Self.wakeTag),
              Linux.epollAdd(epoll, listener, events: Self.listenerEvents, tag: Self.listenerTag) else {
            let error = HTTPServerError(operation: "eventfd/epoll_ctl", code: errno)
            if wakeFD >= 0 { Glibc.close(wakeFD) }
            Glibc.close(epoll)
            throw error
        }
        self.epoll = epoll
        self.wakeFD = wakeFD
        listenerRegistered = true
        readBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 16)
        budget = RequestBufferBudget(limit: context.configuration.maxBufferedRequestBytes / context.configuration.loopCount)
        spareFD = Glibc.open("/dev/null", O_RDONLY | O_CLOEXEC)
        events = UnsafeMutableRawPointer.allocate(byteCount: Int(maxEvents) * Linux.epollEventSize, alignment: 8)
    }

    deinit {
        // Closed only here: a late `respond` from another thread may still write to wakeFD.
        Glibc.close(wakeFD)
        Glibc.close(epoll)
        if listener >= 0 { Glibc.close(listener) }
        if spareFD >= 0 { Glibc.close(spareFD) }
        // Handed over by a loop still accepting after this one stopped (shutdown only).
        for (fd, _) in shared.withLock({ $0.arrivals }) { Glibc.close(fd) }
        readBuffer.deallocate()
        events.deallocate()
    }

    /// The loop body; returns when shut down and every connection is closed.
    func run() {
        loopThread = pthread_self()
        let resolution = max(1, context.configuration.timeouts.timerResolution.nanoseconds)
        let resolutionMilliseconds = Int32(clamping: max(1, resolution / 1_000_000))
        var nextSweep = clock.nanoseconds &+ resolution
        while true {
            let timeout: Int32 = readyToRead.isEmpty && localInbox.isEmpty ? resolutionMilliseconds : 0
            let count = Linux.epollWait(epoll, events, maxEvents, timeout)
            if count < 0 && errno != EINTR { fatalError("epoll_wait: \(String(cString: strerror(errno)))") }
            clock.tick()
            iteration &+= 1
            for index in 0..<Int(max(0, count)) {
                let event = events + index * Linux.epollEventSize
                let flags = event.loadUnaligned(as: UInt32.self)
                let tag = event.loadUnaligned(fromByteOffset: Linux.epollDataOffset, as: UInt64.self)
                switch tag {
                case Self.listenerTag: acceptConnections()
                case Self.wakeTag: drainWakeups()
                default: handle(flags, tag: tag)
                }
                if readyToFlush.count >= Self.answerGroup { flushAnswers() }
            }
            processLocalInbox()
            processReadyList()
            let now = clock.nanoseconds
            if now >= nextSweep {
                sweep(now: now)
                nextSweep = now &+ resolution
            }
            // Last, so that nothing queued for sending waits through the next epoll_wait.
            flushAnswers()
            if stopping && liveConnections == 0 { break }
        }
        closeListener()
        // The loops refer to each other until they stop; the server lets go of them after that.
        peers = []
    }

    // MARK: Cross-thread entry points

    /// Asks the loop to shut down gracefully (any thread).
    func requestShutdown() {
        let wake = shared.withLock { inbox in
            inbox.shutdownRequested = true
            return inbox.needsWake()
        }
        if wake { signalWake() }
    }

    /// Delivers a responder's answer (any thread).
    func respond(_ connection: Connection, sequence: UInt64, response: HTTPResponse) {
        if pthread_equal(pthread_self(), loopThread) != 0 {
            if inlineConnection === connection && inlineSequence == sequence && inlineResponse == nil {
                inlineResponse = response
            } else {
                localInbox.append((connection, sequence, response))
            }
            return
        }
        let wake = shared.withLock { inbox in
            inbox.responses.append((connection, sequence, response))
            return inbox.needsWake()
        }
        if wake { signalWake() }
    }

    /// Gives this loop a connection another loop accepted and admitted (any thread).
    func handOver(_ fd: Int32, peer: Peer) {
        let wake = shared.withLock { inbox in
            inbox.arrivals.append((fd, peer))
            return inbox.needsWake()
        }
        if wake { signalWake() }
    }

    private func signalWake() {
        var one: UInt64 = 1
        _ = write(wakeFD, &one, 8)
    }

    // MARK: Loop-thread helpers used by Connection

    func beginInline(_ connection: Connection, sequence: UInt64) {
        inlineConnection = connection
        inlineSequence = sequence
        inlineResponse = nil
    }

    func endInline() -> HTTPResponse? {
        inlineConnection = nil
        defer { inlineResponse = nil }
        return inlineResponse
    }

    /// Sends `connection`'s queued answer at the end of this iteration.
    func flushAtEndOfIteration(_ connection: Connection) {
        guard !connection.inFlushList else { return }
        connection.inFlushList = true
        readyToFlush.append(connection)
    }

    /// Continues reading `connection` on the next iteration (its read budget ran out).
    func scheduleRead(_ connection: Connection) {
        guard !connection.inReadyList else { return }
        connection.inReadyList = true
        readyToRead.append(connection)
    }

    func close(_ connection: Connection) {
        guard !connection.isClosed else { return }
        connection.isClosed = true
        connection.machine.closed()
        Linux.epollRemove(epoll, connection.fd)
        Glibc.close(connection.fd)
        connections[connection.slot] = nil
        freeSlots.append(connection.slot)
        liveConnections -= 1
        context.table.release(connection.tableKey)
        context.balance.release(index)
    }

    // MARK: Events

    private func handle(_ flags: UInt32, tag: UInt64) {
        let slot = Int(tag & 0xFFFF_FFFF)
        guard slot < connections.count, let connection = connections[slot],
              connection.generation == UInt32(tag >> 32) else { return }
        if flags & Linux.epollErr != 0 {
            close(connection)
            return
        }
        if flags & Linux.epollRdHup != 0 { connection.peerHalfClosed = true }
        if flags & Linux.epollOut != 0 && !connection.writable {
            connection.writable = true
            connection.perform(connection.flush())
        }
        if flags & (Linux.epollIn | Linux.epollRdHup | Linux.epollHup) != 0 && !connection.isClosed {
            connection.readable = true
            if connection.machine.wantsInput {
                connection.perform(.startReading)
            } else if flags & Linux.epollHup != 0 {
                // Both directions are gone (reset): nothing can be delivered any more.
                close(connection)
            }
        }
    }

    private func acceptConnections() {
        for _ in 0..<Self.acceptBatch {
            var address = sockaddr_storage()
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let fd = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    Linux.accept4(listener, $0, &length, Linux.nonBlocking | Linux.closeOnExec)
                }
            }
            if fd < 0 {
                switch errno {
                case EINTR, ECONNABORTED: continue
                case EMFILE, ENFILE:
                    descriptorShortage(errno)
                    return
                case ENOBUFS, ENOMEM:
                    pauseListener()
                    return
                default: return
                }
            }
            listenerBackoff = 0
            guard !stopping else {
                Glibc.close(fd)
                continue
            }
            let peerAddress = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Socket.peerAddress($0, length: length) }
            }
            // A trusted proxy carries many clients: its connections are counted apart and
            // uncapped until the PROXY header or a request names the client.
            let trusted = peerAddress.map(context.configuration.trustedProxies.contains) ?? false
            let key = peerAddress.map { trusted ? ConnectionTable.proxyKey($0) : $0.limitKey } ?? ""
            let remote = Peer(address: peerAddress, tableKey: key)
            switch context.table.admit(key, capped: !trusted) {
            case .accept:
                break
            case .acceptAndEvictIdle:
                evictIdle()
            case .refuseAddressFull:
                refuse(fd, message: "too many connections from one address")
                continue
            case .refuseTableFull:
                refuse(fd, message: "too many connections")
                evictIdle()
                continue
            }
            Socket.setNoDelay(fd)
            let target = context.balance.assign(acceptedBy: index)
            if target == index {
                adopt(fd, peer: remote)
            } else {
                peers[target].handOver(fd, peer: remote)
            }
        }
    }

    /// Registers an admitted connection on this loop; already counted in the table and the balance.
    private func adopt(_ fd: Int32, peer remote: Peer) {
        guard !stopping else {
            Glibc.close(fd)
            context.table.release(remote.tableKey)
            context.balance.release(index)
            return
        }
        let slot: Int
        if let free = freeSlots.popLast() {
            slot = free
        } else {
            slot = connections.count
            connections.append(nil)
            generations.append(0)
        }
        generations[slot] &+= 1
        if generations[slot] == 0 { generations[slot] = 1 }  // generation 0 tags are the listener/eventfd
        let connection = Connection(fd: fd, slot: slot, generation: generations[slot], loop: self, peer: remote)
        connections[slot] = connection
        liveConnections += 1
        let interest = Linux.epollIn | Linux.epollOut | Linux.epollRdHup | Linux.epollET
        if !Linux.epollAdd(epoll, fd, events: interest, tag: connection.tag) { close(connection) }
    }

    /// Answers a connection the policy refused with 503 and closes it. The socket is new and its
    /// send buffer empty, so one non-blocking send carries the whole answer.
    private func refuse(_ fd: Int32, message: String) {
        var response = context.answers(503, message, ["Retry-After": "1"])
        response.status = 503
        let bytes = HTTPResponseEncoder.encode(response, isHEAD: false, version: .http1_1, close: true, clock: clock,
                                               answers: context.answers).bytes
        _ = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
        Glibc.close(fd)
    }

    /// Closes the oldest idle connections of this loop (those with no request in progress).
    private func evictIdle() {
        let count = min(64, max(1, context.table.policy.idleReserve / 8))
        var idle: [(id: Int, since: UInt64)] = []
        for case let connection? in connections where !connection.isClosed && connection.machine.isIdle {
            idle.append((connection.slot, connection.machine.idleSince))
        }
        let victims = ConnectionPolicy.oldestIdle(idle, count: count)
        for slot in victims {
            if let connection = connections[slot] { close(connection) }
        }
        if !victims.isEmpty { context.table.evicted(victims.count) }
    }

    /// Out of descriptors: count and report it, answer one waiting client through the spare
    /// descriptor, and back off from the listener.
    private func descriptorShortage(_ code: Int32) {
        if let occurrences = context.table.descriptorShortage(errno: code, at: clock.nanoseconds),
           let onError = context.configuration.onError {
            let name = code == EMFILE ? "EMFILE" : "ENFILE"
            let whose = code == EMFILE ? "this process's RLIMIT_NOFILE" : "the system's file table"
            onError("accept: \(name) (\(String(cString: strerror(code)))): \(occurrences) time(s) since the last report; "
                    + "\(whose) is exhausted, new connections get 503 until connections close")
        }
        if spareFD >= 0 {
            Glibc.close(spareFD)
            let fd = Linux.accept4(listener, nil, nil, Linux.nonBlocking | Linux.closeOnExec)
            if fd >= 0 { refuse(fd, message: "out of file descriptors") }
            spareFD = Glibc.open("/dev/null", O_RDONLY | O_CLOEXEC)
        }
        listenerBackoff = min(1_000_000_000, max(50_000_000, listenerBackoff &* 2))
        pauseListener()
    }

    private func pauseListener() {
        guard listenerRegistered else { return }
        Linux.epollRemove(epoll, listener)
        listenerRegistered = false
        listenerPausedUntil = clock.nanoseconds &+ max(listenerBackoff, 100_000_000)
    }

    private func closeListener() {
        guard listener >= 0 else { return }
        if listenerRegistered { Linux.epollRemove(epoll, listener) }
        listenerRegistered = false
        Glibc.close(listener)
        listener = -1
    }

    private func drainWakeups() {
        var value: UInt64 = 0
        _ = read(wakeFD, &value, 8)
        let (delivered, arrived, shutdownRequested) = shared.withLock { inbox in
            defer { inbox = Inbox(shutdownRequested: inbox.shutdownRequested) }
            return (inbox.responses, inbox.arrivals, inbox.shutdownRequested)
        }
        let shutdown = shutdownRequested && !stopping
        for (connection, sequence, response) in delivered {
            connection.perform(connection.deliver(response, sequence: sequence))
        }
        for (fd, remote) in arrived { adopt(fd, peer: remote) }
        if shutdown { beginShutdown() }
    }

    private func processLocalInbox() {
        while !localInbox.isEmpty {
            let delivered = localInbox
            localInbox = []
            for (connection, sequence, response) in delivered {
                connection.perform(connection.deliver(response, sequence: sequence))
            }
        }
    }

    private func processReadyList() {
        guard !readyToRead.isEmpty else { return }
        let ready = readyToRead
        readyToRead = []
        for connection in ready {
            connection.inReadyList = false
            if !connection.isClosed && connection.machine.wantsInput { connection.perform(.startReading) }
            if readyToFlush.count >= Self.answerGroup { flushAnswers() }
        }
    }

    /// Sends this iteration's answers; what a flush leads to (a pipelined request read and
    /// answered) is sent in the same pass.
    private func flushAnswers() {
        while !readyToFlush.isEmpty {
            let ready = readyToFlush
            readyToFlush = []
            for connection in ready {
                connection.inFlushList = false
                if !connection.isClosed { connection.perform(connection.flush()) }
            }
        }
    }

    private func beginShutdown() {
        stopping = true
        closeListener()
        forceCloseAt = clock.nanoseconds &+ context.configuration.timeouts.shutdownGrace.nanoseconds
        for case let connection? in connections {
            connection.perform(connection.machine.shutdown())
        }
    }

    /// After a flood, hand freed memory back to the system: glibc keeps freed heap pages (and
    /// each loop thread has its own arena), so RSS would stay at its peak without `malloc_trim`.
    /// Done once this loop's buffers have fallen below an eighth of a peak over 16 MiB.
    private func returnMemoryAfterAFlood() {
        guard budget.highWater > 16 << 20, budget.used < budget.highWater / 8 else { return }
        budget.resetHighWater()
        _ = Linux.mallocTrim(0)
    }

    private func sweep(now: UInt64) {
        returnMemoryAfterAFlood()
        if !listenerRegistered && listener >= 0 && !stopping && now >= listenerPausedUntil {
            listenerRegistered = Linux.epollAdd(epoll, listener, events: Self.listenerEvents, tag: Self.listenerTag)
        }
        let force = stopping && now >= forceCloseAt
        for case let connection? in connections {
            if force {
                close(connection)
            } else if let deadline = connection.machine.deadline, now >= deadline {
                connection.perform(connection.machine.deadlinePassed())
            }
        }
    }
}
