import Foundation
import Logging
import ShelflineCore
import Testing

/// Collects what a sink or a handler is given.
final class LineBox: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [String] = []
    func append(_ line: String) { lock.withLock { stored.append(line) } }
    var lines: [String] { lock.withLock { stored } }
}

/// A library user's own swift-log handler: records level and message.
struct RecordingHandler: LogHandler {
    let box: LineBox
    var metadata: Logger.Metadata = [:]
    var metadataProvider: Logger.MetadataProvider?
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) { box.append("\(event.level) \(event.message)") }
}

@Suite struct LogfmtTests {
    @Test func anEventIsOneLineWithItsFieldsInOrderAndQuotedWhereNeeded() {
        let box = LineBox()
        let log = Logfmt(sink: box.append)
        log.event(["stage": "parse", "event": "skip", "reason": "up to date", "rows": 15, "path": #"a "b"=c"#])
        log.error("shelfline: error: x.csv: not an export")
        #expect(
            box.lines == [
                #"stage=parse event=skip reason="up to date" rows=15 path="a \"b\"=c""#,
                "shelfline: error: x.csv: not an export",
            ])
    }

    @Test func quietDropsEventsButNeverErrors() {
        let box = LineBox()
        var log = Logfmt(quiet: true, sink: box.append)
        log.event(["stage": "parse", "event": "done"])
        log.error("shelfline: error: boom")
        #expect(box.lines == ["shelfline: error: boom"] && log.quiet)
        log.quiet = false
        log.event(["stage": "parse", "event": "done"])
        #expect(box.lines.last == "stage=parse event=done")
    }

    @Test func aLibraryUserPlugsTheirOwnHandlerIn() {
        let box = LineBox()
        let log = Logfmt(logger: Logger(label: "app") { _ in RecordingHandler(box: box) })
        log.event(["activity": "import", "event": "start"])
        log.error("shelfline: push: the next run retries")
        #expect(box.lines == ["info activity=import event=start", "error shelfline: push: the next run retries"])
    }

    @Test func theLogfmtHandlerAppendsMetadataSortedByKey() {
        let box = LineBox()
        var logger = Logger(label: "test") { LogfmtLogHandler(label: $0, sink: box.append) }
        logger[metadataKey: "run"] = "7c39"
        logger.info("stage=lookup event=start", metadata: ["attempt": "2", "note": "two words"])
        #expect(box.lines == [#"stage=lookup event=start attempt=2 note="two words" run=7c39"#])
    }
}
