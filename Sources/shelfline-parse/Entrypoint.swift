import ShelflineCommands

/// Thin entry point: all behaviour lives in `ShelflineCommands.ParseCommand`.
@main
enum Entrypoint {
    static func main() async {
        let run: () async -> Void = ParseCommand.main
        await run()
    }
}
