import Foundation
import ShelflineCore
import ShelflineReports

/// One refresh of the import activity for a run directory; writes no report file of its own.
public enum RenderStage: PipelineStage {
    public typealias Parameters = RenderParameters
    public typealias Report = ImportActivityRenderer.Refresh

    /// What `shelfline-render import` takes: the run directory, not files.
    public struct Arguments: Sendable {
        public var runDirectory: String
        /// For the activity's file name and size before parse has reported.
        public var sourceFile: String?
        /// Emit an update even within the minimum interval.
        public var force: Bool

        public init(runDirectory: String, sourceFile: String? = nil, force: Bool = false) {
            self.runDirectory = runDirectory
            self.sourceFile = sourceFile
            self.force = force
        }
    }

    public static var description: Stage { .render }

    public static func run(_ job: StageJob<Arguments>, context: StageContext) async throws -> ImportActivityRenderer.Refresh {
        let parameters = try context.parameters(RenderParameters.self)
        let renderer = ImportActivityRenderer(
            workspace: context.workspace, parameters: parameters,
            files: RunFiles(config: context.config, stages: context.stages))
        // A relative path needs a working directory that exists.
        let runDirectory = try Workspace.absolute(job.arguments.runDirectory, role: .output)
        let result = try renderer.refresh(
            runDirectory: runDirectory, now: context.now(), sourceFile: job.arguments.sourceFile,
            force: job.arguments.force)
        context.log.event([
            "activity": "import",
            "events": result.emitted.isEmpty ? "none" : result.emitted.map(\.rawValue).joined(separator: ","),
            "processed": result.contentState.booksProcessed, "total": result.contentState.totalBooks,
            "step": result.contentState.currentStep,
        ])
        return result
    }
}

extension ImportActivityRenderer.Refresh: StageReport {
    public var rowCount: Int { contentState.booksProcessed }
}

extension RenderParameters: StageParameters {
    public static var stage: StageName { .render }
    public static let ranges: [String: ConfigLimits.Range] = [
        "minimumUpdateIntervalSeconds": .within(0, 86_400), "importStaleAfterMinutes": .within(1, 525_600),
        "importDismissAfterMinutes": .within(1, 525_600), "historyLimit": .atLeast(1), "reportMaximumRows": .atLeast(0),
    ]
}
