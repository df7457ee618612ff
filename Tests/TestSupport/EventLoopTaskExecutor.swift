import NIOCore
import NIOPosix

/// Runs the jobs of a loopback server's answers on an event loop of their own rather than on the
/// process's cooperative pool.
///
/// A server that answers from a plain `Task { … }` needs a free thread of that pool (two on a
/// 2-core machine). In the parallel suite, tests that block those threads (waiting on a child
/// process, a lock) can hold an answer back for tens of seconds — long enough for a client's
/// deadline to expire on a push that in fact arrived. The servers answer from
/// `Task(executorPreference: EventLoopTaskExecutor.answers) { … }` instead. The loop is the test
/// process's for good (never shut down), so an answer still held when its server stops is not
/// dropped by a closed loop.
public final class EventLoopTaskExecutor: TaskExecutor {
    /// The one executor the loopback servers answer on.
    public static let answers = EventLoopTaskExecutor(MultiThreadedEventLoopGroup(numberOfThreads: 1).next())

    private let eventLoop: any EventLoop

    public init(_ eventLoop: any EventLoop) {
        self.eventLoop = eventLoop
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        eventLoop.execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
