import FuzzSupport
import JSON
import Schema

/// The `/rpc` input pipeline before authentication: JSON, JTD validation of the request
/// envelope against the embedded schema, and decoding into an ``RPCRequest``. Beyond not
/// crashing: a body that decodes has no schema error at all, the first of all the errors is the
/// one a one-error validation reports, and one with errors is refused as a schema error.
fuzzMain { bytes in
    let schema = BadgeRPCSchema.shared
    guard let json = try? JSONParser().parse(bytes) else { return }
    let all = schema.validateRequest(json)
    let first = schema.validateRequest(json, maxErrors: 1)
    guard first.count <= 1, first.first == all.first else {
        fatalError("maxErrors 1 reported \(first), not the first of \(all)")
    }
    do throws(RequestRejection) {
        _ = try schema.decodeRequest(Array(bytes))
        guard all.isEmpty else { fatalError("a request with schema errors decoded: \(all)") }
    } catch {
        switch error.kind {
        case .schema(let reported):
            guard reported == all.first else { fatalError("refused for \(reported), not the first error \(String(describing: all.first))") }
        case .malformedJSON:
            fatalError("JSON that parsed was refused as malformed")
        default:
            guard all.isEmpty else { fatalError("schema errors \(all) but refused as \(error)") }
        }
    }
}
