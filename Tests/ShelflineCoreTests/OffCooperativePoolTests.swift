import Dispatch
import ShelflineCore
import TestTraits
import Testing

/// The suites that wait for child processes run off the cooperative pool (`OffCooperativePool`).
@Suite(.offCooperativePool) struct OffCooperativePoolTests {
    static var offPool: Bool { DispatchQueue.getSpecific(key: BlockingExecutor.queueKey) == true }

    @Test func aSynchronousTestRunsOnAQueueOfItsOwnNotThePool() {
        #expect(Self.offPool)
    }

    @Test func anAsynchronousTestResumesOffThePoolToo() async {
        await Task.yield()
        #expect(Self.offPool)
    }

    @Test func aTaskWithoutThePreferenceRunsOnThePool() async {
        // The contrast: a detached task has no executor preference.
        #expect(await Task.detached { Self.offPool }.value == false)
    }
}
