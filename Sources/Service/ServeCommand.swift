import BadgeCore
import Foundation
import Handlers
import HTTPServer
import RequestAuth
import Storage

/// `badge-service serve`: runs the gateway until SIGTERM or SIGINT, then stops gracefully
/// (stops accepting, finishes in-flight requests) and exits 0.
enum ServeCommand {
    static let help = """
        Usage: badge-service serve [--config FILE] [--listen HOST:PORT] [--data DIR]

        Runs the service. With no configuration it listens on 127.0.0.1:8080 and keeps its SQLite
        database and issuer key in ./badge-data (created on first start, with key index 1 and the
        default catalog). SIGTERM or SIGINT stops it gracefully. Stores and payment providers that
        are not configured answer provider_not_configured.
        """

    static func run(_ args: inout CommandLineArguments, environment: [String: String], output: CommandOutput) throws -> Int32 {
        if args.wantsHelp() { output.out(help); return 0 }
        let listen = try args.option("listen")
        var common = try CommonOptions.parse(&args, environment: environment)
        if let listen {
            do { try common.configuration.setListen(listen) } catch { throw UsageError(error.description) }
        }
        try args.finish()
        let config = common.configuration
        for warning in config.warnings { ServiceLog.warning(warning) }
        if config.creditTestPurchases || config.askStoreEveryRequest {
            ServiceLog.warning("[development] flags are on: never run this configuration where real money flows")
        }

        let store = try common.openStore()
        if try DefaultCatalog.seedIfEmpty(store, at: systemClock()) { ServiceLog.info("seeded the default catalog") }
        let (keyring, created) = try IssuerKeyFile.loadOrCreate(path: config.issuerKeyFile)
        if created { ServiceLog.info("created issuer key index 1 in \(config.issuerKeyFile)") }

        let issuer = KeyringIssuer(keyring: keyring)
        let service = BadgeService(store: store, issuer: issuer, clock: systemClock,
                                   configuration: .init(configuredProviders: Set(config.providers.keys),
                                                        reportInternalError: { ServiceLog.error($0) }))
        let front: TrustedFront
        do { front = try config.frontToken.map { try TrustedFront.enabled(token: $0) } ?? .disabled } catch {
            throw CommandFailure("[rpc] front_token: \(error)")
        }
        let authenticator = RequestAuthenticator(
            signatures: RequestSignatureVerifier(policy: RequestSignaturePolicy(freshnessWindowSeconds: Int64(config.signatureWindowSeconds))),
            trustedFront: front)
        let serverBox = ServerBox()
        let metrics = Metrics(openConnections: { serverBox.server?.openConnections ?? 0 })
        let cores = HTTPServerConfiguration.onlineCPUs
        let accessLog = config.accessLog ? AccessLog() : nil
        let gateway = Gateway(service: service, authenticator: authenticator,
                              pool: WorkerPool(threads: max(4, cores * 2), capacity: 4096), metrics: metrics,
                              accessLog: accessLog, clock: systemClock,
                              isReady: { issuer.isReady && store.isWritable() })
        let server = HTTPServer(
            configuration: HTTPServerConfiguration(
                host: config.listenHost, port: config.listenPort,
                limits: HTTPLimits(maxTargetLength: config.maxRequestTarget, maxFieldLineLength: config.maxHead,
                                   maxHeaderSectionSize: config.maxHead, maxHeaderFields: config.maxFields,
                                   maxBodySize: config.maxBody),
                timeouts: HTTPTimeouts(requestHead: .seconds(config.headTimeoutSeconds), idle: .seconds(config.idleTimeoutSeconds)),
                maxConnections: config.maxConnections),
            responder: gateway)
        serverBox.server = server
        let port: Int
        do { port = try server.start() } catch {
            throw CommandFailure("cannot listen on \(config.listenHost):\(config.listenPort): \(error)")
        }
        let shown = config.listenHost.contains(":") ? "[\(config.listenHost)]" : config.listenHost
        ServiceLog.info("badge-service listening on http://\(shown):\(port) (data: \(config.dataDirectory), issuer key \(keyring.activeIndex))")
        server.runUntilTerminated()
        accessLog?.flush()
        ServiceLog.info("badge-service stopped")
        return 0
    }
}

/// Lets the metrics read the server's gauge although the server is made after them.
final class ServerBox: @unchecked Sendable {
    private let lock = NSLock()
    private var _server: HTTPServer?
    var server: HTTPServer? {
        get { lock.withLock { _server } }
        set { lock.withLock { _server = newValue } }
    }
}
