import HTTPServer

/// The gateway's routes, each with the name metrics and access lines give it: one table, from
/// which both the router and the names are made, so a path is counted under the same name
/// whether a route answered it or the HTTP layer refused it (404, 405, a framing error).
struct RouteTable: Sendable {
    /// One method on one path, its name, and what answers it.
    struct Route: Sendable {
        let method: String
        let path: String
        let name: String
        let handle: Router.Handler

        /// `handler` is given the route's name once, when the table is made, and returns what
        /// answers the route (so a request costs no extra call).
        init(_ method: String, _ path: String, _ name: String, handler: (String) -> Router.Handler) {
            self.method = method
            self.path = path
            self.name = name
            handle = handler(name)
        }
    }

    let router: Router
    /// The name of every routed path.
    let names: [String: String]

    init(_ routes: [Route]) {
        // The router's 404 and 405 are refusals like any other off /rpc.
        var router = Router(answers: { status, message, fields in HTTPResponse(HTTPError(status: status, message: message, fields: fields)) })
        var names: [String: String] = [:]
        for route in routes {
            router.add(route.method, route.path, handler: route.handle)
            names[route.path] = route.name
        }
        self.router = router
        self.names = names
    }

    /// The name of `path`, or `unrouted` for a path no route serves.
    func name(for path: String) -> String { names[path] ?? "unrouted" }
}
