import Foundation
import TestSupport
import TestTraits
import Testing

/// `waitUntil` (TestSupport/Polling.swift) wakes on events, not on a timer (issue 42 item 4): a
/// file another process writes deep under a watched directory, or `TestEvent.post()`.
@Suite(.offCooperativePool) struct EventWaitTests {
    @Test(.bug(id: 42)) func aFileAnotherProcessWritesInANewSubdirectoryEndsTheWait() throws {
        let temp = TemporaryDirectory("event-wait")
        let target = temp.file("a/b/done")
        let writer = Process()
        writer.executableURL = URL(fileURLWithPath: "/bin/sh")
        // Waits for this process's first read of its stdin: the watches are in place by then.
        writer.arguments = ["-c", "read go; mkdir -p '\(temp.file("a/b"))' && echo ok > '\(target)'"]
        let input = Pipe()
        writer.standardInput = input
        try writer.run()
        var started = false
        let seen = waitUntil(watching: [temp.path]) {
            if !started {
                started = true
                input.fileHandleForWriting.write(Data("go\n".utf8))
            }
            return (try? String(contentsOfFile: target, encoding: .utf8)) == "ok\n"
        }
        writer.waitUntilExit()
        #expect(seen, "the file never appeared")
    }

    @Test(.bug(id: 42)) func aPostedEventEndsTheWait() {
        let flag = Flag()
        let seen = waitUntil {
            if !flag.isStarted {
                flag.isStarted = true
                DispatchQueue.blockingWork().async {
                    flag.isSet = true
                    TestEvent.post()
                }
            }
            return flag.isSet
        }
        #expect(seen)
    }

    final class Flag: @unchecked Sendable {
        private let lock = NSLock()
        private var started = false, set = false
        var isStarted: Bool {
            get { lock.withLock { started } }
            set { lock.withLock { started = newValue } }
        }
        var isSet: Bool {
            get { lock.withLock { set } }
            set { lock.withLock { set = newValue } }
        }
    }
}
