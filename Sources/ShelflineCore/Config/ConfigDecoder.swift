import Foundation

/// Decodes parsed JSON into a `Decodable` type and, unlike `JSONDecoder`, refuses every key its
/// `init(from:)` never looked up, naming the nearest known one. Objects decoded as dictionaries
/// (`allKeys`) accept any key, `$schema` is always allowed; integers must be whole. A `ConfigDefaults`
/// type's missing keys are its defaults.
public struct ConfigDecoder {
    /// What the decoded types read besides the JSON (lookup's metadata sources).
    public var userInfo: [CodingUserInfoKey: Any]

    public init(userInfo: [CodingUserInfoKey: Any] = [:]) { self.userInfo = userInfo }

    /// An unknown key, with the keys the type knows at that level.
    public struct UnknownKey: Error, Sendable, Equatable {
        /// Ending in `key` (`openLibrary.batchSiz`).
        public var keyPath: String
        public var key: String
        public var known: [String]

        /// The known key nearest to `key`, if one is close enough to be a likely typo.
        public var suggestion: String? {
            var best: (key: String, distance: Int)?
            for candidate in known.sorted() {
                let distance = EditDistance.levenshtein(
                    Array(candidate.lowercased().unicodeScalars), Array(key.lowercased().unicodeScalars))
                if best == nil || distance < best!.distance { best = (candidate, distance) }
            }
            guard let best, best.distance <= max(2, key.count / 3) else { return nil }
            return best.key
        }
    }

    /// Throws `DecodingError` as `JSONDecoder` would, or `UnknownKey`.
    public func decode<T: Decodable>(_ type: T.Type, from value: JSONValue) throws -> T {
        let tracker = KeyTracker(userInfo: userInfo)
        let result = try ValueDecoder(value: value, codingPath: [], tracker: tracker).decode(T.self)
        if let unknown = tracker.firstUnknown() { throw unknown }
        return result
    }
}

/// A settings section whose every member has a default, so `{}` works: `ConfigDecoder` fills the
/// keys a section leaves out (or sets to null) from `init()`, and the synthesized `init(from:)` reads them.
public protocol ConfigDefaults: Codable {
    init()
}

/// Which keys each object's decoding asked for.
final class KeyTracker {
    let userInfo: [CodingUserInfoKey: Any]
    init(userInfo: [CodingUserInfoKey: Any]) { self.userInfo = userInfo }

    struct Object {
        var path: [any CodingKey]
        var keys: [String]
        var asked: Set<String> = []
        var open = false
    }
    var objects: [String: Object] = [:]
    var order: [String] = []

    func register(_ path: [any CodingKey], keys: [String]) {
        let id = path.keyPath
        if objects[id] == nil {
            objects[id] = Object(path: path, keys: keys)
            order.append(id)
        }
    }

    func asked(_ key: String, at path: [any CodingKey]) { objects[path.keyPath]?.asked.insert(key) }
    func opened(_ path: [any CodingKey]) { objects[path.keyPath]?.open = true }

    func firstUnknown() -> ConfigDecoder.UnknownKey? {
        for id in order {
            guard let object = objects[id], !object.open else { continue }
            // `$schema` names the file's JSON Schema (editors read it); it is not a setting.
            if let key = object.keys.sorted().first(where: { !object.asked.contains($0) && $0 != "$schema" }) {
                return ConfigDecoder.UnknownKey(
                    keyPath: (object.path + [AnyKey(key)]).keyPath, key: key,
                    known: object.asked.sorted())
            }
        }
        return nil
    }
}

extension [any CodingKey] {
    /// `a.b[0].c`, as messages name a key.
    var keyPath: String {
        reduce("") { text, key in
            key.intValue.map { text + "[\($0)]" } ?? text + (text.isEmpty ? "" : ".") + key.stringValue
        }
    }
}

/// A key known only at run time: an array index, a source's section, a field a user names.
public struct AnyKey: CodingKey {
    public var stringValue: String
    public var intValue: Int?
    public init(_ name: String) { stringValue = name }
    public init(stringValue: String) { self.init(stringValue) }
    public init(intValue: Int) {
        self.stringValue = "\(intValue)"
        self.intValue = intValue
    }
}

struct ValueDecoder: Decoder, SingleValueDecodingContainer {
    let value: JSONValue
    let codingPath: [any CodingKey]
    let tracker: KeyTracker
    var userInfo: [CodingUserInfoKey: Any] { tracker.userInfo }

    func context(_ text: String) -> DecodingError.Context {
        DecodingError.Context(codingPath: codingPath, debugDescription: text)
    }

    func mismatch(_ type: Any.Type, _ expected: String) -> DecodingError {
        .typeMismatch(type, context("expected \(expected), found \(value.kind)"))
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .object(let object) = value else { throw mismatch([String: Any].self, "an object") }
        tracker.register(codingPath, keys: Array(object.keys))
        return KeyedDecodingContainer(KeyedContainer<Key>(object: object, codingPath: codingPath, tracker: tracker))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let array) = value else { throw mismatch([Any].self, "an array") }
        return UnkeyedContainer(array: array, codingPath: codingPath, tracker: tracker)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { self }

    func decodeNil() -> Bool { value == .null }

    func integer<I: FixedWidthInteger>(_ type: I.Type) throws -> I {
        guard case .number(let number) = value, number == number.rounded(), let whole = I(exactly: number) else {
            throw mismatch(type, "an integer")
        }
        return whole
    }

