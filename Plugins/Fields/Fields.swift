import Foundation
import PackagePlugin

/// Writes a target's per-field code from the one table of fields (`codegen/fields.json`) before the target
/// is compiled, so the generated Swift is a build product and the table stays the only place a field is
/// declared. The generator is `codegen/fields.py` (Python 3, standard library); it rewrites a file only
/// when its text changes, so an unchanged table recompiles nothing.
@main struct Fields: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let output = context.pluginWorkDirectoryURL.appending(path: "generated")
        let script = context.package.directoryURL.appending(path: "codegen/fields.py")
        return [
            .prebuildCommand(
                displayName: "Writing \(target.name)'s per-field code from codegen/fields.json",
                executable: URL(fileURLWithPath: "/usr/bin/env"),
                arguments: ["python3", script.path, "--swift", target.name, output.path],
                outputFilesDirectory: output)
        ]
    }
}
