import Foundation
import Testing

@testable import ShelflineCore

/// pipeline.json's values of the wrong type are refused with the key path and one message per
/// kind of value expected, naming what was found; the right types decode exactly.
@Suite struct ConfigDecoderTests {
    struct Sample: Decodable, Equatable {
        var flag: Bool?
        var name: String?
        var share: Double?
        var ratio: Float?
        var count: Int?
        var small: UInt8?
        var list: [String]?
        var nested: Inner?

        struct Inner: Decodable, Equatable { var depth: Int? }
    }

    static func decode(_ json: String) throws -> Sample {
        let value = try JSONDecoder().decode(JSONValue.self, from: Data(json.utf8))
        return try ConfigDecoder().decode(Sample.self, from: value)
    }

    static let mismatches: [(json: String, path: String, message: String)] = [
        (#"{"flag": 1}"#, "flag", "expected true or false, found 1"),
        (#"{"flag": "yes"}"#, "flag", #"expected true or false, found the string "yes""#),
        (#"{"name": 3}"#, "name", "expected a string, found 3"),
        (#"{"name": false}"#, "name", "expected a string, found false"),
        (#"{"share": "half"}"#, "share", #"expected a number, found the string "half""#),
        (#"{"ratio": true}"#, "ratio", "expected a number, found true"),
        (#"{"count": 1.5}"#, "count", "expected an integer, found 1.5"),
        (#"{"count": "2"}"#, "count", #"expected an integer, found the string "2""#),
        (#"{"small": 300}"#, "small", "expected an integer, found 300"),
        (#"{"small": -1}"#, "small", "expected an integer, found -1"),
        (#"{"list": "a"}"#, "list", #"expected an array, found the string "a""#),
        (#"{"list": ["a", 2]}"#, "list.1", "expected a string, found 2"),
        (#"{"nested": []}"#, "nested", "expected an object, found an array"),
        (#"{"nested": {"depth": {}}}"#, "nested.depth", "expected an integer, found an object"),
    ]

    @Test func aValueOfTheWrongTypeNamesItsKeyWhatWasExpectedAndWhatWasFound() {
        for (json, path, message) in Self.mismatches {
            do {
                let decoded = try Self.decode(json)
                Issue.record("\(json) decoded as \(decoded)")
            } catch DecodingError.typeMismatch(_, let context) {
                let keys = context.codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue }
                #expect(keys.joined(separator: ".") == path, "\(json)")
                #expect(context.debugDescription == message, "\(json)")
            } catch {
                Issue.record("\(json): \(error)")
            }
        }
    }

    @Test func valuesOfTheRightTypeDecodeExactly() throws {
        let sample = try Self.decode(
            #"{"flag": true, "name": "x", "share": 0.1, "ratio": 0.5, "count": -7, "small": 255, "list": ["a"], "nested": {"depth": 2}}"#
        )
        #expect(
            sample
                == Sample(
                    flag: true, name: "x", share: 0.1, ratio: 0.5, count: -7, small: 255, list: ["a"],
                    nested: .init(depth: 2)))
        #expect(try Self.decode(#"{"flag": null, "count": 3.0}"#) == Sample(count: 3))
    }

    struct Defaulted: ConfigDefaults, Equatable {
        var limit = 5
        var name = "x"
        var cap: Double?
        var inner = Inner()

        struct Inner: ConfigDefaults, Equatable { var depth = 2, wide = true }
    }

    static func defaulted(_ json: String) throws -> Defaulted {
        try ConfigDecoder().decode(Defaulted.self, from: JSONDecoder().decode(JSONValue.self, from: Data(json.utf8)))
    }

    @Test func aSectionWithDefaultsFillsTheKeysItLeavesOutOrSetsToNullAtEveryLevel() throws {
        #expect(try Self.defaulted("{}") == Defaulted())
        var expected = Defaulted(limit: 7, name: "x", cap: nil, inner: .init(depth: 2, wide: false))
        #expect(try Self.defaulted(#"{"limit": 7, "name": null, "inner": {"wide": false}}"#) == expected)
        expected.cap = 0.5
        #expect(try Self.defaulted(#"{"limit": 7, "cap": 0.5, "inner": {"wide": false}}"#) == expected)
    }

    @Test func anUnknownKeyBesideFilledInDefaultsIsStillRefusedNamingTheKnownOnes() {
        #expect(throws: ConfigDecoder.UnknownKey(keyPath: "limt", key: "limt", known: ["cap", "inner", "limit", "name"])) {
            try Self.defaulted(#"{"limt": 1}"#)
        }
        #expect(throws: ConfigDecoder.UnknownKey(keyPath: "inner.dept", key: "dept", known: ["depth", "wide"])) {
            try Self.defaulted(#"{"inner": {"dept": 1}}"#)
        }
    }

    /// Writes a member it never reads back, as a section with a derived value might.
    struct Derived: ConfigDefaults, Equatable {
        var limit = 5

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: AnyKey.self)
            try container.encode(limit, forKey: AnyKey("limit"))
            try container.encode(limit * 2, forKey: AnyKey("twice"))
        }
    }

    @Test func aFilledInDefaultIsNeverCountedAsAGivenKey() throws {
        #expect(try ConfigDecoder().decode(Derived.self, from: .object(["limit": .number(3)])) == Derived(limit: 3))
    }

    struct Required: Decodable { var count: Int }

    /// Each kind of decoding failure is one `ConfigError` naming the key under its prefix.
    @Test func eachDecodingFailureIsOneConfigErrorNamingTheKey() throws {
        let cases: [(json: String, expected: String)] = [
            ("{}", "required but missing"),
            (#"{"count": null}"#, "expected a number, found null"),
            (#"{"count": "x"}"#, #"expected an integer, found the string "x""#),
        ]
        for (json, expected) in cases {
            let value = try JSONDecoder().decode(JSONValue.self, from: Data(json.utf8))
            #expect(throws: ConfigError(path: "c.json", key: "p.count", expected: expected)) {
                try PipelineConfig.decode(Required.self, from: value, path: "c.json", keyPrefix: "p")
            }
        }
    }
}
