import Foundation

/// Validates JSON lines against a JSON Schema (draft 2020-12) with Python's `jsonschema`, which the
/// benchmarks' Python has. `nil` when that module is missing: a test skips then, and fails under CI.
public enum JSONSchemaCheck {
    /// One line per violation (`line N: $.path: message`); empty when every line is valid.
    public static func violations(ndjson: String, schema: String) throws -> [String]? {
        let script = """
            import json, sys
            try:
                import jsonschema
            except ImportError:
                sys.exit(3)
            validator = jsonschema.Draft202012Validator(json.load(open(sys.argv[1], encoding="utf-8")))
            for number, line in enumerate(open(sys.argv[2], encoding="utf-8"), 1):
                for error in validator.iter_errors(json.loads(line)):
                    print(f"line {number}: {error.json_path}: {error.message}")
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script, schema, ndjson]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        if process.terminationStatus == 3 { return nil }
        guard process.terminationStatus == 0 else { return ["python3 exited \(process.terminationStatus): \(output)"] }
        return output.split(separator: "\n").map(String.init)
    }

    /// Under CI a check that cannot run must fail (`ContinuousIntegration`, the one rule).
    public static var underCI: Bool { ContinuousIntegration.isRunning }
}
