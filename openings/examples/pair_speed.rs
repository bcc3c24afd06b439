//! Measures how long the engine evaluator takes per setup pair at each depth,
//! to size book generation: `cargo run --release -p leaper-openings --example pair_speed`.

use openings::{EngineEvaluator, PairEvaluator};
use rand::SeedableRng;
fn main() {
    let mut ev = EngineEvaluator::new(1).unwrap();
    let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(1);
    let pairs: Vec<_> = (0..20)
        .map(|_| (leaper::Setup::random(&mut rng), leaper::Setup::random(&mut rng)))
        .collect();
    for depth in 1..=6 {
        let t = std::time::Instant::now();
        let mut s = 0i64;
        for (r, b) in &pairs {
            s += ev.evaluate(r, b, depth) as i64;
        }
        println!(
            "depth {depth}: {:.2} ms/pair (sum {s})",
            t.elapsed().as_secs_f64() * 1000.0 / pairs.len() as f64
        );
    }
}
