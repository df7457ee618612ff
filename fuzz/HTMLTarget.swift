import Foundation
import ShelflineActivity
import ShelflineBeerQueue
import ShelflineCore

/// Fuzz target: the beer-queue page parser and the snapshot rendered from what it accepts.
///
/// Invariants: no crash or trap; a refused page is one line with exit 65; an accepted queue never
/// has more rows than headings, its ids are unique digits, and its snapshot's APNs body is a JSON
/// object of at most 4,096 bytes with no control character.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHTML(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = size == 0 ? [] : Array(UnsafeBufferPointer(start: data, count: size))
    let html = String(decoding: input, as: UTF8.self)
    let reading: BeerQueueReading
    do {
        reading = try BeerQueuePage.parse(html, source: "fuzz")
    } catch {
        checkError(error, allowed: [.dataError], input)
        return 0
    }
    guard case .queue(let beers, let skipped) = reading else { return 0 }
    let headings = html.lowercased().components(separatedBy: "<h3").count - 1
    if beers.count + skipped.count > headings { fuzzFail("\(beers.count + skipped.count) rows from \(headings) headings", input) }
    if Set(beers.map(\.id)).count != beers.count { fuzzFail("duplicate ids", input) }
    if !beers.allSatisfy({ !$0.id.isEmpty && $0.id.allSatisfy(\.isNumber) && !$0.name.isEmpty }) { fuzzFail("bad row", input) }
    let workspace = Workspace(root: fuzzScratch + "/ws")
    try? FileManager.default.removeItem(atPath: workspace.root)
    let renderer = BeerQueueRenderer(workspace: workspace, attributes: BeerQueueAttributes(memberId: "123456", storeId: "13888"),
                                     storeLocation: "Example Saucer")
    do {
        guard let snapshot = try renderer.render(.queue(beers), now: Date(timeIntervalSince1970: 1_760_000_000),
                                                 userTriggered: false).snapshot
        else { return 0 }
        let body = try snapshot.apns.encoded()
        if body.count > ShelflineActivity.maximumPushBodyBytes { fuzzFail("APNs body of \(body.count) bytes", input) }
        if !isValidJSON(body) { fuzzFail("APNs body is not JSON", input) }
        if body.contains(where: { $0 < 0x20 && $0 != 0x0A }) { fuzzFail("control byte in the APNs body", input) }
    } catch {
        fuzzFail("rendering an accepted queue failed: \(error)", input)
    }
    return 0
}
