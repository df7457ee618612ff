import Testing

@testable import ShelflineLookup

/// Issue 12: the survey's byte search finds the marker wherever a plain search does.
@Suite struct InputSurveyTests {
    @Test(arguments: [
        "duplicateInFile", "{\"dedupe\":{\"status\":\"duplicateInFile\"}}", "xduplicateInFil", "duplicateInFil",
        "dduplicateInFile", "duplicateinfile", "", "d", "ddddduplicateInFileddd", "{\"title\":\"duplicate\"}duplicateInFile",
        "FFFduplicateInFile", "duplicateInFileF", "Fx", "uplicateInFile", "duplicateInFduplicateInFile",
    ])
    func findsTheMarkerWhereAPlainSearchDoes(_ text: String) {
        let marker = Array("duplicateInFile".utf8), bytes = Array(text.utf8)
        let expected =
            bytes.count >= marker.count
            && (0...(bytes.count - marker.count)).contains { Array(bytes[$0..<($0 + marker.count)]) == marker }
        // From whichever of its bytes the search starts (the survey's `markerAnchor` among them).
        for anchor in marker.indices {
            #expect(bytes.withUnsafeBytes { InputSurvey.contains($0, marker, anchor: anchor) } == expected, "anchor \(anchor)")
        }
        #expect(marker[InputSurvey.markerAnchor] == UInt8(ascii: "F"))
    }
}
