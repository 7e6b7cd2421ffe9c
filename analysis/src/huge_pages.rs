//! An allocator for the `hexsight` command (and any program that wants it): the
//! system's, with transparent huge pages on Linux for large blocks.
//!
//! A viewshed of a 1000x1000 map fills tens of megabytes of fresh grids and
//! tables, a 4 KiB page fault each; where transparent huge pages are enabled
//! only on request (`madvise`, Debian's default), those faults were about a
//! fifth of its compute. Blocks of [`LARGE`] bytes and more are mapped on their
//! own, on a 2 MiB boundary, and the huge pages asked for: one fault maps 2 MiB.
//! Elsewhere, or where the kernel declines, they are ordinary pages.
//!
//! A freed large block is kept mapped for the next large block that fits in it
//! ([`kept_bytes`]): a fresh page is zeroed by the kernel on first touch, and reading a
//! 45 MB map frees a hundred megabytes that the engine's grids then take again.
//! The first block that fits in none of those kept lets them all go, so the process
//! never holds more than it held at its peak before.
//!
//! ```no_run
//! #[global_allocator]
//! static ALLOC: hexsight_analysis::huge_pages::HugePages = hexsight_analysis::huge_pages::HugePages;
//! ```

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::Mutex;

/// The size from which a block is mapped on its own, in huge pages.
pub const LARGE: usize = 4 << 20;

/// A huge page on x86-64 and most Linux machines.
const HUGE: usize = 2 << 20;

/// [`System`], with blocks of [`LARGE`] bytes and more mapped on their own in
/// whole huge pages on Linux.
pub struct HugePages;

/// True for a block this allocator maps on its own.
fn large(size: usize, align: usize) -> bool {
    cfg!(target_os = "linux") && size >= LARGE && align <= HUGE
}

// SAFETY: small blocks are `System`'s; large ones are fresh anonymous mappings
// (zeroed, aligned to 2 MiB) of at least the size asked, unmapped with the
// same length, and moved by `mremap`, which keeps their contents.
unsafe impl GlobalAlloc for HugePages {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if large(layout.size(), layout.align()) {
            return take(layout.size()).unwrap_or_else(|| map(layout.size()));
        }
        // SAFETY: the caller's contract, passed on.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if large(layout.size(), layout.align()) {
            return match take(layout.size()) {
                // SAFETY: a kept block of at least this size, ours alone now.
                Some(p) => unsafe {
                    std::ptr::write_bytes(p, 0, layout.size());
                    p
                },
                // A fresh mapping reads as zeros.
                None => map(layout.size()),
            };
        }
        // SAFETY: the caller's contract, passed on.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        if large(layout.size(), layout.align()) {
            return keep(ptr, layout.size());
        }
        // SAFETY: the caller's contract, passed on.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let (was, will) = (
            large(layout.size(), layout.align()),
            large(new_size, layout.align()),
        );
        match (was, will) {
            // SAFETY: the caller's contract, passed on.
            (false, false) => unsafe { System.realloc(ptr, layout, new_size) },
            (true, true) => remap(ptr, layout.size(), new_size),
            _ => {
                // Between the two kinds: a new block, the bytes both hold, the old freed.
                // SAFETY: the caller's contract: `new_size` is valid for `layout.align()`.
                let new = unsafe { Layout::from_size_align_unchecked(new_size, layout.align()) };
                // SAFETY: a non-zero size (the caller's contract).
                let to = unsafe { self.alloc(new) };
                if !to.is_null() {
                    // SAFETY: both blocks hold at least this many bytes and are distinct.
                    unsafe {
                        std::ptr::copy_nonoverlapping(ptr, to, layout.size().min(new_size));
                        self.dealloc(ptr, layout);
                    }
                }
                to
            }
        }
    }
}

/// Freed large blocks still mapped, for [`take`]: at most [`KEPT`] of them.
struct Kept {
    /// Each block's start and whole length (a multiple of [`HUGE`]); 0 for none.
    blocks: [(usize, usize); KEPT],
}

/// How many freed blocks are kept.
const KEPT: usize = 16;

static KEPT_BLOCKS: Mutex<Kept> = Mutex::new(Kept {
    blocks: [(0, 0); KEPT],
});

