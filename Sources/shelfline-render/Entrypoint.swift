/// Thin entry point: the command is `RenderCommand` beside this file; the stage's logic lives in its library.
@main
enum Entrypoint {
    static func main() async {
        let run: () async -> Void = RenderCommand.main
        await run()
    }
}
