//! How the server process keeps its freed memory.

/// Buffers of megabytes (a snapshot chunk's rows and entry, the rows of a
/// large transaction) are allocated and freed all the time, on different
/// threads. glibc's defaults hand such memory back to the kernel, which
/// then faults zeroed pages in for the next buffer: a tenth of a snapshot's
/// CPU. Freed memory is kept for reuse instead; what the process holds
/// stays bounded by what it ever used at once. Call it first thing in
/// `main`, before any other thread exists.
pub fn keep_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only sets allocator parameters; it is called (as
    // documented) before any other thread exists.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 64 << 20);
        libc::mallopt(libc::M_TRIM_THRESHOLD, 512 << 20);
    }
}
