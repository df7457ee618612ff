import ShelflineCommands

/// Thin entry point: all behaviour lives in `ShelflineCommands.DedupeCommand`.
@main
enum Entrypoint {
    static func main() async {
        let run: () async -> Void = DedupeCommand.main
        await run()
    }
}
