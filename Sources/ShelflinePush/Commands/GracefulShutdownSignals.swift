import Dispatch

#if canImport(Glibc)
    import Glibc
#endif

/// Signals trapped (their default action no longer kills the process) and handed to `onSignal` on a
/// Dispatch queue: `serve`'s graceful shutdown on SIGTERM and SIGINT (stop accepting, finish the
/// requests in flight, exit 0), `watch`'s stop on SIGTERM. Not swift-service-lifecycle's
/// `ServiceGroup`, whose three packages would be compiled for this alone (docs/performance.md).
final class GracefulShutdownSignals {
    private let sources: [any DispatchSourceSignal]

    init(_ signals: [Int32], onSignal: @escaping @Sendable () -> Void) {
        sources = signals.map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler(handler: onSignal)
            source.resume()
            return source
        }
    }

    func cancel() {
        for source in sources { source.cancel() }
    }
}
