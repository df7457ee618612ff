import ShelflineStageCLI

/// Thin entry point: all behaviour lives in `ShelflineStageCLI.ParseCommand`.
@main
enum Entrypoint {
    static func main() async {
        let run: () async -> Void = ParseCommand.main
        await run()
    }
}
