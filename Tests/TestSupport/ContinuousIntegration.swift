import Foundation

/// The one place that decides whether the tests run under CI, where a tool, browser or corpus a
/// test needs must be there: missing, the test fails instead of skipping (issue 42).
public enum ContinuousIntegration {
    /// `CI` set to anything but empty, `0`, `false` or `no` (any case): `true`, `1`, `yes` and the
    /// names some CI services put there all count.
    public static var isRunning: Bool { isRunning(environment: ProcessInfo.processInfo.environment) }

    /// `isRunning` for the given environment (what the tests of this rule call).
    public static func isRunning(environment: [String: String]) -> Bool {
        guard let value = environment["CI"]?.trimmingCharacters(in: .whitespaces).lowercased() else { return false }
        return !["", "0", "false", "no"].contains(value)
    }
}
