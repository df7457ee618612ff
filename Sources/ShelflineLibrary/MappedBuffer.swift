import ShelflineCore

#if canImport(Glibc)
    import Glibc
#endif

/// Elements in pages of their own, unmapped with the last reference: malloc kept the pages of freed 64–512 KB
/// arrays (merge's key index) while pass 2 added its own (measured; docs/performance.md).
final class MappedBuffer<Element: BitwiseCopyable> {
    let elements: UnsafeMutableBufferPointer<Element>

    private init(_ elements: UnsafeMutableBufferPointer<Element>) { self.elements = elements }

    /// `count` elements, zeroed.
    convenience init(count: Int) {
        let bytes = max(1, count * MemoryLayout<Element>.stride)
        guard let base = mmap(nil, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0), base != MAP_FAILED else {
            fatalError("out of memory: mapping \(bytes) bytes failed (errno \(errno))")
        }
        self.init(UnsafeMutableBufferPointer(start: base.bindMemory(to: Element.self, capacity: count), count: count))
    }

    /// A copy of the elements, for a value that shares this buffer and is about to change it.
    func copy() -> MappedBuffer {
        let copy = MappedBuffer(count: elements.count)
        _ = copy.elements.initialize(fromContentsOf: elements)
        return copy
    }

    deinit {
        if let base = elements.baseAddress { munmap(base, max(1, elements.count * MemoryLayout<Element>.stride)) }
    }
}

extension MappedBuffer<UInt8> {
    /// A scratch file's bytes, read-only: pass 2 reads each bucket once, and a heap copy's pages (a megabyte
    /// or more a bucket) were faulted in anew or kept in the loading thread's arena afterwards.
    convenience init(file path: String) throws {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        defer { if descriptor >= 0 { close(descriptor) } }
        var info = stat()
        guard descriptor >= 0, fstat(descriptor, &info) == 0 else {
            throw FileError.io(path: path, reason: "cannot read scratch bucket: \(systemErrorMessage())")
        }
        let count = Int(info.st_size)
        var base: UnsafeMutableRawPointer?
        if count > 0 {
            // MAP_POPULATE: the whole bucket is read, so its pages are mapped in one call, not faulted one by one.
            base = mmap(nil, count, PROT_READ, MAP_PRIVATE | MAP_POPULATE, descriptor, 0)
            guard base != nil, base != MAP_FAILED else {
                throw FileError.io(path: path, reason: "cannot map scratch bucket: \(systemErrorMessage())")
            }
        }
        self.init(UnsafeMutableBufferPointer(start: base?.assumingMemoryBound(to: UInt8.self), count: count))
    }
}
