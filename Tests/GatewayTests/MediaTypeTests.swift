@testable import Gateway
import Testing

/// `POST /rpc` takes `application/json` with or without parameters, in any case, with blanks
/// around it; anything else is 415.
@Suite struct MediaTypeTests {
    @Test(arguments: ["application/json", "Application/JSON", "APPLICATION/JSON; charset=utf-8", " application/json ",
                      "\tapplication/json\t;x=y", "application/json;"])
    func json(_ value: String) { #expect(Endpoints.isJSON(value)) }

    @Test(arguments: ["", " ", ";", "application/jsonx", "application/jso", "text/json", "application/json-patch+json",
                      "application /json", "applicatioN/json2", "application\u{0}json", "APPLICATION/JSON\u{0}",
                      "application\\json", "application/json\r", "ßapplication/json", "application/jſon"])
    func notJSON(_ value: String) { #expect(!Endpoints.isJSON(value)) }
}
