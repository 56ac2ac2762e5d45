import BadgeCore
import CLI
import Foundation
import Gateway
import Handlers
import HTTPServer
import Locking
import Logging
import RequestAuth
import Storage
import Wallet

/// The composition root: builds the store, the issuer, the RPC layer, the gateway and the HTTP
/// server from a checked configuration, and runs them until SIGTERM or SIGINT; SIGHUP reloads.
enum ServiceAssembly {
    /// The `[limits]` failure rules as the gateway takes them.
    static func rateLimitRules(_ config: ServiceConfiguration) -> RateLimits.Configuration {
        func rule(_ failures: Int) -> FailureLimiter.Rule {
            FailureLimiter.Rule(maxFailures: failures, windowSeconds: Int64(config.failureWindowSeconds),
                                blockSeconds: Int64(config.failureBlockSeconds))
        }
        return RateLimits.Configuration(codeFailuresPerKey: rule(config.failedCodesPerKey),
                                        codeFailuresPerAddress: rule(config.failedCodesPerAddress),
                                        frontTokenFailuresPerAddress: rule(config.failedFrontTokensPerAddress))
    }

    static func serve(_ config: ServiceConfiguration) throws -> Int32 {
        // SIGTERM, SIGINT and SIGHUP are blocked here, before any thread exists, so every thread
        // inherits the mask: one that comes while the service starts neither kills it nor is
        // lost, but stays pending until the Dispatch sources of runUntilTerminated read it.
        var observed = sigset_t()
        sigemptyset(&observed)
        for signalNumber in [SIGTERM, SIGINT, SIGHUP] { sigaddset(&observed, signalNumber) }
        pthread_sigmask(SIG_BLOCK, &observed, nil)
        // Every file the configuration names is read now (as config check reads it), so a
        // mistake stops the start before any state is made.
        // The metrics are made once the store is open; calls to providers come after that.
        let metricsCell = LockedValueBox<Metrics?>(nil)
        let storeCall: @Sendable (String, String) -> Void = { store, outcome in
            metricsCell.withLock { $0 }?.recordStoreCall(store: store, outcome: outcome)
        }
        let deployment = try ServiceDeployment(config, clock: systemClock, storeCall: storeCall)
        let providers = try config.paymentProviders(storeCall: storeCall)
        let apple = deployment.apple, coinPacks = deployment.coinPacks
        for warning in config.unusedSectionWarnings(deployedVerifiers: BadgeService.deployedVerifiers) {
            ServiceLog.warning(warning)
        }
        if config.allowDevCoinGrants {
            ServiceLog.warning("[wallet] allow_dev_coin_grants is on: a coin purchase without a store payload grants coins; "
                               + "switch it off wherever real money flows")
        }
        // The address is bound before any state is made: a taken port leaves no data directory,
        // database or key behind. Connections wait in the backlog until the loops start.
        let listener: HTTPListener
        do { listener = try HTTPListener(host: config.listenHost, port: config.listenPort) } catch {
            throw CommandFailure("cannot listen on \(config.listenHost):\(config.listenPort): \(error)")
        }
        // Printed absolute: the default data directory depends on the working directory.
        let dataDirectory = URL(fileURLWithPath: config.dataDirectory).standardizedFileURL.path
        if !FileManager.default.fileExists(atPath: config.dataDirectory) {
            try config.createDataDirectory()
            ServiceLog.info("created data directory \(dataDirectory)")
        }
        // Before the lock file is opened in it (prepare checks again, for init).
        try config.refuseSharedDataDirectory()
        // One serve per data directory on SQLite, held until the process exits; PostgreSQL is
        // made for several instances.
        let lock = config.databaseURL == nil ? try DataDirectoryLock(directory: config.dataDirectory) : nil
        defer { withExtendedLifetime(lock) {} }
        let prepared = try DataDirectorySetup.prepare(config)
        for line in prepared.created { ServiceLog.info(line) }
        let store = prepared.store, keyring = prepared.keyring

        // A database SQLite could open only read-only starts (the operator may fix the mount),
        // but says so now, and /readyz answers 503 with the same reason until it is writable.
        if case .notReady(let reason) = store.readiness() { ServiceLog.warning("not ready: \(reason)") }

        let issuer = KeyringIssuer(keyring: keyring)
        // Play's checks a minute are the deployment's: instances over one PostgreSQL database count
        // them there; SQLite's one instance counts in memory.
        let googlePlay = deployment.googlePlay?.countingChecks(through: store as? any SharedMinuteCounter)
        let service = BadgeService(store: store, issuer: issuer, clock: systemClock, providers: providers, appStore: apple?.funding,
                                   googlePlay: googlePlay,
                                   subscriptionStores: [apple?.subscriptions(products: { StoreProducts(try store.read { try $0.storeProducts() }) })]
                                       .compactMap { $0 },
                                   configuration: .init(reportInternalError: { ServiceLog.error($0) },
                                                        reportProviderFailure: { ServiceLog.warning($0) },
                                                        reportStoreNotification: { ServiceLog.info($0) },
                                                        reportStrandedPayment: { ServiceLog.warning($0) }),
                                   storeNotificationListeners: [WalletRefunds()])
        let reloader = ServiceReloader(keyFile: config.issuerKeyFile, issuer: issuer, service: service, store: store)
        let wallet = WalletService(store: store, packs: coinPacks,
                                   stores: CoinStores(appStore: apple?.serverAPI, googlePlay: googlePlay?.client,
                                                      creditsTestPurchases: config.creditTestPurchases,
                                                      creditsSandbox: config.creditCoinSandbox,
                                                      requiresAccountBinding: config.requireCoinAccountBinding),
                                   allowsDevGrants: config.allowDevCoinGrants, clock: systemClock,
                                   report: { ServiceLog.warning($0) })
        let front: TrustedFront
        do { front = try config.frontToken.map { try TrustedFront.enabled(token: $0) } ?? .disabled } catch {
            throw CommandFailure("[rpc] front_token: \(error)")
        }
        let authenticator = RequestAuthenticator(
            signatures: RequestSignatureVerifier(policy: RequestSignaturePolicy(freshnessWindowSeconds: Int64(config.signatureWindowSeconds))),
            trustedFront: front)
        // The metrics read the server's gauge, but the server is made after them.
        let madeServer = LockedValueBox<HTTPServer?>(nil)
        // Standard output through a bounded buffer: a slow reader drops (and counts) lines, it never stalls serving.
        let accessSink = config.accessLog ? LogSink(fd: STDOUT_FILENO) : nil
        let metrics = Metrics(
            version: BadgeServiceCLI.version,
            openConnections: { madeServer.withLock { $0 }?.openConnections ?? 0 },
            logLinesDropped: { accessSink?.droppedLines ?? 0 },
            sources: [ProcessMetrics(), ConnectionMetrics(statistics: { madeServer.withLock { $0 }?.connectionStatistics }),
                      StoreMetrics(totals: { try store.totals() }, activeKeyIndex: { issuer.keyring.activeIndex },
                                   databasePath: store.location),
                      ReloadMetrics(failures: { reloader.failureCount })])
        metricsCell.withLock { $0 = metrics }
        let accessLog = accessSink.map { AccessLog(sink: $0) }
        // Whatever way serve ends from here (a stop, a failed bind), what is buffered goes out.
        defer { _ = accessSink?.flush(timeout: 2) }
        let pool = WorkerPool(threads: config.workers, capacity: 4096, perKeyCapacity: config.queuePerAddress)
        let gateway = Gateway(service: service, authenticator: authenticator, pool: pool,
                              metrics: metrics,
                              accessLog: accessLog, clock: systemClock,
                              readiness: {
                                  store.readiness().and { issuer.readiness }.and { reloader.readiness }.and {
                                      madeServer.withLock { $0 }?.isShortOfDescriptors == true
                                          ? .notReady(reason: "out of file descriptors: accept failed with EMFILE/ENFILE in the last 5 s")
                                          : .ready
                                  }
                              },
                              rateLimits: RateLimits(rateLimitRules(config)), wallet: wallet)
        let server = HTTPServer(
            configuration: HTTPServerConfiguration(
                host: config.listenHost, port: config.listenPort,
                limits: config.limits, timeouts: config.timeouts, maxConnections: config.maxConnections,
                maxConnectionsPerAddress: config.maxConnectionsPerAddress, descriptorReserve: config.descriptorReserve,
                maxBufferedRequestBytes: config.maxBufferedRequestBytes,
                trustedProxies: config.trustedProxies, proxyProtocol: config.proxyProtocol,
                onError: { ServiceLog.error($0) }),
            responder: gateway)
        madeServer.withLock { $0 = server }
        let port: Int
        do { port = try server.start(on: listener) } catch {
            throw CommandFailure("cannot listen on \(config.listenHost):\(config.listenPort): \(error)")
        }
        let policy = server.connectionPolicy
        if policy.maxConnections < config.maxConnections {
            ServiceLog.warning("[server] max_connections \(config.maxConnections) lowered to \(policy.maxConnections): "
                               + "RLIMIT_NOFILE allows no more (raise the hard limit, e.g. LimitNOFILE= in the unit)")
        }
        let shown = config.listenHost.contains(":") ? "[\(config.listenHost)]" : config.listenHost
        ServiceLog.info("badge-service listening on http://\(shown):\(port) (data: \(dataDirectory), issuer key \(keyring.activeIndex))")
        reloader.watchKeyFile(every: 1)
        server.runUntilTerminated(onHangup: {
            // Standard output and error are inherited descriptors (a pipe, the journal): nothing
            // to reopen, but what is buffered goes out before the reload's line.
            _ = accessSink?.flush(timeout: 2)
            reloader.reloadAndLog(trigger: "SIGHUP")
        })
        reloader.stopWatching()
        // Jobs already queued finish (and their writes land) before the store is closed.
        pool.shutdown()
        // The metrics read the server, which holds the gateway, which holds the metrics.
        madeServer.withLock { $0 = nil }
        if let accessSink, !accessSink.flush(timeout: 2) {
            ServiceLog.warning("standard output did not take the last access-log lines within 2 s; they are lost")
        }
        if let warning = prepared.checkpointForShutdown() { ServiceLog.warning(warning) }
        ServiceLog.info("badge-service stopped")
        return 0
    }
}
