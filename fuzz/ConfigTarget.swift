import Foundation
import ShelflineCore
import ShelflineParse

/// Fuzz target: the pipeline.json decoder (and the parse stage's parameters inside it).
///
/// Invariants: no crash or trap; any problem is a `ConfigError`-like error with exit 78 and a
/// one-line message; a config that loads gives parse parameters or a 78, never anything else.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzConfig(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = size == 0 ? [] : Array(UnsafeBufferPointer(start: data, count: size))
    let path = scratchFile("pipeline.json", input)
    do {
        let config = try PipelineConfig.load(path: path)
        let parameters = try config.parameters(for: .parse, as: ParseParameters.self, path: path)
        if !(0...1).contains(parameters.maxRejectedShare) || parameters.minRejectedRows < 0 {
            fuzzFail("out-of-range parse parameters accepted: \(parameters)", input)
        }
    } catch {
        checkError(error, allowed: [.config], input)
    }
    return 0
}
