//! The tuner's random number generator: xoshiro256++ seeded through
//! SplitMix64. It is written out here rather than taken from a crate because
//! its whole state is four plain integers, which the saved state stores and
//! restores exactly, so a resumed run draws the very numbers an uninterrupted
//! run would have drawn.

use serde::{Deserialize, Serialize};

/// A small, fast generator with a serializable state.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Rng {
    s: [u64; 4],
}

impl Rng {
    /// A generator whose sequence depends only on `seed`.
    #[must_use]
    pub fn seeded(seed: u64) -> Self {
        let mut x = seed;
        let mut next = || {
            x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = x;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^ (z >> 31)
        };
        let s = [next(), next(), next(), next()];
        // SplitMix64 never gives four zeros in a row, but the all-zero state
        // would be a fixed point, so make sure.
        if s == [0; 4] {
            Self { s: [1, 2, 3, 4] }
        } else {
            Self { s }
        }
    }

    /// Whether the state can produce numbers: the all-zero state cannot.
    #[must_use]
    pub fn is_valid(&self) -> bool {
        self.s != [0; 4]
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        let s = &mut self.s;
        let result = s[0].wrapping_add(s[3]).rotate_left(23).wrapping_add(s[0]);
        let t = s[1] << 17;
        s[2] ^= s[0];
        s[3] ^= s[1];
        s[1] ^= s[2];
        s[0] ^= s[3];
        s[2] ^= t;
        s[3] = s[3].rotate_left(45);
        result
    }

    /// A uniform number in `[0, 1)` with 53 random bits.
    pub fn unit(&mut self) -> f64 {
        const SCALE: f64 = 1.0 / (1u64 << 53) as f64;
        (self.next_u64() >> 11) as f64 * SCALE
    }

    /// `+1.0` or `-1.0` with equal probability.
    pub fn sign(&mut self) -> f64 {
        if self.next_u64() >> 63 == 0 { 1.0 } else { -1.0 }
    }

    /// A standard normal number (Box-Muller; one of the pair is dropped,
    /// which keeps the state a plain array).
    pub fn normal(&mut self) -> f64 {
        let u1 = 1.0 - self.unit(); // in (0, 1]
        let u2 = self.unit();
        (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
    }

    /// A uniform integer in `0..n` (`n > 0`), by rejection so that no value
    /// is favoured.
    pub fn below(&mut self, n: u64) -> u64 {
        if n <= 1 {
            return 0;
        }
        let zone = u64::MAX - u64::MAX % n;
        loop {
            let x = self.next_u64();
            if x < zone {
                return x % n;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_same_sequence_and_moments_look_right() {
        let mut a = Rng::seeded(7);
        let mut b = Rng::seeded(7);
        for _ in 0..100 {
            assert_eq!(a.next_u64(), b.next_u64());
        }
        let n = 200_000;
        let mut rng = Rng::seeded(1);
        let (mut sum, mut sum_sq, mut signs) = (0.0, 0.0, 0.0);
        for _ in 0..n {
            let z = rng.normal();
            sum += z;
            sum_sq += z * z;
            signs += rng.sign();
            let u = rng.unit();
            assert!((0.0..1.0).contains(&u));
        }
        let n = f64::from(n);
        assert!((sum / n).abs() < 0.01);
        assert!((sum_sq / n - 1.0).abs() < 0.02);
        assert!((signs / n).abs() < 0.01);
    }

    #[test]
    fn below_stays_in_range() {
        let mut rng = Rng::seeded(3);
        let mut seen = [0u32; 5];
        for _ in 0..10_000 {
            let i = usize::try_from(rng.below(5)).unwrap_or(0);
            seen[i] += 1;
        }
        assert!(seen.iter().all(|&n| n > 1800));
        assert_eq!(rng.below(0), 0);
        assert_eq!(rng.below(1), 0);
    }
}
