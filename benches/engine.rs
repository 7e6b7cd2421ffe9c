//! Benchmarks of the analysis engine (divan): one LOS, one viewshed and the
//! full matrix on generated maps, for every family. Run with `cargo bench
//! --bench engine`; restrict with a filter, e.g. `cargo bench --bench engine -- matrix`.

use divan::{Bencher, black_box};
use hexsight_analysis::Map;
use hexsight_analysis::engine::fast::Engine;
use hexsight_analysis::engine::matrix::{Control, Selection, matrix};
use hexsight_analysis::engine::viewshed::viewshed_of;
use hexsight_analysis::generate::{Generator, generate};
use hexsight_analysis::hex::Layout;
use hexsight_analysis::line_of_sight;

fn main() {
    divan::main();
}

const RULESETS: [&str; 5] = [
    "geometric",
    "combat-commander",
    "asl",
    "napoleonic",
    "miniatures",
];

fn map(ruleset: &str, size: u32) -> Map {
    let g = Generator {
        cols: size,
        rows: size,
        seed: 1,
        ruleset: ruleset.into(),
        layout: Layout::default(),
        dense: false,
    };
    generate(&g).expect("generated")
}

/// One LOS query, corner to corner, the plain explained path.
#[divan::bench(args = RULESETS, consts = [30, 100, 250])]
fn los_plain<const N: u32>(b: Bencher, ruleset: &str) {
    let m = map(ruleset, N);
    let (a, z) = (m.hex_of(0), m.hex_of(m.len() - 1));
    b.bench(|| black_box(line_of_sight(&m, black_box(a), black_box(z))).verdict);
}

/// One LOS query, corner to corner, the fast verdict-only path (engine prepared once).
#[divan::bench(args = RULESETS, consts = [30, 100, 250])]
fn los_fast<const N: u32>(b: Bencher, ruleset: &str) {
    let m = map(ruleset, N);
    let e = Engine::new(&m);
    let n = m.len();
    b.bench(|| black_box(e.sight(black_box(0), black_box(n - 1))));
}

/// One viewshed (the centre hex against every hex, blind hexes included): the
/// engine's pair sweep with one observer, on all cores.
#[divan::bench(args = RULESETS, consts = [30, 100, 250])]
fn viewshed<const N: u32>(b: Bencher, ruleset: &str) {
    let m = map(ruleset, N);
    let e = Engine::new(&m);
    let c = m.len() / 2 + N as usize / 2;
    b.bench(|| {
        viewshed_of(&e, c, &Control::default())
            .expect("not cancelled")
            .blind()
            .len()
    });
}

/// The full matrix: walks prepared and every ordered pair answered, on all cores.
#[divan::bench(args = RULESETS, consts = [30, 60, 100], sample_count = 3, sample_size = 1)]
fn matrix_full<const N: u32>(b: Bencher, ruleset: &str) {
    let m = map(ruleset, N);
    b.bench(|| {
        let e = Engine::new(&m);
        matrix(&e, &Selection::all(&m), &Control::default())
            .expect("not cancelled")
            .bits
            .count()
    });
}

/// Compiling walks without crossings (the zone and viewshed sweeps' first cost):
/// 400 offsets 100 to 400 hexes long, in every direction.
#[divan::bench(sample_count = 10)]
fn walk_compile(b: Bencher) {
    use hexsight_analysis::engine::lines::Pools;
    use hexsight_analysis::hex::Hex;
    let offsets: Vec<Hex> = (0..400)
        .map(|k| {
            let (q, r) = (100 + (k * 37) % 300, -((k * 53) % 250));
            [Hex::new(q, r), Hex::new(-r, q + r), Hex::new(r - q, -q)][k as usize % 3]
        })
        .collect();
    let mut pools = Pools {
        skip_crossings: true,
        ..Pools::default()
    };
    b.bench_local(|| {
        let mut stretches = 0;
        for &d in &offsets {
            pools.clear();
            pools.compile(black_box(d));
            stretches += pools.hexes.len();
        }
        stretches
    });
}
