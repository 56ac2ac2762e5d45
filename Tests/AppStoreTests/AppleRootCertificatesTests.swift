import AppStore
import Foundation
import TestSupport
import Testing

/// `[apple] root_certificates` files: DER or PEM, one or more certificates each.
@Suite(.timeLimit(.minutes(5))) struct AppleRootCertificatesTests {
    @Test func derAndPEMOfTheSameRootReadTheSameAndGarbageNamesTheFile() throws {
        let directory = TemporaryDirectory()
        try PeerPython.run(script: "appstore_peer.py", arguments: ["pki", directory.url.path])
        let der = try [UInt8](Data(contentsOf: directory.url.appendingPathComponent("root.der")))
        let pem = try [UInt8](Data(contentsOf: directory.url.appendingPathComponent("root.pem")))
        #expect(try AppleRootCertificates.certificates(in: der, name: "root.der") == [der])
        #expect(try AppleRootCertificates.certificates(in: pem, name: "root.pem") == [der])
        // Two PEM blocks in one file, CRLF line ends.
        let twice = (String(decoding: pem, as: UTF8.self) + String(decoding: pem, as: UTF8.self))
            .replacingOccurrences(of: "\n", with: "\r\n")
        #expect(try AppleRootCertificates.certificates(in: Array(twice.utf8), name: "two.pem") == [der, der])

        for (bytes, expected) in [(Array("hello".utf8), "neither a DER certificate"),
                                  (Array("-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n".utf8), "not a DER certificate"),
                                  (Array("-----BEGIN CERTIFICATE-----\nAAAA\n".utf8), "no END line"),
                                  (Array(der.dropLast()), "neither a DER certificate")] {
            #expect {
                _ = try AppleRootCertificates.certificates(in: bytes, name: "/etc/x/roots.pem")
            } throws: { error in
                "\(error)".hasPrefix("/etc/x/roots.pem: ") && "\(error)".contains(expected)
            }
        }
    }
}
