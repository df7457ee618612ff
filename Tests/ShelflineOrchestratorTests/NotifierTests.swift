import Foundation
import ShelflineCore
import TestSupport
import Testing

@testable import ShelflineOrchestrator

/// Issue 15.2/15.3: the notify command's timeout and cancellation, driven by an injected clock
/// (a real child process that would otherwise run for 1000 s).
@Suite struct NotifierTests {
    /// A clock that moves `step` seconds each time it is read, and runs `onRead` with the count.
    final class SteppingClock: @unchecked Sendable {
        private let lock = NSLock()
        private var reads = 0
        let step: Double
        let onRead: @Sendable (Int) -> Void

        init(step: Double, onRead: @escaping @Sendable (Int) -> Void = { _ in }) {
            self.step = step
            self.onRead = onRead
        }

        func now() -> Date {
            let count = lock.withLock {
                reads += 1; return reads
            }
            onRead(count)
            return Date(timeIntervalSince1970: 1_000_000 + Double(count) * step)
        }
    }

    static let event = ImportEvent(
        event: "finished", runId: "r1", input: "a.csv", workspace: "/ws", message: "done",
        exitStatus: 0, report: nil)

    @Test(.bug(id: 15)) func notifyIsKilledWhenTheInjectedClockPassesItsTimeout() throws {
        let dir = TemporaryDirectory("notifier")
        let clock = SteppingClock(step: 10)
        let errors = LockedLines()
        let notifier = Notifier(
            command: ["/bin/sh", "-c", "echo started; exec sleep 1000"], timeoutSeconds: 30,
            workspace: Workspace(root: dir.path), log: Logfmt(sink: errors.append), now: clock.now)
        #expect(notifier.send(Self.event) == .timedOut)
        #expect(errors.lines == ["shelfline: notify: killed after 30 s (notifyTimeoutSeconds); output in \(dir.path)/notify.log"])
        let log = try String(contentsOfFile: dir.file("notify.log"), encoding: .utf8)
        #expect(log.contains("event=finished run=r1") && log.contains("--- killed after 30 s timeout"), "\(log)")
    }

    @Test(.bug(id: 15)) func notifyStopsWhenTheRunIsCancelled() throws {
        let dir = TemporaryDirectory("notifier-cancel")
        let cancellation = CancellationFlag()
        // The run is asked to stop while notify runs (the third clock read is inside its wait loop).
        let clock = SteppingClock(step: 0) { if $0 == 3 { cancellation.cancel() } }
        let notifier = Notifier(
            command: ["/bin/sleep", "1000"], timeoutSeconds: 600, workspace: Workspace(root: dir.path),
            log: Logfmt(sink: { _ in }), now: clock.now, cancellation: cancellation)
        #expect(notifier.send(Self.event) == .interrupted)
    }

    @Test(.bug(id: 15)) func notifyInputIsTheEventAndItsFailureIsOneLine() throws {
        let dir = TemporaryDirectory("notifier-input")
        let errors = LockedLines()
        let notifier = Notifier(
            command: ["/bin/sh", "-c", "cat; exit 4"], workspace: Workspace(root: dir.path),
            log: Logfmt(sink: errors.append))
        #expect(notifier.send(Self.event) == .failed("/bin/sh exited with status 4"))
        #expect(errors.lines.count == 1 && errors.lines[0].contains("exited with status 4"), "\(errors.lines)")
        let log = try String(contentsOfFile: dir.file("notify.log"), encoding: .utf8)
        #expect(log.contains(#""runId":"r1""#) && log.contains("--- exit 4"), "\(log)")
    }

    /// Lines a `Logfmt` sink received.
    final class LockedLines: @unchecked Sendable {
        private let lock = NSLock()
        private var stored: [String] = []
        var lines: [String] { lock.withLock { stored } }
        func append(_ line: String) { lock.withLock { stored.append(line) } }
    }
}
