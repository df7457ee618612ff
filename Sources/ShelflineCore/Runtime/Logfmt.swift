import Foundation

/// One-line `key=value` log events on stderr, the format cron mail and log tools read best.
///
/// `quiet` drops everything but errors. Values with spaces, quotes or `=` are quoted.
public struct Logfmt: Sendable {
    public var quiet: Bool
    private let sink: @Sendable (String) -> Void

    public init(quiet: Bool = false, sink: @escaping @Sendable (String) -> Void = { line in
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }) {
        self.quiet = quiet
        self.sink = sink
    }

    /// Logs an event: `fields` keep their order.
    public func event(_ fields: KeyValuePairs<String, Any>) {
        guard !quiet else { return }
        sink(Self.format(fields))
    }

    /// Logs an error even when quiet.
    public func error(_ message: String) {
        sink(message)
    }

    public static func format(_ fields: KeyValuePairs<String, Any>) -> String {
        fields.map { key, value in "\(key)=\(quote("\(value)"))" }.joined(separator: " ")
    }

    static func quote(_ value: String) -> String {
        let needsQuotes = value.isEmpty || value.contains { $0 == " " || $0 == "\"" || $0 == "=" || $0 == "\n" }
        guard needsQuotes else { return value }
        let escaped = value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            .replacingOccurrences(of: "\n", with: "\\n")
        return "\"\(escaped)\""
    }
}
