import Foundation

/// Any JSON value, for stage parameters the orchestrator fingerprints without knowing their types.
public enum JSONValue: Codable, Sendable, Equatable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .number(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }

    /// Sorted keys, for fingerprints.
    public var canonicalJSON: Data {
        (try? JSONEncoder.shelfline.encode(self)) ?? Data()
    }

    /// The JSON of `value` (a settings section built in code).
    public init(encoding value: some Encodable) throws {
        self = try JSONDecoder().decode(JSONValue.self, from: JSONEncoder.shelfline.encode(value))
    }

    public subscript(key: String) -> JSONValue? {
        if case .object(let object) = self { return object[key] }
        return nil
    }

    /// This object with `value` at the dotted `keyPath` (`openLibrary.baseURL`), creating the
    /// objects on the way; a non-object on the way is replaced.
    public func setting(_ keyPath: String, to value: JSONValue) -> JSONValue {
        let parts = keyPath.split(separator: ".", maxSplits: 1).map(String.init)
        guard let first = parts.first else { return value }
        var object: [String: JSONValue] = if case .object(let object) = self { object } else { [:] }
        object[first] = parts.count == 1 ? value : (object[first] ?? .object([:])).setting(parts[1], to: value)
        return .object(object)
    }
}

/// Lenient readers for values written by people or other tools (review decisions, the beer-queue
/// JSON file): a number or a numeric string alike.
extension JSONValue {
    package var text: String {
        switch self {
        case .string(let string): string
        case .number(let number): number == number.rounded() && abs(number) < 1e15 ? String(Int(number)) : String(number)
        case .bool(let bool): String(bool)
        case .array(let array): array.map(\.text).filter { !$0.isEmpty }.joined(separator: ", ")
        case .object(let object): object["name"]?.text ?? ""
        case .null: ""
        }
    }

    package var integer: Int? {
        switch self {
        case .number(let number) where number == number.rounded() && abs(number) < 1e15: Int(number)
        case .string(let string): Int(string)
        default: nil
        }
    }

}
