import Dispatch

#if canImport(Glibc)
    import Glibc
#endif

/// Signals trapped and handed to `onSignal` on a Dispatch queue (`serve`'s graceful shutdown,
/// `watch`'s stop). Not swift-service-lifecycle, whose three packages would be compiled for this alone.
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
