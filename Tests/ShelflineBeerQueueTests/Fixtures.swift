import Foundation
import TestSupport

/// The beer-queue pages kept in `examples/beer-queue`.
enum Fixtures {
    static let examples = ExecutableRunner.repositoryRoot + "/examples/beer-queue"

    static func example(_ name: String) throws -> String {
        try String(contentsOfFile: examples + "/" + name, encoding: .utf8)
    }
}
