import Foundation
import Logging

/// One-line `key=value` log events on stderr, the format cron mail and log tools read best.
///
/// Built on swift-log, the server ecosystem's logging API: an event is logged at `info` with its
/// logfmt line as the message, an error at `error` with its message as it is, and `quiet` is the
/// logger's level (`error`), which drops everything but errors. The executables' lines come from
/// `LogfmtLogHandler`; a library user passes `Logfmt(logger:)` a `Logger` with their own handler.
/// Values with spaces, quotes or `=` are quoted.
///
/// Why swift-log rather than none: it is built and linked into every executable anyway (Core
/// declares it), so using it adds no start-up memory (`shelfline-parse --version`, peak RSS, see
/// docs/ARCHITECTURE.md) and no build step; dropping it would save only compiling its module once
/// (docs/performance.md).
public struct Logfmt: Sendable {
    /// Where the lines go: its handler, level and metadata.
    public var logger: Logger

    /// Only errors are logged.
    public var quiet: Bool {
        get { logger.logLevel > .info }
        set { logger.logLevel = newValue ? .error : .info }
    }

    /// Lines to `sink` (stderr by default) through `LogfmtLogHandler`.
    public init(quiet: Bool = false, sink: @escaping @Sendable (String) -> Void = LogfmtLogHandler.standardError) {
        logger = Logger(label: "shelfline") { label in LogfmtLogHandler(label: label, sink: sink) }
        self.quiet = quiet
    }

    /// Events and errors through `logger` as it is set up (any `LogHandler`).
    public init(logger: Logger) {
        self.logger = logger
    }

    /// Logs an event: `fields` keep their order.
    public func event(_ fields: KeyValuePairs<String, Any>) {
        logger.info("\(Self.format(fields))")
    }

    /// Logs an error even when quiet.
    public func error(_ message: String) {
        logger.error("\(message)")
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

/// A swift-log handler writing one logfmt line per message: the message as it is, then any
/// metadata (the provider's, the logger's, the call's) as `key=value`, sorted by key. A
/// `Logfmt` event's fields are its message, so its line keeps their order. No timestamp or level
/// is added: the lines are the executables' documented output (cron adds its own time).
public struct LogfmtLogHandler: LogHandler {
    public var metadata: Logger.Metadata = [:]
    public var metadataProvider: Logger.MetadataProvider?
    public var logLevel: Logger.Level = .info
    private let sink: @Sendable (String) -> Void

    /// Writes `line` and a newline to stderr.
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