/// Bytes of freed large blocks this process keeps mapped for reuse (none unless
/// [`HugePages`] is its allocator): memory it can take again without asking the
/// system, which [`crate::memory`] counts as available.
pub fn kept_bytes() -> u64 {
    let kept = KEPT_BLOCKS.lock().unwrap_or_else(|e| e.into_inner());
    kept.blocks.iter().map(|&(_, len)| len as u64).sum()
}

/// The smallest kept block that holds `size` bytes, cut to the huge pages it needs
/// (the rest unmapped); with none, every kept block is unmapped (so a new mapping
/// never adds to memory the process already holds).
fn take(size: usize) -> Option<*mut u8> {
    let len = size.next_multiple_of(HUGE);
    let mut kept = KEPT_BLOCKS.lock().unwrap_or_else(|e| e.into_inner());
    let best = (0..KEPT)
        .filter(|&k| kept.blocks[k].1 >= len)
        .min_by_key(|&k| kept.blocks[k].1);
    let Some(k) = best else {
        for (start, len) in std::mem::take(&mut kept.blocks) {
            if len > 0 {
                unmap(start as *mut u8, len);
            }
        }
        return None;
    };
    let (start, whole) = std::mem::take(&mut kept.blocks[k]);
    if whole > len {
        unmap((start + len) as *mut u8, whole - len);
    }
    Some(start as *mut u8)
}

/// Keeps a block [`map`] made for `size` bytes for [`take`], or unmaps it when
/// [`KEPT`] are kept already.
fn keep(ptr: *mut u8, size: usize) {
    let len = size.next_multiple_of(HUGE);
    let mut kept = KEPT_BLOCKS.lock().unwrap_or_else(|e| e.into_inner());
    match kept.blocks.iter_mut().find(|b| b.1 == 0) {
        Some(slot) => *slot = (ptr as usize, len),
        None => unmap(ptr, len),
    }
}

/// A fresh mapping of `size` bytes (rounded up to whole huge pages) starting on
/// a huge page, advised to be backed by them; null if the kernel refuses.
#[cfg(target_os = "linux")]
fn map(size: usize) -> *mut u8 {
    let len = size.next_multiple_of(HUGE);
    let prot = libc::PROT_READ | libc::PROT_WRITE;
    let flags = libc::MAP_PRIVATE | libc::MAP_ANONYMOUS;
    // One huge page more than needed, so that a start on a huge page lies inside.
    // SAFETY: a new anonymous mapping, which aliases nothing.
    let raw = unsafe { libc::mmap(std::ptr::null_mut(), len + HUGE, prot, flags, -1, 0) };
    if raw == libc::MAP_FAILED {
        return std::ptr::null_mut();
    }
    let raw = raw as usize;
    let start = raw.next_multiple_of(HUGE);
    // SAFETY: the head and tail unmapped lie inside the mapping just made, outside
    // the block returned; the advice is on the block alone.
    unsafe {
        if start > raw {
            libc::munmap(raw as *mut libc::c_void, start - raw);
        }
        // The mapping ends at `raw + len + HUGE`, the block at `start + len`.
        let tail = raw + HUGE - start;
        if tail > 0 {
            libc::munmap((start + len) as *mut libc::c_void, tail);
        }
        libc::madvise(start as *mut libc::c_void, len, libc::MADV_HUGEPAGE);
    }
    start as *mut u8
}

/// Unmaps `len` bytes (whole huge pages) of blocks [`map`] made, used no more.
#[cfg(target_os = "linux")]
fn unmap(ptr: *mut u8, len: usize) {
    // SAFETY: pages of mappings `map` made, which the caller gives up.
    unsafe { libc::munmap(ptr.cast(), len) };
}

/// A block [`map`] made for `old` bytes, grown or shrunk to `new` (moved by the
/// kernel if need be, its bytes kept); null if the kernel refuses.
#[cfg(target_os = "linux")]
fn remap(ptr: *mut u8, old: usize, new: usize) -> *mut u8 {
    let (old, new) = (old.next_multiple_of(HUGE), new.next_multiple_of(HUGE));
    // SAFETY: the whole mapping `map` (or this) made, which the caller gives up.
    let to = unsafe { libc::mremap(ptr.cast(), old, new, libc::MREMAP_MAYMOVE) };
    if to == libc::MAP_FAILED {
        return std::ptr::null_mut();
    }
    // SAFETY: advice on the block just moved.
    unsafe { libc::madvise(to, new, libc::MADV_HUGEPAGE) };
    to.cast()
}

