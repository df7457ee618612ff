import ShelflineCommands

/// Thin entry point: all behaviour lives in `ShelflineCommands.ShelflineCommand`.
@main
enum Entrypoint {
    static func main() async {
        let run: () async -> Void = ShelflineCommand.main
        await run()
    }
}
