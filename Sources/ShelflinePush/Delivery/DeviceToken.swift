/// A Live Activity push token (update or push-to-start) as the app reports it: hex bytes.
public struct DeviceToken: Hashable, Sendable, Codable, Comparable, CustomStringConvertible {
    /// Lower-case hex.
    public let hex: String

    /// APNs tokens are 32 bytes for devices; Live Activity tokens are longer. Both are accepted.
    public static let byteCounts = 32...255

    /// Validates `text`: hex digits only (spaces and `<>` as iOS prints `Data` are not accepted).
    public init(_ text: String) throws {
        guard !text.isEmpty else { throw PushError.malformedToken(text, reason: "empty") }
        guard text.utf8.allSatisfy({ ($0 >= 48 && $0 <= 57) || ($0 >= 97 && $0 <= 102) || ($0 >= 65 && $0 <= 70) }) else {
            throw PushError.malformedToken(text, reason: "not hex (only 0-9 and a-f allowed)")
        }
        guard text.utf8.count % 2 == 0, Self.byteCounts.contains(text.utf8.count / 2) else {
            throw PushError.malformedToken(
                text,
                reason:
                    "\(text.utf8.count) hex digits; expected an even number between \(Self.byteCounts.lowerBound * 2) and \(Self.byteCounts.upperBound * 2)"
            )
        }
        hex = text.lowercased()
    }

    public init(from decoder: any Decoder) throws {
        try self.init(decoder.singleValueContainer().decode(String.self))
    }

    public func encode(to encoder: any Encoder) throws {
        try hex.encode(to: encoder)
    }

    /// The last 6 digits, as logs and `--dry-run` show a token (`…a1b2c3`).
    public var shortened: String { "…" + hex.suffix(6) }

    public var description: String { shortened }

    public static func < (lhs: DeviceToken, rhs: DeviceToken) -> Bool { lhs.hex < rhs.hex }
}
