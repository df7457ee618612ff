import Foundation
import ShelflineBeerQueue
import ShelflineCore
import TestSupport
import Testing

@Suite struct CredentialsTests {
    func file(_ temp: TemporaryDirectory, _ contents: String, mode: Int16) throws -> String {
        let path = temp.write("credentials", contents)
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: path)
        return path
    }

    /// Anything group or others may read is refused (exit 78), without reading the cookie.
    @Test(.bug(id: 6), arguments: [0o644, 0o640, 0o604, 0o666, 0o660, 0o777, 0o601])
    func refusesCredentialsOthersCanAccess(_ mode: Int16) throws {
        let temp = TemporaryDirectory("render-cred")
        let path = try file(temp, "PHPSESSID=s3cr3t-cookie-value\n", mode: mode)
        let error = #expect(throws: BeerQueueError.self) { try BeerQueueCredentials.load(path: path) }
        #expect(error.map { ExitStatus(for: $0) } == .config)
        let message = error.map { "\($0)" } ?? ""
        #expect(message.contains("0600") && message.contains(path))
        #expect(!message.contains("s3cr3t"))
    }

    @Test(
        .bug(id: 6),
        arguments: [
            ("PHPSESSID=abc123\n", "PHPSESSID=abc123"),
            ("abc123", "PHPSESSID=abc123"),
            ("# saved by hand\nCookie: PHPSESSID=abc123; other=1\n", "PHPSESSID=abc123; other=1"),
            (#"{"cookie": "PHPSESSID=abc123"}"#, "PHPSESSID=abc123"),
            (#"{"sessionId": "abc123"}"#, "PHPSESSID=abc123"),
        ])
    func readsCookieFromOwnerOnlyFile(_ contents: String, _ cookie: String) throws {
        let temp = TemporaryDirectory("render-cred")
        let path = try file(temp, contents, mode: 0o600)
        let credentials = try BeerQueueCredentials.load(path: path)
        #expect(credentials.cookie == cookie)
        #expect(!"\(credentials)".contains("abc123"), "description never shows the cookie")
    }

    @Test(.bug(id: 6)) func missingCredentialsAreNoInputAndEmptyOnesAConfigError() throws {
        let temp = TemporaryDirectory("render-cred")
        let missing = #expect(throws: FileError.self) { try BeerQueueCredentials.load(path: temp.file("nope")) }
        #expect(missing.map { ExitStatus(for: $0) } == .noInput)
        let empty = try file(temp, "\n  \n", mode: 0o600)
        let error = #expect(throws: BeerQueueError.self) { try BeerQueueCredentials.load(path: empty) }
        #expect(error.map { ExitStatus(for: $0) } == .config)
    }
}
