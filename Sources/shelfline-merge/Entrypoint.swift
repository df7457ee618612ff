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
            // Merge's large buffers (the gzip writers' and readers' megabyte chunks) are made on one
            // thread and freed on another. glibc raises its mmap threshold to the size of each such
            // buffer freed, after which they come from the threads' arenas, whose pages stay with
            // the process. A fixed threshold maps them apart and gives them back when freed.
            _ = mallopt(M_MMAP_THRESHOLD, 1 << 20)
        #endif
        let run: () async -> Void = MergeCommand.main
        await run()
    }
}
