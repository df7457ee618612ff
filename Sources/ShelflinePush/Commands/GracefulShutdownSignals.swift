import Dispatch

#if canImport(Glibc)
    import Glibc
#endif

/// Signals trapped (their default action no longer kills the process) and handed to `onSignal` on a
/// Dispatch queue: `serve`'s graceful shutdown on SIGTERM and SIGINT (stop accepting, finish the
/// requests in flight, exit 0), `watch`'s stop on SIGTERM. swift-service-lifecycle's `ServiceGroup` did this until issue 24's build-time
/// figures: it compiled AsyncAlgorithms, ServiceLifecycle and UnixSignals for this alone, 19 CPU s
/// of a fresh release build and 8 of a debug one (measured by compiler invocation on this 2-core machine).
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
