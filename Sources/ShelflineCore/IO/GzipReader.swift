import CLibdeflate
import CZlib
import Foundation

/// Streams a gzip file (one or many members) in constant memory. Members up to `GzipWriter`'s chunk
/// size are inflated whole by libdeflate; from the first it cannot take whole, zlib streams. Both
/// check every trailer: a file cut short or holding anything else is `FileError.corrupt`, never a
/// short read.
public final class GzipReader {
    /// `GzipWriter`'s default chunk.
    static let wholeMemberLimit = 1 << 20
    /// A member cut by the buffer's end is inflated again once more is read: at 2 MiB that repeats
    /// a few per cent of the work.
    static let wholeMemberReadSize = 2 << 20

    public let path: String
    private let file: RegularFile
    private var stream = z_stream()
    private var inputBuffer: [UInt8]
    private var outputBuffer: [UInt8]
    private var streamOpen = false

    public init(path: String, bufferSize: Int = 1 << 18) throws {
        self.path = path
        file = try RegularFile(path: path)
        inputBuffer = [UInt8](repeating: 0, count: bufferSize)
        outputBuffer = [UInt8](repeating: 0, count: bufferSize)
    }

    deinit {
        if streamOpen { inflateEnd(&stream) }
    }

    public func forEachChunk(_ body: (UnsafeRawBufferPointer) throws -> Void) throws {
        guard var rest = try inflateWholeMembers(body) else { return }
        try rest.withUnsafeMutableBufferPointer { try inflateStream(after: $0, body) }
    }

    /// libdeflate, about 3× zlib's speed, while members fit. Nil when it inflated the whole file,
    /// else the bytes read but not inflated, for zlib.
    private func inflateWholeMembers(_ body: (UnsafeRawBufferPointer) throws -> Void) throws -> [UInt8]? {
        guard let decompressor = libdeflate_alloc_decompressor() else { return [] }
        defer { libdeflate_free_decompressor(decompressor) }
        var pending = [UInt8](repeating: 0, count: Self.wholeMemberReadSize)
        var start = 0, end = 0
        var output = [UInt8](repeating: 0, count: Self.wholeMemberLimit)
        var fileEnded = false, inflatedAny = false
        /// Moves the unread bytes to the front and reads up to a full buffer; false at the end.
        func readMore() throws -> Bool {
            if start > 0 {
                pending.withUnsafeMutableBytes { $0.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[start..<end])) }
                end -= start
                start = 0
            }
            if end == pending.count { pending.append(contentsOf: repeatElement(0, count: Self.wholeMemberReadSize)) }
            let count = try pending.withUnsafeMutableBufferPointer { try file.read(into: .init(rebasing: $0[end...])) }
            end += count
            return count > 0
        }
        while true {
            if !fileEnded && end - start < Self.wholeMemberReadSize / 2 { fileEnded = try !readMore() }
            if start == end { return inflatedAny ? nil : [] }
            var consumed = 0, produced = 0
            let result = pending.withUnsafeBytes { input in
                output.withUnsafeMutableBytes { out in
                    libdeflate_gzip_decompress_ex(
                        decompressor, input.baseAddress! + start, end - start,
                        out.baseAddress, out.count, &consumed, &produced)
                }
            }
            if result == LIBDEFLATE_SUCCESS {
                try output.withUnsafeBytes { try body(UnsafeRawBufferPointer(rebasing: $0[..<produced])) }
                start += consumed
                inflatedAny = true
            } else if result == LIBDEFLATE_BAD_DATA && !fileEnded && end - start < 4 * Self.wholeMemberReadSize {
                // Most likely the member runs past what is read so far.
                fileEnded = try !readMore()
            } else {
                return Array(pending[start..<end])
            }
        }
    }

    /// zlib on `first` (bytes already read), then the rest of the file.
    private func inflateStream(after first: UnsafeMutableBufferPointer<UInt8>, _ body: (UnsafeRawBufferPointer) throws -> Void)
        throws
    {
        // 15 + 16: gzip only, so a plain or zlib-wrapped file is rejected rather than guessed at.
        guard inflateInit2_(&stream, 15 + 16, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            throw FileError.io(path: path, reason: "zlib inflateInit failed")
        }
        streamOpen = true
        var sawAnyInput = !first.isEmpty
        var inMember = false
        var fileEnded = false
        stream.next_in = first.baseAddress
        stream.avail_in = uInt(first.count)
        try inputBuffer.withUnsafeMutableBufferPointer { inBuf in
            try outputBuffer.withUnsafeMutableBufferPointer { outBuf in
                while true {
                    if stream.avail_in == 0 && !fileEnded {
                        let count = try file.read(into: inBuf)
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
                            throw FileError.corrupt(
                                path: path, line: nil, reason: "truncated gzip file (ends before the CRC-32/size trailer)")
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

    /// Each line without its `\n`, numbered from 1 (`LineSplitter`). `readAhead` inflates on a thread
    /// of its own (`ReadAhead`); lines, numbers and errors are the same either way.
    public func forEachLine(readAhead: Bool = true, _ body: (UnsafeRawBufferPointer, Int) throws -> Void) throws {
        var splitter = LineSplitter()
        if readAhead {
            let reader = SoleOwner(value: self)
            try ReadAhead.forEachChunk(produce: { emit in try reader.value.forEachChunk(emit) }) { try splitter.feed($0, body) }
        } else {
            try forEachChunk { try splitter.feed($0, body) }
        }
        try splitter.finish(body)
    }
}

/// Hands a value to the one thread that uses it until the handing code has waited for it to end.
struct SoleOwner<Value>: @unchecked Sendable {
    let value: Value
}
