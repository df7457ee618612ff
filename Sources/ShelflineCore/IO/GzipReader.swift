#if canImport(Glibc)
import Glibc
#endif
import CZlib
import Foundation

/// Streams a gzip file (one or many members) and hands out its lines, in constant memory.
///
/// zlib checks each member's CRC-32 and length trailer; a file that ends before its last member's
/// trailer, or holds anything but gzip members, is `FileError.corrupt` naming the file, never a
/// short read.
public final class GzipReader {
    public let path: String
    private let descriptor: Int32
    private var stream = z_stream()
    private var inputBuffer: [UInt8]
    private var outputBuffer: [UInt8]
    private var streamOpen = false

    public init(path: String, bufferSize: Int = 1 << 18) throws {
        self.path = path
        var info = stat()
        guard stat(path, &info) == 0 else {
            throw FileError.missingInput(path: path, reason: systemErrorMessage())
        }
        guard (info.st_mode & S_IFMT) != S_IFDIR else {
            throw FileError.missingInput(path: path, reason: "is a directory")
        }
        // A FIFO or device would block `open`/`read` forever (and ignore SIGTERM while at it).
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            throw FileError.missingInput(path: path, reason: "\(StageFiles.describe(info.st_mode & S_IFMT)), not a regular file")
        }
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else {
            throw FileError.missingInput(path: path, reason: systemErrorMessage())
        }
        descriptor = fd
        inputBuffer = [UInt8](repeating: 0, count: bufferSize)
        outputBuffer = [UInt8](repeating: 0, count: bufferSize)
    }

    deinit {
        if streamOpen { inflateEnd(&stream) }
        close(descriptor)
    }

    /// Calls `body` with each decompressed chunk, in order, until the end of the last member.
    public func forEachChunk(_ body: (UnsafeRawBufferPointer) throws -> Void) throws {
        // 15 + 16: gzip only, so a plain or zlib-wrapped file is rejected rather than guessed at.
        guard inflateInit2_(&stream, 15 + 16, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            throw FileError.io(path: path, reason: "zlib inflateInit failed")
        }
        streamOpen = true
        var sawAnyInput = false
        var inMember = false
        var fileEnded = false
        try inputBuffer.withUnsafeMutableBufferPointer { inBuf in
            try outputBuffer.withUnsafeMutableBufferPointer { outBuf in
                while true {
                    if stream.avail_in == 0 && !fileEnded {
                        let count = try readSome(into: inBuf)
                        if count == 0 {
                            fileEnded = true
                        } else {
                            sawAnyInput = true
                            stream.next_in = inBuf.baseAddress
                            stream.avail_in = uInt(count)
                        }
                    }
                    if stream.avail_in == 0 && fileEnded {
                        if inMember {
                            throw FileError.corrupt(path: path, line: nil, reason: "truncated gzip file (ends before the CRC-32/size trailer)")
                        }
                        if !sawAnyInput {
                            throw FileError.corrupt(path: path, line: nil, reason: "empty file, not gzip")
                        }
                        return
                    }
                    inMember = true
                    stream.next_out = outBuf.baseAddress
                    stream.avail_out = uInt(outBuf.count)
                    let result = inflate(&stream, Z_NO_FLUSH)
                    let produced = outBuf.count - Int(stream.avail_out)
                    if produced > 0 {
                        try body(UnsafeRawBufferPointer(rebasing: UnsafeMutableRawBufferPointer(outBuf)[..<produced]))
                    }
                    switch result {
                    case Z_STREAM_END:
                        inMember = false
                        inflateReset(&stream)
                    case Z_OK, Z_BUF_ERROR:
                        continue
                    default:
                        let message = stream.msg.map { String(cString: $0) } ?? "error \(result)"
                        throw FileError.corrupt(path: path, line: nil, reason: "corrupt gzip data: \(message)")
                    }
                }
            }
        }
    }

    /// Calls `body` with each line (without its `\n`) and its 1-based number. A last line without a
    /// newline is delivered too; an empty last line after a final newline is not.
    public func forEachLine(_ body: (UnsafeRawBufferPointer, Int) throws -> Void) throws {
        var carry: [UInt8] = []
        var lineNumber = 0
        try forEachChunk { chunk in
            var start = 0
            let count = chunk.count
            while start < count {
                guard let newline = chunk[start..<count].firstIndex(of: UInt8(ascii: "\n")) else {
                    carry.append(contentsOf: UnsafeRawBufferPointer(rebasing: chunk[start..<count]))
                    return
                }
                lineNumber += 1
                if carry.isEmpty {
                    try body(UnsafeRawBufferPointer(rebasing: chunk[start..<newline]), lineNumber)
                } else {
                    carry.append(contentsOf: UnsafeRawBufferPointer(rebasing: chunk[start..<newline]))
                    try carry.withUnsafeBytes { try body($0, lineNumber) }
                    carry.removeAll(keepingCapacity: true)
                }
                start = newline + 1
            }
        }
        if !carry.isEmpty {
            lineNumber += 1
            try carry.withUnsafeBytes { try body($0, lineNumber) }
        }
    }

    private func readSome(into buffer: UnsafeMutableBufferPointer<UInt8>) throws -> Int {
        while true {
            let count = read(descriptor, buffer.baseAddress, buffer.count)
            if count >= 0 { return count }
            if errno == EINTR { continue }
            throw FileError.io(path: path, reason: "read: \(systemErrorMessage())")
        }
    }
}
