//! Hot paths do not allocate: perft and search of every registered game make a number of
//! allocations that does not grow with the number of nodes visited.
//!
//! A separate test binary, because it installs a counting global allocator. Counting is per
//! thread, so the harness's other threads do not disturb it.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use sowfan::registry;
use sowfan::search::limits::Limits;
use sowfan::search::tt::TranspositionTable;
use sowfan::search::{SearchControl, SearchSettings};

struct Counting;

thread_local! {
    static ALLOCATIONS: Cell<u64> = const { Cell::new(0) };
}

fn count() {
    // `try_with`: the thread-local may already be gone while a thread shuts down.
    let _ = ALLOCATIONS.try_with(|c| c.set(c.get() + 1));
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count();
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        count();
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count();
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

fn allocations_during<T>(work: impl FnOnce() -> T) -> (u64, T) {
    let before = ALLOCATIONS.with(Cell::get);
    let result = work();
    (ALLOCATIONS.with(Cell::get) - before, result)
}

#[test]
fn perft_allocates_per_depth_not_per_node() {
    for entry in registry::GAMES {
        let session = registry::create(entry.name, &[]).unwrap();
        // Deep enough for tens of thousands of nodes in every game.
        let mut depth = 1;
        let (allocations, nodes) = loop {
            let stop = std::sync::atomic::AtomicBool::new(false);
            let mut nodes = 0;
            let (allocations, _) =
                allocations_during(|| session.divide(depth, &stop, &mut |_, n| nodes += n));
            if nodes > 20_000 || depth == 8 {
                break (allocations, nodes);
            }
            depth += 1;
        };
        let root_moves = session.legal_moves().len() as u64;
        // Move buffers per depth (and their growth), the root move texts and the result.
        let bound = 8 * u64::from(depth) + 4 * root_moves + 16;
        assert!(
            allocations <= bound,
            "{}: {allocations} allocations for {nodes} nodes at depth {depth} (bound {bound})",
            entry.name
        );
    }
}

#[test]
fn search_allocates_per_iteration_not_per_node() {
    let tt = TranspositionTable::new(4).unwrap();
    let settings = SearchSettings::default();
    for entry in registry::GAMES {
        let session = registry::create(entry.name, &[]).unwrap();
        let control = SearchControl::default();
        tt.clear();
        let limits = Limits {
            nodes: Some(300_000),
            ..Limits::depth(60)
        };
        let (allocations, summary) = allocations_during(|| {
            session
                .search(&limits, &settings, &tt, None, &control, &mut |_| {})
                .unwrap()
        });
        // Small games are solved before the node limit; the others must search enough nodes
        // for an allocation per node to show.
        assert!(
            summary.nodes >= 100_000 || summary.proven,
            "{}: {} nodes",
            entry.name,
            summary.nodes
        );
        // Per search: the ply stack; per iteration: sorting and copying the root lines.
        let bound = 3_000 + 200 * u64::from(summary.depth);
        assert!(
            allocations <= bound,
            "{}: {allocations} allocations for {} nodes (bound {bound})",
            entry.name,
            summary.nodes
        );
    }
}
