import ShelflineCommands

/// Thin entry point: all behaviour lives in `ShelflineCommands.RenderCommand`.
@main
enum Entrypoint {
    static func main() async {
        let run: () async -> Void = RenderCommand.main
        await run()
    }
}