#[cfg(not(target_os = "linux"))]
fn map(_: usize) -> *mut u8 {
    unreachable!("large blocks are mapped on Linux only")
}

#[cfg(not(target_os = "linux"))]
fn unmap(_: *mut u8, _: usize) {
    unreachable!("large blocks are mapped on Linux only")
}

#[cfg(not(target_os = "linux"))]
fn remap(_: *mut u8, _: usize, _: usize) -> *mut u8 {
    unreachable!("large blocks are mapped on Linux only")
}

/// The tests that free, take or count kept blocks run one at a time.
#[cfg(test)]
pub(crate) static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_kept_block_is_taken_again_zeroed_where_asked() {
        let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
        let big = Layout::from_size_align(3 * LARGE, 64).expect("a layout");
        let small = Layout::from_size_align(LARGE + 1, 64).expect("a layout");
        // Whatever the other tests left kept goes first.
        assert!(take(1 << 50).is_none());
        // SAFETY: non-zero sizes; each block written within its length and freed once.
        unsafe {
            let p = HugePages.alloc(big);
            assert!(!p.is_null());
            std::ptr::write_bytes(p, 0xAB, big.size());
            HugePages.dealloc(p, big);
            if cfg!(target_os = "linux") {
                assert!(kept_bytes() >= big.size() as u64, "kept for reuse");
            }
            // Taken again (cut to its size) for a smaller block, which must read as zeros.
            let q = HugePages.alloc_zeroed(small);
            assert!(!q.is_null());
            assert!((0..small.size()).all(|i| *q.add(i) == 0), "zeroed");
            if cfg!(target_os = "linux") {
                assert_eq!(q, p, "the kept block, taken again");
            }
            // A block larger than any kept lets them all go.
            HugePages.dealloc(q, small);
            let r = HugePages.alloc(Layout::from_size_align(8 * LARGE, 64).expect("a layout"));
            assert!(!r.is_null());
            assert_eq!(kept_bytes(), 0, "nothing kept beside a new mapping");
            HugePages.dealloc(r, Layout::from_size_align(8 * LARGE, 64).expect("a layout"));
        }
    }

    #[test]
    fn blocks_large_and_small_hold_what_is_written() {
        let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
        // Each size grows to twice itself: small to small, small to large, large to large.
        for len in [64, LARGE / 2 + 1, LARGE - 1, LARGE, 3 * LARGE + 12_345] {
            let layout = Layout::from_size_align(len, 64).expect("a layout");
            // SAFETY: a non-zero size; the block is written within its length,
            // read back, grown, read again and freed once.
            unsafe {
                let p = HugePages.alloc_zeroed(layout);
                assert!(!p.is_null());
                assert!((0..len).step_by(4096).all(|i| *p.add(i) == 0), "zeroed");
                for i in (0..len).step_by(4093) {
                    *p.add(i) = (i % 251) as u8;
                }
                let q = HugePages.realloc(p, layout, 2 * len);
                assert!(!q.is_null());
                for i in (0..len).step_by(4093) {
                    assert_eq!(*q.add(i), (i % 251) as u8, "byte {i} of {len}");
                }
                let grown = Layout::from_size_align(2 * len, 64).expect("a layout");
                // And back to the first size (large to small where it was small).
                let r = HugePages.realloc(q, grown, len);
                assert!(!r.is_null());
                for i in (0..len).step_by(4093) {
                    assert_eq!(*r.add(i), (i % 251) as u8, "byte {i} of {len}, shrunk");
                }
                HugePages.dealloc(r, layout);
            }
        }
    }

    #[test]
    fn large_blocks_start_on_a_huge_page_and_free_cleanly() {
        let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
        let layout = Layout::from_size_align(LARGE + 1, 8).expect("a layout");
        for _ in 0..64 {
            // SAFETY: a non-zero size; written within it and freed once.
            unsafe {
                let p = HugePages.alloc(layout);
                assert!(!p.is_null());
                if cfg!(target_os = "linux") {
                    assert_eq!(p as usize % HUGE, 0, "on a huge page");
                }
                *p.add(LARGE) = 7;
                HugePages.dealloc(p, layout);
            }
        }
    }
}
