import ShelflinePushCommands

/// Thin entry point: all behaviour lives in `ShelflinePushCommands.PushCommand`.
@main
enum Entrypoint {
    static func main() async {
        let run: () async -> Void = PushCommand.main
        await run()
    }
}
