import TestSupport
import Testing

/// The one rule every test uses to decide that a missing tool or corpus fails rather than skips
/// (`ContinuousIntegration`): before it, some tests failed only when `CI` was exactly `true`.
@Suite struct ContinuousIntegrationTests {
    @Test(
        .bug(id: 42),
        arguments: [
            ("true", true), ("TRUE", true), ("1", true), ("yes", true), ("Yes", true), ("woodpecker", true),
            ("", false), ("0", false), ("false", false), ("False", false), ("no", false),
        ])
    func aSetCIVariableMeansUnderCIUnlessItSaysNo(_ value: String, _ underCI: Bool) {
        #expect(ContinuousIntegration.isRunning(environment: ["CI": value]) == underCI)
    }

    @Test(.bug(id: 42)) func noCIVariableIsNotUnderCI() {
        #expect(!ContinuousIntegration.isRunning(environment: ["PATH": "/usr/bin"]))
    }
}
