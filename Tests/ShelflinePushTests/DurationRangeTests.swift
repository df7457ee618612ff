import Foundation
import ShelflineActivity
import ShelflineCore
import TestSupport
import Testing

/// Issue 36, item 9: every duration (and rate) option and setting of `shelfline-push` has a
/// documented range; outside it the executable exits 64 (an option) or 78 (a setting) naming it,
/// before it listens or sends, instead of dying when the value reaches a timer.
@Suite struct DurationRangeTests {
    @Test(
        .bug(id: 36),
        arguments: [
            ("--idle-timeout", "inf"), ("--idle-timeout", "1e10"), ("--idle-timeout", "nan"), ("--idle-timeout", "0"),
            ("--request-timeout", "1e10"), ("--request-timeout", "-1"), ("--rate-per-second", "1e-300"),
            ("--rate-burst", "inf"), ("--refreshes-per-minute", "1e300"),
        ])
    func aServeOptionOutOfItsRangeExits64NamingIt(option: String, value: String) async throws {
        let fixture = PushFixture("serve-range")
        let result = try await PushCommandTests().push(fixture, ["serve", "--listen", "127.0.0.1:0", "\(option)=\(value)"])
        #expect(result.status == 64, "\(result)")
        #expect(result.stderr.contains(option) && !result.stdout.contains("serving on"), "\(result)")
    }

    @Test(
        .bug(id: 36),
        arguments: [
            ("timeoutSeconds", "1e300"), ("timeoutSeconds", "0"), ("timeoutSeconds", "3601"),
            ("waitBudgetSeconds", "1e300"), ("waitBudgetSeconds", "-1"), ("minimumUpdateIntervalSeconds", "1e300"),
        ])
    func anAPNsSettingOutOfItsRangeExits78NamingIt(key: String, value: String) async throws {
        let fixture = PushFixture("apns-range")
        let config = try fixture.writeConfig(host: "https://127.0.0.1:1")
        var text = try String(contentsOfFile: config, encoding: .utf8)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        var apns = try #require(object["apns"] as? [String: Any])
        apns[key] = nil
        var edited = object
        edited["apns"] = apns
        text = String(decoding: try JSONSerialization.data(withJSONObject: edited), as: UTF8.self)
        // The number as written, not as Foundation would print it back.
        text = text.replacingOccurrences(of: #""apns":{"#, with: #""apns":{"\#(key)":\#(value),"#)
        _ = fixture.temp.write("pipeline.json", text)
        try await fixture.register(PushFixture.token(1))
        for command in [["send"], ["watch"]] {
            let result = try await PushCommandTests().push(fixture, command, config: config)
            #expect(result.status == 78, "\(command): \(result)")
            #expect(result.stderr.contains("apns.\(key)"), "\(command): \(result)")
        }
    }

    @Test(.bug(id: 36)) func theSchemaStatesTheAPNsRangesTheCodeChecks() throws {
        #expect(try PipelineSchemaRanges.mismatches(section: "apns", ranges: APNsConfig.ranges) == [])
    }
}
