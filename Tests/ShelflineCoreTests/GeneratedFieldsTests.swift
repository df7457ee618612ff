import Foundation
import TestSupport
import TestTraits
import Testing

/// The per-field code is written from the one table of fields (`codegen/fields.json`) by
/// `codegen/fields.py`; a table edited without `make generate` leaves the committed files behind it.
@Suite(.offCooperativePool) struct GeneratedFieldsTests {
    @Test(.bug(id: 37)) func generatedFilesAreWhatTheTableGives() throws {
        let result = try ExecutableRunner.run(
            "/usr/bin/env", ["python3", "codegen/fields.py", "--check"], in: ExecutableRunner.repositoryRoot)
        #expect(result.status == 0, "\(result)")
    }
}
