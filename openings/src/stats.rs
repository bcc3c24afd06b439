//! A description of a book or suite: sizes, the spread of evaluations,
//! where each piece stands, duplicates and mirror pairs.
//!
//! `arena openings stats` prints this; it is also how a user sees at a
//! glance whether a suite is varied (many distinct Red setups, wazirs on
//! many squares) and balanced (evaluations near zero).

use leaper::{Color, Role, Setup};
use leaper_book::Book;
use std::collections::HashSet;

/// Counts of evaluations in equal-width buckets.
#[derive(Clone, Debug, PartialEq)]
pub struct Histogram {
    /// Lower edge of the first bucket.
    pub low: i32,
    /// Width of each bucket.
    pub width: i32,
    /// Entries per bucket; the first and last also hold everything beyond.
    pub counts: Vec<usize>,
}

impl Histogram {
    /// A histogram of `values` over `buckets` buckets spanning their range.
    pub fn of(values: &[i32], buckets: usize) -> Histogram {
        let buckets = buckets.max(1);
        let (Some(&min), Some(&max)) = (values.iter().min(), values.iter().max()) else {
            return Histogram {
                low: 0,
                width: 1,
                counts: vec![0; buckets],
            };
        };
        let span = (max as i64 - min as i64 + 1).max(1);
        let width = ((span + buckets as i64 - 1) / buckets as i64).clamp(1, i32::MAX as i64) as i32;
        let mut counts = vec![0; buckets];
        for &v in values {
            let i = ((v as i64 - min as i64) / width as i64).clamp(0, buckets as i64 - 1) as usize;
            counts[i] += 1;
        }
        Histogram {
            low: min,
            width,
            counts,
        }
    }
}

/// What a book holds.
#[derive(Clone, Debug, PartialEq)]
pub struct BookStats {
    /// Entries.
    pub entries: usize,
    /// Distinct Red setups.
    pub distinct_red: usize,
    /// Distinct Red setups when a setup and its mirror count as one.
    pub distinct_red_up_to_mirror: usize,
    /// Entries that repeat an earlier (Red, Blue) pair exactly.
    pub duplicates: usize,
    /// Entries whose mirrored pair is also in the book (each such pair
    /// counted once).
    pub mirror_pairs: usize,
    /// Smallest, median and largest evaluation (Red's view).
    pub eval_min_median_max: Option<(i32, i32, i32)>,
    /// Mean of the absolute evaluations.
    pub mean_abs_eval: f64,
    /// The evaluations in 10 buckets.
    pub histogram: Histogram,
    /// How often each piece stands on each home square: `[color][role][i]`
    /// counts entries with that role at letter `i` of that colour's setup.
    pub placement: [[[usize; 16]; 5]; 2],
}

impl BookStats {
    /// Describes `book`.
    pub fn of(book: &Book) -> BookStats {
        let entries = book.entries();
        let mut pairs = HashSet::new();
        let mut duplicates = 0;
        let mut reds = HashSet::new();
        let mut reds_up_to_mirror = HashSet::new();
        let mut placement = [[[0usize; 16]; 5]; 2];
        for e in entries {
            if !pairs.insert((e.red, e.blue)) {
                duplicates += 1;
            }
            reds.insert(e.red);
            reds_up_to_mirror.insert(crate::suite::canonical_red(&e.red));
            for (color, setup) in [(Color::Red, &e.red), (Color::Blue, &e.blue)] {
                for (i, role) in setup.roles().iter().enumerate() {
                    placement[color.index()][role.index()][i] += 1;
                }
            }
        }
        let mirror_pairs = pairs
            .iter()
            .filter(|(r, b)| {
                let m = (r.mirror(), b.mirror());
                m != (*r, *b) && pairs.contains(&m) && (r.rank(), b.rank()) < (m.0.rank(), m.1.rank())
            })
            .count();
        let mut evals: Vec<i32> = entries.iter().map(|e| e.eval).collect();
        evals.sort_unstable();
        let eval_min_median_max =
            (!evals.is_empty()).then(|| (evals[0], evals[evals.len() / 2], evals[evals.len() - 1]));
        let mean_abs_eval = if evals.is_empty() {
            0.0
        } else {
            evals.iter().map(|&v| (v as f64).abs()).sum::<f64>() / evals.len() as f64
        };
        BookStats {
            entries: entries.len(),
            distinct_red: reds.len(),
            distinct_red_up_to_mirror: reds_up_to_mirror.len(),
            duplicates,
            mirror_pairs,
            eval_min_median_max,
            mean_abs_eval,
            histogram: Histogram::of(&evals, 10),
            placement,
        }
    }

    /// How often `color`'s `role` stands on each of its 16 home squares, as
    /// fractions of the entries (a row of the placement table).
    pub fn placement_share(&self, color: Color, role: Role) -> [f64; 16] {
        let mut share = [0.0; 16];
        if self.entries > 0 {
            for (i, s) in share.iter_mut().enumerate() {
                *s = self.placement[color.index()][role.index()][i] as f64 / self.entries as f64;
            }
        }
        share
    }

