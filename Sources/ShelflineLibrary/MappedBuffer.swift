import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A fixed number of elements, zeroed, in pages mapped for them alone and unmapped when the last
/// reference goes: the key index's shards and the books' chunks, instead of `Array`s.
///
/// Why not `Array` (measured): malloc keeps the pages of 64–512 KB arrays (merge's freed key index)
/// in its heap, and pass 2 adds its own memory on top; unmapped pages go back to the system at once
/// (docs/performance.md, "Figures behind the code's choices").
final class MappedBuffer<Element: BitwiseCopyable> {
    let elements: UnsafeMutableBufferPointer<Element>
    private let bytes: Int

    init(count: Int) {
        bytes = max(1, count * MemoryLayout<Element>.stride)
        guard let base = mmap(nil, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0), base != MAP_FAILED else {
            fatalError("out of memory: mapping \(bytes) bytes failed (errno \(errno))")
        }
        elements = UnsafeMutableBufferPointer(start: base.bindMemory(to: Element.self, capacity: count), count: count)
    }

    /// A copy of the elements, for a value that shares this buffer and is about to change it.
    func copy() -> MappedBuffer {
        let copy = MappedBuffer(count: elements.count)
        _ = copy.elements.initialize(fromContentsOf: elements)
        return copy
    }

    deinit { munmap(elements.baseAddress, bytes) }
}
