import ShelflineCommands

/// Thin entry point: all behaviour lives in `ShelflineCommands.MergeCommand`.
@main
enum Entrypoint {
    static func main() async {
        let run: () async -> Void = MergeCommand.main
        await run()
    }
}
