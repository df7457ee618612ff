import Foundation
import Logging

/// One-line `key=value` log events on stderr, the format cron mail and log tools read best: an
/// event at `info` with its logfmt line as the message, an error at `error`; `quiet` drops the rest.
///
/// Why swift-log: every executable links it anyway, so it costs no start-up memory or build step
/// (docs/ARCHITECTURE.md, docs/performance.md), and a library user can pass their own handler.
public struct Logfmt: Sendable {
    public var logger: Logger

    /// Only errors are logged.
    public var quiet: Bool {
        get { logger.logLevel > .info }
        set { logger.logLevel = newValue ? .error : .info }
    }

    public init(quiet: Bool = false, sink: @escaping @Sendable (String) -> Void = LogfmtLogHandler.standardError) {
        logger = Logger(label: "shelfline") { label in LogfmtLogHandler(label: label, sink: sink) }
        self.quiet = quiet
    }

    public init(logger: Logger) {
        self.logger = logger
    }

    /// `fields` keep their order.
    public func event(_ fields: KeyValuePairs<String, Any>) {
        logger.info("\(Self.format(fields))")
    }

    /// Even when quiet.
    public func error(_ message: String) {
        logger.error("\(message)")
    }

    /// Values with spaces, quotes, `=` or newlines are quoted.
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

/// A swift-log handler writing one logfmt line per message: the message, then any metadata as
/// `key=value` sorted by key. No timestamp or level: the lines are the executables' documented
/// output (cron adds its own time).
public struct LogfmtLogHandler: LogHandler {
    public var metadata: Logger.Metadata = [:]
    public var metadataProvider: Logger.MetadataProvider?
    public var logLevel: Logger.Level = .info
    private let sink: @Sendable (String) -> Void

    public static let standardError: @Sendable (String) -> Void = { line in
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }

    public init(
        label: String, sink: @escaping @Sendable (String) -> Void = LogfmtLogHandler.standardError,
        metadataProvider: Logger.MetadataProvider? = nil
    ) {
        self.sink = sink
        self.metadataProvider = metadataProvider
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var all = metadataProvider?.get() ?? [:]
        all.merge(metadata) { _, handler in handler }
        all.merge(event.metadata ?? [:]) { _, call in call }
        guard !all.isEmpty else { return sink(event.message.description) }
        let fields = all.sorted { $0.key < $1.key }.map { "\($0.key)=\(Logfmt.quote($0.value.description))" }
        sink(([event.message.description] + fields).joined(separator: " "))
    }
}
