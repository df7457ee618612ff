import Foundation
import ShelflineCore
import TestSupport
import Testing

/// Issue 10 "Also": pipeline.json mistakes exit 78 before anything runs, naming the key and what
/// is expected; docs/pipeline.schema.json states the same rules.
@Suite struct ConfigValidationTests {
    typealias Fixture = OrchestratorRulesTests.Fixture

    /// Edits the fixture's config as JSON.
    func edit(_ fixture: Fixture, _ change: (inout [String: Any]) -> Void) throws {
        try ConfigFile.edit(fixture.config) { change(&$0.object) }
    }

    func editParameters(_ fixture: Fixture, stage: Int, _ change: @escaping (inout [String: Any]) -> Void) throws {
        try edit(fixture) { object in
            var stages = object["stages"] as! [[String: Any]]
            var parameters = stages[stage]["parameters"] as! [String: Any]
            change(&parameters)
            stages[stage]["parameters"] = parameters
            object["stages"] = stages
        }
    }

    /// Runs and expects 78 with every fragment in stderr, and no stage started.
    func expectConfigError(_ fixture: Fixture, _ fragments: [String], sourceLocation: SourceLocation = #_sourceLocation) throws {
        let result = try fixture.run()
        #expect(result.status == 78, "\(result)", sourceLocation: sourceLocation)
        for fragment in fragments {
            #expect(result.stderr.contains(fragment), "missing \(fragment): \(result)", sourceLocation: sourceLocation)
        }
        #expect(fixture.stagesRun.isEmpty, "a stage ran before the config was checked", sourceLocation: sourceLocation)
    }

    @Test(.bug(id: 10)) func mistypedKeyNamesTheNearestKnownOne() throws {
        let fixture = try Fixture()
        try editParameters(fixture, stage: 2) { parameters in
            var openLibrary = parameters["openLibrary"] as! [String: Any]
            openLibrary["requestPerSecond"] = openLibrary.removeValue(forKey: "requestsPerSecond")
            parameters["openLibrary"] = openLibrary
        }
        try expectConfigError(fixture, ["stages[2].parameters.openLibrary.requestPerSecond", "did you mean 'requestsPerSecond'"])
    }

    @Test(.bug(id: 10)) func unknownTopLevelAndStageKeysAreRefused() throws {
        let fixture = try Fixture()
        try edit(fixture) { $0["workspce"] = "./var" }
        try expectConfigError(fixture, ["key 'workspce'", "did you mean 'workspace'"])
        let other = try Fixture()
        try edit(other) { object in
            var stages = object["stages"] as! [[String: Any]]
            stages[1]["output"] = ["x"]
            object["stages"] = stages
        }
        try expectConfigError(other, ["stages[1].output", "did you mean 'outputs'"])
    }

    @Test(.bug(id: 10)) func removedStageIsAConfigError() throws {
        let fixture = try Fixture()
        try edit(fixture) { object in
            var stages = object["stages"] as! [[String: Any]]
            stages.remove(at: 1)
            object["stages"] = stages
        }
        try expectConfigError(fixture, ["stages[1].inputs[0]", "deduped.ndjson.gz", "dedupe"])
    }

    struct OutOfRange: Sendable, CustomTestStringConvertible {
        var stage: Int
        var key: String
        var value: Double
        var message: String
        var testDescription: String { "\(key) = \(value)" }
    }

    @Test(
        .bug(id: 10),
        arguments: [
            OutOfRange(stage: 4, key: "historyLimit", value: -1, message: "expected a number ≥ 1, found -1"),
            OutOfRange(stage: 0, key: "maxRejectedShare", value: 1.5, message: "expected a number from 0 to 1, found 1.5"),
            OutOfRange(stage: 0, key: "maxRejectedShare", value: -0.1, message: "expected a number from 0 to 1, found -0.1"),
            OutOfRange(stage: 2, key: "cacheDays", value: -3, message: "expected a number > 0 and ≤ 36500, found -3"),
        ])
    func outOfRangeValuesAreRefused(_ case: OutOfRange) throws {
        let fixture = try Fixture()
        try editParameters(fixture, stage: `case`.stage) { $0[`case`.key] = `case`.value }
        try expectConfigError(fixture, ["stages[\(`case`.stage)].parameters.\(`case`.key)", `case`.message])
    }

    @Test(.bug(id: 10)) func negativeRateIsAConfigError() throws {
        let fixture = try Fixture()
        try editParameters(fixture, stage: 2) { parameters in
            var openLibrary = parameters["openLibrary"] as! [String: Any]
            openLibrary["requestsPerSecond"] = -2
            parameters["openLibrary"] = openLibrary
        }
        try expectConfigError(
            fixture, ["stages[2].parameters.openLibrary.requestsPerSecond", "expected a number from 0.01 to 1000, found -2"])
    }

