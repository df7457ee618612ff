import CLibdeflate
import CZlib

/// TEXT when short or incompressible, else a BLOB: UTF-8 byte count (LEB128), raw DEFLATE. Prose
/// deflates by about a third, and descriptions are a large part of the index.
enum StoredDescription {
    case text(String)
    case deflated([UInt8])

    /// Below this, DEFLATE's block header and the length would eat the gain.
    static let minimumDeflatedBytes = 64

    /// Merge keeps no more.
    static let maximumCharacters = 2000

    /// One per parsing thread. zlib rather than libdeflate, which prepares its tables on every
    /// call: about three times zlib's CPU with memLevel 1 for the same output.
    final class Compressor {
        private let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        private var output = [UInt8](repeating: 0, count: 256)

        init() {
            stream.initialize(to: z_stream())
            let status = deflateInit2_(
                stream, 6, Z_DEFLATED, -15, 1, Z_DEFAULT_STRATEGY, ZLIB_VERSION,
                Int32(MemoryLayout<z_stream>.size))
            precondition(status == Z_OK, "zlib deflateInit2 failed (\(status))")
        }

        deinit {
            deflateEnd(stream)
            stream.deallocate()
        }

        func store(_ description: String) -> StoredDescription {
            var text =
                description.utf8.count <= StoredDescription.maximumCharacters
                ? description : String(description.prefix(StoredDescription.maximumCharacters))
            let count = text.utf8.count
            guard count >= StoredDescription.minimumDeflatedBytes else { return .text(text) }
            deflateReset(stream)
            let bound = Int(deflateBound(stream, uLong(count))) + 10
            if output.count < bound { output = [UInt8](repeating: 0, count: bound) }
            let stored = text.withUTF8 { input in
                output.withUnsafeMutableBufferPointer { output -> Int in
                    var length = 0
                    var remaining = UInt(count)
                    repeat {
                        output[length] = UInt8(remaining & 0x7F) | (remaining > 0x7F ? 0x80 : 0)
                        remaining >>= 7
                        length += 1
                    } while remaining > 0
                    stream.pointee.next_in = UnsafeMutablePointer(mutating: input.baseAddress)
                    stream.pointee.avail_in = uInt(count)
                    stream.pointee.next_out = output.baseAddress! + length
                    stream.pointee.avail_out = uInt(output.count - length)
                    guard deflate(stream, Z_FINISH) == Z_STREAM_END else { return 0 }
                    return output.count - Int(stream.pointee.avail_out)
                }
            }
            guard stored > 0, stored < count else { return .text(text) }
            return .deflated(Array(output[..<stored]))
        }
    }

    /// Each `CatalogIndex` keeps its own rather than allocating one per description.
    final class Decompressor {
        private let decompressor: OpaquePointer

        init() { decompressor = libdeflate_alloc_decompressor()! }

        deinit { libdeflate_free_decompressor(decompressor) }

        /// Nil when damaged.
        func inflate(_ stored: UnsafeRawBufferPointer) -> String? {
            var count = 0
            var shift = 0
            var position = 0
            while position < stored.count, shift < 63 {
                let byte = stored[position]
                count |= Int(byte & 0x7F) << shift
                position += 1
                if byte & 0x80 == 0 { break }
                shift += 7
            }
            guard position < stored.count, count > 0, count <= 1 << 24 else { return nil }
            var failed = false
            let text = String(unsafeUninitializedCapacity: count) { buffer in
                let result = libdeflate_deflate_decompress(
                    decompressor, stored.baseAddress! + position,
                    stored.count - position, buffer.baseAddress, count, nil)
                failed = result != LIBDEFLATE_SUCCESS
                return failed ? 0 : count
            }
            return failed ? nil : text
        }
    }
}

extension SQLiteStatement {
    func bind(_ index: Int32, _ description: StoredDescription?) {
        switch description {
        case .text(let text): bind(index, text)
        case .deflated(let bytes): bind(index, blob: bytes)
        case nil: bind(index, nil as String?)
        }
    }
}
