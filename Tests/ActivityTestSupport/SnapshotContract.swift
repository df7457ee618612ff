import Foundation
import TestSupport
import Testing

/// Checks every snapshot against the phone's contract: `contentState` and `apns.aps.content-state`
/// decode with the app's structs and a default `JSONDecoder`, and are exactly what a default
/// `JSONEncoder` makes of them (same keys, absent optionals omitted, never `null`); `start`
/// carries `attributes-type` and decodable `attributes`; the push body fits in 4096 bytes.
public enum SnapshotContract {
    @discardableResult
    public static func checkImport(_ data: Data) throws -> (
        PhoneApp.CSVImportActivityAttributes, PhoneApp.CSVImportActivityAttributes.ContentState, String
    ) {
        try check(
            data, attributes: PhoneApp.CSVImportActivityAttributes.self,
            state: PhoneApp.CSVImportActivityAttributes.ContentState.self, typeName: "CSVImportActivityAttributes")
    }

    @discardableResult
    public static func checkBeerQueue(_ data: Data) throws -> (
        PhoneApp.BeerQueueAttributes, PhoneApp.BeerQueueAttributes.ContentState, String
    ) {
        let result = try check(
            data, attributes: PhoneApp.BeerQueueAttributes.self,
            state: PhoneApp.BeerQueueAttributes.ContentState.self, typeName: "BeerQueueAttributes")
        // The shipping app's subset decodes too.
        let state = try #require(try SnapshotContract.member(data, ["contentState"]))
        _ = try JSONDecoder().decode(PhoneApp.ShippingBeerQueueContentState.self, from: state)
        return result
    }

    public static func check<A: Codable & Hashable, S: Codable & Hashable>(
        _ data: Data, attributes: A.Type, state: S.Type, typeName: String
    ) throws -> (A, S, String) {
        let root = try #require(try SnapshotContract.object(data) as? [String: Any])
        #expect(!SnapshotContract.containsNull(root), "snapshot holds a null")
        #expect(root["attributesType"] as? String == typeName)
        let event = try #require(root["event"] as? String)
        #expect(["start", "update", "end"].contains(event))
        let timestamp = try #require(root["timestamp"] as? Int)
        let apsObject = try #require((root["apns"] as? [String: Any])?["aps"] as? [String: Any])
        #expect(apsObject["event"] as? String == event)
        #expect(apsObject["timestamp"] as? Int == timestamp)

        let decoder = JSONDecoder()  // default, as on the phone
        let stateData = try #require(try SnapshotContract.member(data, ["contentState"]))
        let decodedState = try decoder.decode(S.self, from: stateData)
        let pushStateData = try #require(try SnapshotContract.member(data, ["apns", "aps", "content-state"]))
        let pushState = try decoder.decode(S.self, from: pushStateData)
        #expect(pushState == decodedState)
        try expectDefaultEncoding(decodedState, equals: stateData)
        try expectDefaultEncoding(pushState, equals: pushStateData)

        let attributesData = try #require(try SnapshotContract.member(data, ["attributes"]))
        let decodedAttributes = try decoder.decode(A.self, from: attributesData)
        try expectDefaultEncoding(decodedAttributes, equals: attributesData)
        if event == "start" {
            #expect(apsObject["attributes-type"] as? String == typeName)
            let pushAttributes = try #require(try SnapshotContract.member(data, ["apns", "aps", "attributes"]))
            #expect(try decoder.decode(A.self, from: pushAttributes) == decodedAttributes)
            #expect(apsObject["alert"] != nil, "a start carries an alert")
        } else {
            #expect(apsObject["attributes-type"] == nil && apsObject["attributes"] == nil)
        }
        if event == "end" {
            #expect(apsObject["dismissal-date"] is Int)
        } else {
            #expect(apsObject["dismissal-date"] == nil)
        }
        let body = try #require(try SnapshotContract.member(data, ["apns"]))
        let compact = try JSONSerialization.data(
            withJSONObject: try SnapshotContract.object(body), options: [.sortedKeys, .withoutEscapingSlashes])
        #expect(compact.count <= 4096, "push body is \(compact.count) bytes")
        return (decodedAttributes, decodedState, event)
    }

    /// `stored` is exactly what a default `JSONEncoder` makes of `value` (compared as JSON).
    public static func expectDefaultEncoding(_ value: some Encodable, equals stored: Data) throws {
        let encoded = try JSONEncoder().encode(value)
        let expected = try SnapshotContract.object(encoded) as? NSDictionary
        let actual = try SnapshotContract.object(stored) as? NSDictionary
        #expect(
            expected != nil && expected == actual,
            "stored \(String(decoding: stored, as: UTF8.self)) != default encoding \(String(decoding: encoded, as: UTF8.self))")
    }

    /// Parses JSON into Foundation objects (for structural comparisons).
    public static func object(_ data: Data) throws -> Any {
        try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
    }

    /// The JSON value at `path` (object keys) inside a snapshot file's bytes, re-serialised.
    public static func member(_ data: Data, _ path: [String]) throws -> Data? {
        var value = try object(data)
        for key in path {
            guard let dictionary = value as? [String: Any], let next = dictionary[key] else { return nil }
            value = next
        }
        return try JSONSerialization.data(withJSONObject: value, options: [.fragmentsAllowed, .sortedKeys])
    }

    /// True when the JSON anywhere holds an explicit `null`.
    public static func containsNull(_ value: Any) -> Bool {
        switch value {
        case is NSNull: true
        case let dictionary as [String: Any]: dictionary.values.contains(where: containsNull)
        case let array as [Any]: array.contains(where: containsNull)
        default: false
        }
    }

    /// Each line of an NDJSON history file.
    public static func historyLines(_ path: String) throws -> [Data] {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        return data.split(separator: UInt8(ascii: "\n")).map { Data($0) }
    }
}
