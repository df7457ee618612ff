import ShelflineCommands

/// Thin entry point: all behaviour lives in `ShelflineCommands.LookupCommand`.
@main
enum Entrypoint {
    static func main() async {
        let run: () async -> Void = LookupCommand.main
        await run()
    }
}