    /// The home square of letter `i` of a `color` setup, for labelling.
    pub fn square_name(color: Color, i: usize) -> String {
        Setup::square(color, i).to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_duplicates_mirrors_and_placements() {
        let text = "AWAAAAAADFFDDDAN addadffdnaaaaawa 120 8\n\
                    AWAAAAAADFFDDDAN addadffdnaaaaawa 100 9\n\
                    AAAAAAWANADDDFFD dffdadda awaaaaan -30 8\n";
        // The third line is broken (a space inside the blue setup).
        let (book, errors) = Book::parse(text);
        assert_eq!(errors.len(), 1);
        let mirror_line = "AAAAAAWANADDDFFD dffdaddaawaaaaan -30 8\n";
        let (book2, _) = Book::parse(&format!("{}{mirror_line}", book.to_text()));
        let stats = BookStats::of(&book2);
        assert_eq!(stats.entries, 3);
        assert_eq!(stats.distinct_red, 2);
        assert_eq!(stats.distinct_red_up_to_mirror, 1);
        assert_eq!(stats.duplicates, 1);
        assert_eq!(stats.mirror_pairs, 1);
        assert_eq!(stats.eval_min_median_max, Some((-30, 100, 120)));
        // Red's wazir is on a2 twice and on a7 once.
        let wazir = stats.placement_share(Color::Red, Role::Wazir);
        assert!((wazir[1] - 2.0 / 3.0).abs() < 1e-12 && (wazir[6] - 1.0 / 3.0).abs() < 1e-12);
        assert_eq!(stats.histogram.counts.iter().sum::<usize>(), 3);
        assert_eq!(BookStats::square_name(Color::Blue, 15), "h8");
    }

    #[test]
    fn histogram_covers_every_value() {
        let h = Histogram::of(&[-100, -5, 0, 3, 99, 100], 4);
        assert_eq!(h.counts.iter().sum::<usize>(), 6);
        assert_eq!(h.low, -100);
        assert_eq!(Histogram::of(&[], 3).counts, vec![0, 0, 0]);
        assert_eq!(Histogram::of(&[7, 7], 3).counts.iter().sum::<usize>(), 2);
    }

    #[test]
    fn numbers_of_a_known_book() {
        // Red's setups differ only in where the wazir and the knight stand.
        let text = "WNFFDDDDAAAAAAAA aaaaaaaaddddffnw -30 4\n\
                    NWFFDDDDAAAAAAAA aaaaaaaaddddffnw 10 4\n\
                    AAAAAAAADDDDFFNW aaaaaaaaddddffnw 200 5\n\
                    AAAAAAAADDDDFFWN wnffddddaaaaaaaa 50 6\n";
        let (book, errors) = Book::parse(text);
        assert!(errors.is_empty(), "{errors:?}");
        let stats = BookStats::of(&book);
        assert_eq!(stats.entries, 4);
        assert_eq!(stats.distinct_red, 4);
        assert_eq!(stats.duplicates, 0);
        // Evals sorted: -30, 10, 50, 200; the median is the upper middle.
        assert_eq!(stats.eval_min_median_max, Some((-30, 50, 200)));
        assert!((stats.mean_abs_eval - 72.5).abs() < 1e-12);
        // 231 values wide in 10 buckets: width 24, from -30.
        assert_eq!(
            stats.histogram,
            Histogram {
                low: -30,
                width: 24,
                counts: vec![1, 1, 0, 1, 0, 0, 0, 0, 0, 1],
            }
        );
        // Red's wazir: letter 0, 1, 15 and 14 once each; every share sums to 1.
        let wazir = stats.placement_share(Color::Red, Role::Wazir);
        for (i, share) in wazir.iter().enumerate() {
            let expected = if [0, 1, 14, 15].contains(&i) { 0.25 } else { 0.0 };
            assert!((share - expected).abs() < 1e-12, "letter {i}: {share}");
        }
        // A setup holds one wazir, one knight, two ferzes, four dabbabas
        // and eight alfils: the shares of a role add up to its count.
        let counts = [
            (Role::Wazir, 1.0),
            (Role::Knight, 1.0),
            (Role::Ferz, 2.0),
            (Role::Dabbaba, 4.0),
            (Role::Alfil, 8.0),
        ];
        for (role, count) in counts {
            for color in [Color::Red, Color::Blue] {
                let total: f64 = stats.placement_share(color, role).iter().sum();
                assert!((total - count).abs() < 1e-12, "{color:?} {role:?}: {total}");
            }
        }
    }

    #[test]
    fn an_empty_book_has_empty_numbers() {
        let stats = BookStats::of(&Book::new(Vec::new()));
        assert_eq!(stats.entries, 0);
        assert_eq!(stats.eval_min_median_max, None);
        assert_eq!(stats.mean_abs_eval, 0.0);
        assert_eq!(stats.histogram.counts, vec![0; 10]);
        assert_eq!(stats.placement_share(Color::Red, Role::Wazir), [0.0; 16]);
    }

    #[test]
    fn histogram_buckets_are_equal_and_cover_the_range() {
        let values: Vec<i32> = (0..10).collect();
        let h = Histogram::of(&values, 5);
        assert_eq!((h.low, h.width, h.counts), (0, 2, vec![2, 2, 2, 2, 2]));
        let h = Histogram::of(&[i32::MIN, i32::MAX], 2);
        assert_eq!(h.counts, vec![1, 1]);
        assert_eq!(Histogram::of(&[5], 0).counts, vec![1]);
    }
}
