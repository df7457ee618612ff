import Foundation
import ShelflineCore
import TestSupport
import Testing

@testable import ShelflineBeerQueue

/// `beerQueue` is kept as JSON by Core and decoded, strictly, by the beer queue alone.
@Suite struct BeerQueueConfigTests {
    @Test(arguments: [
        (#"{"stages": [], "beerQueue": {"maxUpdatesPerHour": "ten"}}"#, "beerQueue.maxUpdatesPerHour"),
        (#"{"stages": [], "beerQueue": {"memberID": "1"}}"#, "beerQueue.memberID"),
        (#"{"stages": [], "beerQueue": {"maxUpdatesPerHour": -1}}"#, "beerQueue.maxUpdatesPerHour"),
        (#"{"stages": [], "beerQueue": {"timeoutSeconds": 0}}"#, "beerQueue.timeoutSeconds"),
    ])
    func aBadBeerQueueSettingIsAConfigErrorNamingTheKey(json: String, key: String) throws {
        let dir = TemporaryDirectory()
        let path = dir.write("pipeline.json", json)
        let config = try PipelineConfig.load(path: path)
        let error = #expect(throws: ConfigError.self) { try BeerQueueConfig.decode(config.beerQueue, configPath: path) }
        #expect(error?.key == key && error?.path == path, "\(String(describing: error))")
        #expect(error?.exitStatus == .config)
    }

    @Test func aJobWithABadSectionThrowsItsConfigErrorBeforeReadingAnything() async throws {
        let dir = TemporaryDirectory()
        let job = BeerQueueJob(
            config: JSONValue.object(["visitor": .string("yes")]), configPath: "pipeline.json",
            workspace: Workspace(root: dir.file("ws")))
        let error = await #expect(throws: ConfigError.self) {
            try await job.run(
                source: .json(path: dir.file("missing.json")), now: Date(timeIntervalSince1970: 0),
                userTriggered: false, log: Logfmt(quiet: true))
        }
        #expect(error?.key == "beerQueue.visitor")
    }

    @Test func anAbsentSectionIsEverySettingAbsent() throws {
        #expect(try BeerQueueConfig.decode(nil, configPath: "pipeline.json") == BeerQueueConfig())
    }

    @Test func theBeerQueueRangesAreTheSchemas() throws {
        #expect(try PipelineSchemaRanges.mismatches(section: "beerQueue", ranges: BeerQueueConfig.ranges) == [])
    }
}
