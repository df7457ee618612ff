import CZlib
import Foundation
import ShelflineCore
import ShelflineRender
import Testing
import TestSupport

/// Renders `report.html` in headless Chromium (Debian's `chromium-headless-shell` or `chromium`)
/// and checks the screenshot is not blank: text pixels and the chart's bar colours are present.
@Suite struct ReportScreenshotTests {
    static let browser: String? = ["/usr/bin/chromium-headless-shell", "/usr/bin/chromium", "/usr/bin/chromium-browser"]
        .first { FileManager.default.isExecutableFile(atPath: $0) }

    static var skipReason: String {
        "no headless Chromium found (install it with: apt-get install chromium-headless-shell); screenshot test skipped"
    }

    @Test(.enabled(if: { if browser == nil { print("ReportScreenshotTests: \(skipReason)") }; return browser != nil }()))
    func issue6_reportScreenshotIsNotBlank() throws {
        let browser = try #require(Self.browser)
        let temp = TemporaryDirectory("render-shot")
        let run = try ImportReportPageTests.finishedRun(temp, reviewJSON: ImportReportPageTests.reviewArray)
        let page = try ImportReportPage.write(status: try ImportRunStatus.read(runDirectory: run))
        let png = temp.file("report.png")

        let process = Process()
        process.executableURL = URL(fileURLWithPath: browser)
        process.arguments = ["--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--force-color-profile=srgb",
                             "--user-data-dir=\(temp.file("profile"))", "--screenshot=\(png)", "--window-size=1000,1400",
                             "file://\(page)"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)

        let image = try PNGImage(data: Data(contentsOf: URL(fileURLWithPath: png)))
        #expect(image.width == 1000 && image.height == 1400)
        let background = image.pixel(x: 0, y: 0)
        let differing = image.pixels.filter { $0 != background }.count
        #expect(Double(differing) / Double(image.pixels.count) > 0.005, "only \(differing) non-background pixels")
        // The outcome chart's bars (added #34a853, rejected #ea4335) were painted.
        for (name, colour) in [("added", (52, 168, 83)), ("rejected", (234, 67, 53))] {
            let found = image.pixels.contains { abs(Int($0.r) - colour.0) <= 4 && abs(Int($0.g) - colour.1) <= 4 && abs(Int($0.b) - colour.2) <= 4 }
            #expect(found, "no \(name) bar colour in the screenshot")
        }
    }
}

/// A minimal PNG decoder (8-bit RGB/RGBA, non-interlaced — what Chromium writes) over zlib.
struct PNGImage {
    struct Pixel: Equatable { var r, g, b: UInt8 }
    var width = 0
    var height = 0
    var pixels: [Pixel] = []

    func pixel(x: Int, y: Int) -> Pixel { pixels[y * width + x] }

    init(data: Data) throws {
        let bytes = [UInt8](data)
        struct Bad: Error { var reason: String }
        guard bytes.count > 8, bytes[0..<8] == [137, 80, 78, 71, 13, 10, 26, 10] else { throw Bad(reason: "not a PNG") }
        var offset = 8
        var compressed: [UInt8] = []
        var colourType = 0
        func be32(_ at: Int) -> Int { Int(bytes[at]) << 24 | Int(bytes[at + 1]) << 16 | Int(bytes[at + 2]) << 8 | Int(bytes[at + 3]) }
        while offset + 8 <= bytes.count {
            let length = be32(offset)
            let type = String(decoding: bytes[offset + 4..<offset + 8], as: UTF8.self)
            let body = offset + 8
            guard body + length <= bytes.count else { throw Bad(reason: "truncated chunk") }
            if type == "IHDR" {
                width = be32(body)
                height = be32(body + 4)
                guard bytes[body + 8] == 8, bytes[body + 12] == 0 else { throw Bad(reason: "unsupported depth/interlace") }
                colourType = Int(bytes[body + 9])
            } else if type == "IDAT" {
                compressed += bytes[body..<body + length]
            }
            offset = body + length + 4
        }
        let channels = colourType == 6 ? 4 : colourType == 2 ? 3 : 0
        guard channels > 0 else { throw Bad(reason: "unsupported colour type \(colourType)") }
        let stride = width * channels
        var raw = [UInt8](repeating: 0, count: (stride + 1) * height)
        var destinationLength = uLongf(raw.count)
        let status = raw.withUnsafeMutableBufferPointer { out in
            compressed.withUnsafeBufferPointer { input in
                uncompress(out.baseAddress, &destinationLength, input.baseAddress, uLong(input.count))
            }
        }
        guard status == Z_OK, Int(destinationLength) == raw.count else { throw Bad(reason: "zlib status \(status)") }
        var previous = [UInt8](repeating: 0, count: stride)
        pixels.reserveCapacity(width * height)
        for row in 0..<height {
            let start = row * (stride + 1)
            let filter = raw[start]
            var line = Array(raw[start + 1..<start + 1 + stride])
            for i in 0..<stride {
                let a = i >= channels ? Int(line[i - channels]) : 0
                let b = Int(previous[i])
                let c = i >= channels ? Int(previous[i - channels]) : 0
                let predictor: Int
                switch filter {
                case 0: predictor = 0
                case 1: predictor = a
                case 2: predictor = b
                case 3: predictor = (a + b) / 2
                case 4:
                    let p = a + b - c
                    let pa = abs(p - a), pb = abs(p - b), pc = abs(p - c)
                    predictor = pa <= pb && pa <= pc ? a : pb <= pc ? b : c
                default: throw Bad(reason: "filter \(filter)")
                }
                line[i] = UInt8(truncatingIfNeeded: Int(line[i]) + predictor)
            }
            for x in 0..<width {
                pixels.append(Pixel(r: line[x * channels], g: line[x * channels + 1], b: line[x * channels + 2]))
            }
            previous = line
        }
    }
}
