import Foundation
import TestSupport
import TestTraits
import Testing

/// The build writes the per-field code from the one table of fields (`codegen/fields.json`); the two
/// documents the table also gives are committed, and a table edited without `make generate` leaves them behind it.
@Suite(.offCooperativePool) struct GeneratedFieldsTests {
    @Test(.bug(id: 37)) func theCommittedDocsAreWhatTheTableGives() throws {
        let result = try ExecutableRunner.run(
            "/usr/bin/env", ["python3", "codegen/fields.py", "--check"], in: ExecutableRunner.repositoryRoot)
        #expect(result.status == 0, "\(result)")
    }
}
