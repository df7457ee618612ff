#if canImport(Glibc)
    /// glibc's `mallopt` (`<malloc.h>` is not in the Glibc module).
    @_silgen_name("mallopt") private func mallopt(_ parameter: Int32, _ value: Int32) -> Int32
    private let M_MMAP_THRESHOLD: Int32 = -3
#endif

/// Thin entry point: the command is `MergeCommand` beside this file; the stage's logic lives in its library.
@main
enum Entrypoint {
    static func main() async {
        #if canImport(Glibc)
            // Merge's megabyte buffers are made on one thread and freed on another: glibc's sliding mmap
            // threshold would then keep them in the arenas; a fixed one maps them and gives them back.
            _ = mallopt(M_MMAP_THRESHOLD, 1 << 20)
        #endif
        let run: () async -> Void = MergeCommand.main
        await run()
    }
}
