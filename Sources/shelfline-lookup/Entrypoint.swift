#if canImport(Glibc)
    // `<malloc.h>` is not in the Glibc module.
    @_silgen_name("mallopt") private func mallopt(_ parameter: Int32, _ value: Int32) -> Int32
    private let M_ARENA_MAX: Int32 = -8
#endif

@main
enum Entrypoint {
    static func main() async {
        #if canImport(Glibc)
            // Each contending thread gets a malloc arena of its own, left partly used; two arenas
            // lower the peak memory at the same CPU time.
            _ = mallopt(M_ARENA_MAX, 2)
        #endif
        let run: () async -> Void = LookupCommand.main
        await run()
    }
}
