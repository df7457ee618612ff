import Foundation
import ShelflineActivity
import ShelflineCore
import TestSupport
import Testing

/// `apns` is kept as JSON by Core and decoded, strictly, by `APNsConfig` (push and `shelfline run`).
@Suite struct APNsConfigTests {
    @Test(arguments: [
        (#"{"stages": [], "apns": {"keyID": "ABC123DEFG"}}"#, "apns.keyID"),
        (#"{"stages": [], "apns": {"concurrency": "eight"}}"#, "apns.concurrency"),
    ])
    func aBadAPNsSettingIsAConfigErrorNamingTheKey(json: String, key: String) throws {
        let dir = TemporaryDirectory()
        let path = dir.write("pipeline.json", json)
        let config = try PipelineConfig.load(path: path)
        let error = #expect(throws: ConfigError.self) { try APNsConfig.decode(config.apns, configPath: path) }
        #expect(error?.key == key && error?.path == path, "\(String(describing: error))")
    }

    @Test func aSectionBuiltInCodeDecodesToTheSameSettings() throws {
        let settings = APNsConfig(
            environment: "sandbox", host: "https://127.0.0.1:1", keyFile: "/k.p8", keyId: "ABC123DEFG",
            teamId: "TEAM123456", bundleId: "com.example", concurrency: 4, timeoutSeconds: 2.5)
        #expect(try APNsConfig.decode(JSONValue(encoding: settings), configPath: "pipeline.json") == settings)
        #expect(try APNsConfig.decode(nil, configPath: "pipeline.json") == nil)
    }
}

/// `shelfline run` decodes `apns` before any stage starts, though only `shelfline-push` sends.
@Suite struct RunChecksAPNsSectionTests {
    @Test func aMisspelledAPNsKeyStopsTheImportBeforeAnyStageWith78() async throws {
        let fixture = PushFixture("push-run-bad-apns")
        let csv = ExecutableRunner.repositoryRoot + "/examples/goodreads_library_export.csv"
        let shipped = try PushCommandTests().pipelineConfig(fixture, apns: nil)
        var object = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: shipped))) as? [String: Any])
        object["apns"] = ["keyID": "ABC123DEFG"]
        let config = fixture.temp.write(
            "pipeline.json", String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self))
        let result = try await PushCommandTests.run(
            "shelfline",
            [
                "run", "--csv", csv, "--config", config,
                "--workspace", fixture.workspace.root,
            ], in: fixture.temp.path)
        #expect(result.status == 78, "\(result)")
        #expect(result.stderr.contains("apns.keyID") && result.stderr.contains("did you mean 'keyId'"), "\(result)")
        #expect(!result.stderr.contains("stage="), "\(result)")
        #expect(!FileManager.default.fileExists(atPath: fixture.workspace.runsDirectory), "no run was started")
    }
}