    /// Issue 36 item 9: a duration or rate too large (or too small) to become a clock interval
    /// crashed the process that converted it; every such setting has a bounded range instead.
    @Test(
        .bug(id: 36),
        arguments: [
            (2, "openLibrary.timeoutSeconds", 1e300, "expected a number > 0 and ≤ 3600"),
            (2, "openLibrary.requestsPerSecond", 1e-300, "expected a number from 0.01 to 1000"),
            (2, "openLibrary.waitBudgetSeconds", 1e10, "expected a number from 0 to 86400"),
            (2, "openLibrary.breakerCooldownSeconds", 1e300, "expected a number from 0 to 86400"),
            (2, "cacheDays", 1e300, "expected a number > 0 and ≤ 36500"),
            (4, "minimumUpdateIntervalSeconds", 1e300, "expected a number from 0 to 86400"),
            (4, "importStaleAfterMinutes", 1e12, "expected a number from 1 to 525600"),
        ] as [(Int, String, Double, String)])
    func hugeDurationsAreRefusedNamingTheSetting(stage: Int, keyPath: String, value: Double, message: String) throws {
        let fixture = try Fixture()
        try editParameters(fixture, stage: stage) { parameters in
            let parts = keyPath.split(separator: ".").map(String.init)
            if parts.count == 1 {
                parameters[parts[0]] = value
            } else {
                var section = parameters[parts[0]] as? [String: Any] ?? [:]
                section[parts[1]] = value
                parameters[parts[0]] = section
            }
        }
        try expectConfigError(fixture, ["stages[\(stage)].parameters.\(keyPath)", message])
    }

    @Test(.bug(id: 36)) func hugeNotifyTimeoutIsRefused() throws {
        let fixture = try Fixture()
        try edit(fixture) { $0["notifyTimeoutSeconds"] = 1e300 }
        try expectConfigError(fixture, ["notifyTimeoutSeconds", "expected a number > 0 and ≤ 86400"])
    }

    @Test(.bug(id: 10)) func enumErrorListsTheAllowedValues() throws {
        let fixture = try Fixture()
        try editParameters(fixture, stage: 0) { $0["format"] = "csvish" }
        try expectConfigError(
            fixture, ["stages[0].parameters.format", "'csvish' is not allowed; expected one of auto, goodreads"])
        #expect(!(try fixture.run().stderr.contains("Cannot initialize")))
    }

    /// Every bound the loader enforces is stated in the schema, and every object there refuses
    /// unknown keys.
    @Test(.bug(id: 10)) func schemaAgreesWithTheLoader() throws {
        let path = ExecutableRunner.repositoryRoot + "/docs/pipeline.schema.json"
        let schema = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
        func property(_ root: [String: Any]?, _ keyPath: String) -> [String: Any]? {
            var node = root
            for part in keyPath.split(separator: ".") {
                node = (node?["properties"] as? [String: Any])?[String(part)] as? [String: Any]
            }
            return node
        }
        func check(_ node: [String: Any]?, _ range: ConfigLimits.Range, _ name: String) {
            #expect(node != nil, "\(name) is missing from the schema")
            #expect((node?["minimum"] as? Double) == range.minimum, "\(name): minimum")
            #expect((node?["exclusiveMinimum"] as? Double) == range.exclusiveMinimum, "\(name): exclusiveMinimum")
            #expect((node?["maximum"] as? Double) == range.maximum, "\(name): maximum")
        }
        for (key, range) in ConfigLimits.topLevel { check(property(schema, key), range, key) }
        // Each stage's ranges, on its parameter type, are compared with the schema by its library's
        // tests (`PipelineSchemaRanges`), the beer queue's by its own.
        // additionalProperties: false on every object that lists its properties.
        func objects(_ node: Any, at path: String) -> [(String, [String: Any])] {
            guard let object = node as? [String: Any] else {
                return (node as? [Any] ?? []).enumerated().flatMap { objects($0.element, at: path + "[\($0.offset)]") }
            }
            var found = object["properties"] != nil ? [(path, object)] : []
            // `if`/`then` only select the stage's parameter definition; they describe no object.
            for (key, value) in object where key != "if" && key != "then" { found += objects(value, at: path + "/" + key) }
            return found
        }
        for (path, object) in objects(schema, at: "#") {
            #expect(object["additionalProperties"] as? Bool == false, "\(path) allows unknown keys")
        }
    }

    /// The shipped pipeline.json and the defaults validate.
    @Test(.bug(id: 10)) func shippedConfigsLoad() throws {
        let config = try PipelineConfig.load(path: ExecutableRunner.repositoryRoot + "/pipeline.json")
        try config.validateWiring(path: "pipeline.json")
        #expect(config.stages.map(\.name) == StageName.allCases)
    }
}

/// Found by the `config` fuzz target in CI: a key holding a line break was echoed raw, so the
/// "one-line error" took two lines.
@Test(.bug(id: 10)) func configErrorNamingAKeyWithALineBreakStaysOneLine() throws {
    let directory = TemporaryDirectory("config-newline-key")
    let path = directory.write("pipeline.json", #"{"stages": [], "work\nspace": "./var"}"#)
    do {
        _ = try PipelineConfig.load(path: path)
        Issue.record("an unknown key was accepted")
    } catch let error as ConfigError {
        let message = "\(error)"
        #expect(!message.contains("\n") && message.contains(#"work\nspace"#), "\(message)")
        #expect(ExitStatus(for: error) == .config)
    }
}
