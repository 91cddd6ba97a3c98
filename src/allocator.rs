//! The process's allocator settings, made first thing in `main`, and in
//! the bench examples that measure `amail inbox`'s way (they include this
//! file, so both run the same settings). The one place outside the
//! library crates with `unsafe` code: the library crates forbid it, and
//! this is a setting of the process, not of a library.
//!
//! Why (issue 16): glibc raises its mmap threshold each time a block
//! above it is freed, up to 32 MB. Once a load's first large temporaries
//! (the walk's lists, the inboxes of its first steps) are freed, every
//! block below that size comes from the heap arenas instead of its own
//! map, and what the load then frees stays resident, arena by arena. A
//! 100,000-message mailbox (49 MB of mail) peaked at 99-102 MB of RSS in
//! `amail inbox`'s way; with the threshold held at glibc's own starting
//! value, 128 KiB, 94.8 MB (`examples/first_frame`, five runs each;
//! `MALLOC_MMAP_THRESHOLD_=131072` in the environment gave the same),
//! and the load was no slower (480-540 ms either way). Setting the
//! threshold once turns glibc's raising of it off.

/// Holds glibc's mmap threshold at 128 KiB (see the module documentation).
/// Elsewhere, nothing.
pub fn tune() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        /// glibc's own starting threshold, no longer raised.
        const MMAP_THRESHOLD: libc::c_int = 128 * 1024;
        // SAFETY: `mallopt` changes a parameter of the allocator and
        // nothing else; it is called before the process starts another
        // thread. A refusal (0) leaves glibc's default, which is safe too.
        unsafe {
            libc::mallopt(libc::M_MMAP_THRESHOLD, MMAP_THRESHOLD);
        }
    }
}