    /// Also the witness of each scalar `decode(_:)` the protocol lists, so scalars are read here.
    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        switch (value, type) {
        case (_, is JSONValue.Type): return value as! T
        case (.bool(let flag), is Bool.Type): return flag as! T
        case (_, is Bool.Type): throw mismatch(type, "true or false")
        case (.string(let text), is String.Type): return text as! T
        case (_, is String.Type): throw mismatch(type, "a string")
        case (.number(let number), is Double.Type): return number as! T
        case (.number(let number), is Float.Type): return Float(number) as! T
        case (_, is Double.Type), (_, is Float.Type): throw mismatch(Double.self, "a number")
        case (_, let integer as any FixedWidthInteger.Type): return try self.integer(integer) as! T
        default: break
        }
        do {
            return try T(from: withDefaults(T.self))
        } catch DecodingError.dataCorrupted(let context) where context.codingPath.count == codingPath.count {
            // An enum given a value it does not have: name the allowed ones.
            if let allowed = allowedValues(T.self, userInfo: userInfo), case .string(let text) = value {
                throw DecodingError.dataCorrupted(
                    self.context(
                        "'\(text)' is not allowed; expected one of \(allowed.joined(separator: ", "))"))
            }
            throw DecodingError.dataCorrupted(context)
        }
    }

    /// The given members laid over the encoded `T()`; only they are registered as given, so a
    /// filled-in key is never counted as unknown.
    func withDefaults<T>(_ type: T.Type) throws -> ValueDecoder {
        guard let defaults = type as? any ConfigDefaults.Type, case .object(let given) = value,
            case .object(let filled) = try JSONValue(encoding: defaults.init())
        else { return self }
        tracker.register(codingPath, keys: Array(given.keys))
        let merged = filled.merging(given.filter { $0.value != .null }) { $1 }
        return ValueDecoder(value: .object(merged), codingPath: codingPath, tracker: tracker)
    }
}

/// A type whose allowed values depend on what the decoder was given (parse's formats: the list
/// under `userInfo`, not `allCases`).
public protocol DecoderListedValues {
    static func allowedValues(userInfo: [CodingUserInfoKey: Any]) -> [String]
}

/// The values `type` allows, for error messages; nil for a type that does not list them.
func allowedValues<T>(_ type: T.Type, userInfo: [CodingUserInfoKey: Any]) -> [String]? {
    if let listed = type as? any DecoderListedValues.Type { return listed.allowedValues(userInfo: userInfo) }
    guard let iterable = type as? any CaseIterable.Type else { return nil }
    func values<C: CaseIterable>(_ type: C.Type) -> [String] {
        C.allCases.map { item in (item as? any RawRepresentable).map { "\($0.rawValue)" } ?? "\(item)" }
    }
    return values(iterable)
}

struct KeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let object: [String: JSONValue]
    let codingPath: [any CodingKey]
    let tracker: KeyTracker

    var allKeys: [Key] {
        tracker.opened(codingPath)
        return object.keys.compactMap { Key(stringValue: $0) }
    }

    func contains(_ key: Key) -> Bool {
        tracker.asked(key.stringValue, at: codingPath)
        return object[key.stringValue] != nil
    }

    func child(_ key: Key) throws -> ValueDecoder {
        tracker.asked(key.stringValue, at: codingPath)
        guard let value = object[key.stringValue] else {
            throw DecodingError.keyNotFound(
                key, DecodingError.Context(codingPath: codingPath, debugDescription: "required but missing"))
        }
        return ValueDecoder(value: value, codingPath: codingPath + [key], tracker: tracker)
    }

    func decodeNil(forKey key: Key) throws -> Bool { try child(key).decodeNil() }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        let decoder = try child(key)
        if decoder.value == .null {
            throw DecodingError.valueNotFound(
                type, DecodingError.Context(codingPath: decoder.codingPath, debugDescription: "found null"))
        }
        return try decoder.decode(type)
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
        -> KeyedDecodingContainer<NestedKey>
    {
        try child(key).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try child(key).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder { ValueDecoder(value: .object(object), codingPath: codingPath, tracker: tracker) }
    func superDecoder(forKey key: Key) throws -> any Decoder { try child(key) }
}

struct UnkeyedContainer: UnkeyedDecodingContainer {
    let array: [JSONValue]
    let codingPath: [any CodingKey]
    let tracker: KeyTracker
    var currentIndex = 0

    var count: Int? { array.count }
    var isAtEnd: Bool { currentIndex >= array.count }

    mutating func next() throws -> ValueDecoder {
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(
                Any.self, DecodingError.Context(codingPath: codingPath, debugDescription: "array too short"))
        }
        defer { currentIndex += 1 }
        return ValueDecoder(
            value: array[currentIndex], codingPath: codingPath + [AnyKey(intValue: currentIndex)], tracker: tracker)
    }

    mutating func decodeNil() throws -> Bool {
        guard !isAtEnd, array[currentIndex] == .null else { return false }
        currentIndex += 1
        return true
    }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { try next().decode(type) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey>
    {
        try next().container(keyedBy: type)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer { try next().unkeyedContainer() }
    mutating func superDecoder() throws -> any Decoder { try next() }
}

extension JSONValue {
    /// What a value is, for "expected …, found …" messages.
    var kind: String {
        switch self {
        case .null: "null"
        case .bool(let flag): "\(flag)"
        case .number: text
        case .string(let text): "the string \"\(text.prefix(40))\""
        case .array: "an array"
        case .object: "an object"
        }
    }
}
