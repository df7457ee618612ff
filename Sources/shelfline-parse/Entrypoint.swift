/// Thin entry point: the command is `ParseCommand` beside this file; the stage's logic lives in its library.
@main
enum Entrypoint {
    static func main() async {
        let run: () async -> Void = ParseCommand.main
        await run()
    }
}
