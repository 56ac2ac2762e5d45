import Dispatch
import Glibc

extension HTTPServer {
    /// Blocks until SIGTERM or SIGINT arrives, then shuts down gracefully and returns once the
    /// loops have stopped. The executable's `serve` is: start, `runUntilTerminated()`, exit 0.
    /// With `onHangup`, SIGHUP calls it (on the signal queue, one at a time) and serving goes on.
    ///
    /// The signals are ignored process-wide from then on (their default action would kill the
    /// process before in-flight responses are written), unless the caller blocked them in every
    /// thread, as `serve` does; Dispatch signal sources observe them.
    public func runUntilTerminated(onHangup: (@Sendable () -> Void)? = nil) {
        let queue = DispatchQueue(label: "http-server.signals")
        var sources: [any DispatchSourceSignal] = []
        var handlers: [(Int32, @Sendable () -> Void)] = [(SIGTERM, { [self] in shutdown() }), (SIGINT, { [self] in shutdown() })]
        if let onHangup { handlers.append((SIGHUP, onHangup)) }
        var blocked = sigset_t()
        pthread_sigmask(SIG_BLOCK, nil, &blocked)
        for (signalNumber, handler) in handlers {
            // A signal the caller blocked stays pending for the source; SIG_IGN would discard it.
            if sigismember(&blocked, signalNumber) != 1 { signal(signalNumber, SIG_IGN) }
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: queue)
            source.setEventHandler(handler: handler)
            source.resume()
            sources.append(source)
        }
        waitUntilStopped()
        sources.forEach { $0.cancel() }
    }
}
