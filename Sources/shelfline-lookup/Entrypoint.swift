#if canImport(Glibc)
    /// glibc's `mallopt` (`<malloc.h>` is not in the Glibc module).
    @_silgen_name("mallopt") private func mallopt(_ parameter: Int32, _ value: Int32) -> Int32
    private let M_ARENA_MAX: Int32 = -8
#endif

/// Thin entry point: the command is `LookupCommand` beside this file; the stage's logic lives in its library.
@main
enum Entrypoint {
    static func main() async {
        #if canImport(Glibc)
            // glibc gives each thread that contends for malloc an arena of its own (up to 8 per core);
            // lookup's threads (dump parsers, catalog searches, libcurl transfers) leave a few MB of
            // partly used arenas each. Two arenas lower the peak memory at the same CPU time.
            _ = mallopt(M_ARENA_MAX, 2)
        #endif
        let run: () async -> Void = LookupCommand.main
        await run()
    }
}
