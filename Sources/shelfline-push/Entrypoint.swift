import ShelflinePushCommands

@main
enum Entrypoint {
    static func main() async {
        let run: () async -> Void = PushCommand.main
        await run()
    }
}
