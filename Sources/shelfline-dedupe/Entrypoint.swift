/// Thin entry point: the command is `DedupeCommand` beside this file; the stage's logic lives in its library.
@main
enum Entrypoint {
    static func main() async {
        let run: () async -> Void = DedupeCommand.main
        await run()
    }
}
