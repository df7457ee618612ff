#if canImport(Glibc)
import Glibc
#endif
import Foundation
import ShelflineCore

/// Streams the lines of a dump file, gzip (detected by its magic bytes) or plain, in constant memory.
enum DumpLineReader {
    static func forEachLine(path: String, _ body: (UnsafeRawBufferPointer, Int) throws -> Void) throws {
        if try isGzip(path) {
            try GzipReader(path: path).forEachLine(body)
            return
        }
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { throw FileError.missingInput(path: path, reason: systemErrorMessage()) }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 1 << 18)
        var carry: [UInt8] = []
        var lineNumber = 0
        while true {
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw FileError.io(path: path, reason: "read: \(systemErrorMessage())")
            }
            if count == 0 { break }
            try buffer.withUnsafeBytes { chunk in
                var start = 0
                while start < count {
                    guard let newline = chunk[start..<count].firstIndex(of: 10) else {
                        carry.append(contentsOf: chunk[start..<count])
                        return
                    }
                    lineNumber += 1
                    if carry.isEmpty {
                        try body(UnsafeRawBufferPointer(rebasing: chunk[start..<newline]), lineNumber)
                    } else {
                        carry.append(contentsOf: chunk[start..<newline])
                        try carry.withUnsafeBytes { try body($0, lineNumber) }
                        carry.removeAll(keepingCapacity: true)
                    }
                    start = newline + 1
                }
            }
        }
        if !carry.isEmpty {
            lineNumber += 1
            try carry.withUnsafeBytes { try body($0, lineNumber) }
        }
    }

    static func isGzip(_ path: String) throws -> Bool {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw FileError.missingInput(path: path, reason: "no such file or not readable")
        }
        defer { try? handle.close() }
        let magic = (try? handle.read(upToCount: 2)) ?? Data()
        return magic.count == 2 && magic[magic.startIndex] == 0x1f && magic[magic.startIndex + 1] == 0x8b
    }
}
