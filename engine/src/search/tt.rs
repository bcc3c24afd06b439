//! The transposition table: what earlier searches learned about positions
//! (best move, score bound, depth), so that transpositions and the next
//! iteration of iterative deepening start from it.
//!
//! Buckets of four 16-byte entries fill one cache line. The table is
//! shared by every search thread (lazy SMP) without locks and without
//! unsafe code: an entry is two `AtomicU64`, the key XORed with the data
//! and the data, so a read torn by another thread's write fails the key
//! check and counts as a miss. A lookup only trusts a move after the search
//! has found it legal, so even a collision can cost a little strength but
//! never an illegal move. Replacement prefers, in order: the same key, an
//! empty slot, then the slot with the least depth, counting entries from
//! older searches as shallower.
//!
//! The memory is an anonymous mapping from the system, zeroed and touched
//! only as the search uses it, so even a table of gigabytes is ready at
//! once; a new game clears it, on every core, only if something was stored
//! since it was last empty. On Linux the mapping is offered to the kernel
//! for huge pages (`madvise`): a probe lands on a random line of the
//! table, and with 4 KB pages most probes also miss the address
//! translation cache, a page walk on top of the cache miss. Before the
//! probe, the search asks for the line with the processor's prefetch hint
//! ([`Table::prefetch`]).

use memmap2::MmapMut;
use self_cell::{MutBorrow, self_cell};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use zerocopy::FromBytes;

/// What a stored score means.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    /// The exact score.
    Exact,
    /// At least this (a beta cutoff).
    Lower,
    /// At most this (no move reached alpha).
    Upper,
}

/// An entry as the search reads it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Hit {
    /// The best move found, if any.
    pub mv: Option<Move>,
    /// The score, mate distances relative to the stored position.
    pub score: i32,
    /// The depth searched.
    pub depth: i32,
    /// The kind of bound.
    pub bound: Bound,
}

use crate::rules::Move;

const BUCKET: usize = 4;

/// Words of a bucket: four entries of two words, one cache line.
const BUCKET_WORDS: usize = 2 * BUCKET;

/// One bucket: four entries, each `[key ^ data, data]`, on one cache line.
#[derive(Clone, Copy)]
struct Bucket<'a>(&'a [AtomicU64]);

impl Bucket<'_> {
    /// The entry `i` as `(key, data)`; data 0 is an empty slot.
    #[inline]
    fn read(self, i: usize) -> (u64, u64) {
        let data = self.0[2 * i + 1].load(Ordering::Relaxed);
        let check = self.0[2 * i].load(Ordering::Relaxed);
        (check ^ data, data)
    }

    #[inline]
    fn write(self, i: usize, key: u64, data: u64) {
        self.0[2 * i].store(key ^ data, Ordering::Relaxed);
        self.0[2 * i + 1].store(data, Ordering::Relaxed);
    }
}

/// The words of a mapping.
type Words<'a> = &'a [AtomicU64];

self_cell!(
    /// The table's memory: the mapping, and the words it holds.
    struct Memory {
        owner: MutBorrow<MmapMut>,
        #[covariant]
        dependent: Words,
    }
);

impl std::fmt::Debug for Memory {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Memory").field("words", &self.words().len()).finish()
    }
}

impl Memory {
    /// `words` zeroed words (at least one), on pages the kernel may back
    /// with huge pages.
    fn zeroed(words: usize) -> std::io::Result<Memory> {
        let bytes = words
            .max(1)
            .checked_mul(size_of::<AtomicU64>())
            .ok_or_else(|| std::io::Error::other("more bytes than an address holds"))?;
        let map = MmapMut::map_anon(bytes)?;
        // Only advice: where the kernel declines, the table works as well
        // on small pages.
        #[cfg(target_os = "linux")]
        let _ = map.advise(memmap2::Advice::HugePage);
        Memory::try_new(MutBorrow::new(map), |map| {
            <[AtomicU64]>::mut_from_bytes(map.borrow_mut())
                .map(|words| &*words)
                .map_err(|_| std::io::Error::other("the mapping is not a whole number of aligned words"))
        })
    }

    fn words(&self) -> &[AtomicU64] {
        self.borrow_dependent()
    }
}

/// Tables up to this many words are cleared on the caller's thread.
const SERIAL_CLEAR_WORDS: usize = 1 << 18;

/// The table. Its size is set in MB; [`Table::clear`] empties it. Probes
/// and stores take `&self`, so that threads can share it.
#[derive(Debug)]
pub struct Table {
    /// The entries as words; bucket `b` is `words[8 * b..][..8]`, on one
    /// cache line since the mapping starts on a page.
    memory: Memory,
    buckets: usize,
    age: u8,
    /// Whether anything may have been stored since the table was empty.
    dirty: AtomicBool,
}

/// Why the table could not be resized.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TableError {
    /// More memory than the machine has.
    #[error("a hash table of {requested} MB does not fit in this machine's {available} MB of memory")]
    TooLarge {
        /// MB asked for.
        requested: usize,
        /// MB of memory the machine reports.
        available: usize,
    },
    /// The system refused the memory.
    #[error("a hash table of {requested} MB: the system refused its memory: {reason}")]
    Refused {
        /// MB asked for.
        requested: usize,
        /// What the system said.
        reason: String,
    },
}

fn pack(mv: Option<Move>, score: i32, depth: i32, bound: Bound, age: u8) -> u64 {
    let code = mv.map_or(0, Move::to_u16) as u64;
    let bound_bits = match bound {
        Bound::Exact => 1u64,
        Bound::Lower => 2,
        Bound::Upper => 3,
    };
    code | ((score as u32 as u64) << 16)
        | ((depth.clamp(0, 255) as u64) << 48)
        | (bound_bits << 56)
        | ((age as u64 & 63) << 58)
}

fn unpack(data: u64) -> Option<Hit> {
    let bound = match (data >> 56) & 3 {
        1 => Bound::Exact,
        2 => Bound::Lower,
        3 => Bound::Upper,
        _ => return None,
    };
    Some(Hit {
        mv: Move::from_u16(data as u16),
        score: (data >> 16) as u32 as i32,
        depth: ((data >> 48) & 255) as i32,
        bound,
    })
}

fn age_of(data: u64) -> u8 {
    ((data >> 58) & 63) as u8
}

/// The machine's memory in MB, where the system tells it (Linux).
fn machine_memory_mb() -> Option<usize> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kb: usize = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024)
}

impl Table {
    /// A table of about `mb` megabytes (at least one bucket).
    ///
    /// # Errors
    /// [`TableError::TooLarge`] when `mb` exceeds the machine's memory.
    pub fn new(mb: usize) -> Result<Table, TableError> {
        Table::check(mb)?;
        let line = BUCKET_WORDS * size_of::<AtomicU64>();
        let buckets = (mb.saturating_mul(1 << 20) / line).max(1);
        // All-zero words are empty entries.
        let memory = Memory::zeroed(buckets * BUCKET_WORDS).map_err(|e| TableError::Refused {
            requested: mb,
            reason: e.to_string(),
        })?;
        Ok(Table {
            memory,
            buckets,
            age: 0,
            dirty: AtomicBool::new(false),
        })
    }

    /// The bucket at `index` (below `self.buckets`).
    #[inline]
    fn bucket(&self, index: usize) -> Option<Bucket<'_>> {
        let start = index * BUCKET_WORDS;
        self.memory.words().get(start..start + BUCKET_WORDS).map(Bucket)
    }

    /// Whether a table of `mb` MB fits in memory.
    ///
    /// # Errors
    /// [`TableError::TooLarge`] when `mb` exceeds the machine's memory.
    pub fn check(mb: usize) -> Result<(), TableError> {
        match machine_memory_mb() {
            Some(available) if mb > available => Err(TableError::TooLarge {
                requested: mb,
                available,
            }),
            _ => Ok(()),
        }
    }

    /// Forgets everything (a new game).
    pub fn clear(&mut self) {
        self.age = 0;
        if !std::mem::replace(self.dirty.get_mut(), false) {
            return;
        }
        let zero = |part: &[AtomicU64]| part.iter().for_each(|w| w.store(0, Ordering::Relaxed));
        let words = self.memory.words();
        let threads = std::thread::available_parallelism().map_or(1, std::num::NonZero::get);
        if threads == 1 || words.len() <= SERIAL_CLEAR_WORDS {
            zero(words);
            return;
        }
        let chunk = words.len().div_ceil(threads);
        std::thread::scope(|scope| {
            for part in words.chunks(chunk) {
                scope.spawn(move || zero(part));
            }
        });
    }

    /// Marks the start of a new search: older entries give way first.
    pub fn new_search(&mut self) {
        self.age = (self.age + 1) & 63;
    }

    #[inline]
    fn index(&self, key: u64) -> usize {
        ((key as u128 * self.buckets as u128) >> 64) as usize
    }

    /// Starts bringing `key`'s bucket into the cache, so that the probe a
    /// little later finds it there: the processor's prefetch hint, which
    /// neither waits for the line nor faults, so the miss overlaps with
    /// the work between (a child's evaluation update). A no-op off x86-64.
    #[inline]
    pub fn prefetch(&self, key: u64) {
        #[cfg(target_arch = "x86_64")]
        if let Some(word) = self.bucket(self.index(key)).and_then(|bucket| bucket.0.first()) {
            safe_arch::prefetch_t0(word);
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = key;
    }

    /// The entry stored for `key`, if any.
    #[inline]
    pub fn probe(&self, key: u64) -> Option<Hit> {
        let bucket = self.bucket(self.index(key))?;
        (0..BUCKET).find_map(|i| match bucket.read(i) {
            (k, data) if k == key && data != 0 => unpack(data),
            _ => None,
        })
    }

    /// Stores what a search found for `key`. A shallower result does not
    /// replace a deeper one of the current search for the same key unless
    /// it is exact, but its move is kept.
    pub fn store(&self, key: u64, mv: Option<Move>, score: i32, depth: i32, bound: Bound) {
        let age = self.age;
        let Some(bucket) = self.bucket(self.index(key)) else {
            return;
        };
        if !self.dirty.load(Ordering::Relaxed) {
            self.dirty.store(true, Ordering::Relaxed);
        }
        let entries: [(u64, u64); BUCKET] = std::array::from_fn(|i| bucket.read(i));
        let same = entries.iter().position(|&(k, data)| k == key && data != 0);
        let slot = match same {
            Some(i) => {
                let old_data = entries[i].1;
                if let Some(old) = unpack(old_data)
                    && old.depth > depth
                    && bound != Bound::Exact
                    && age_of(old_data) == age
                {
                    if mv.is_some() && old.mv != mv {
                        bucket.write(i, key, pack(mv, old.score, old.depth, old.bound, age));
                    }
                    return;
                }
                i
            }
            None => {
                let worth = |&(_, data): &(u64, u64)| {
                    if data == 0 {
                        return i32::MIN;
                    }
                    let stale = (age.wrapping_sub(age_of(data)) & 63) as i32;
                    unpack(data).map_or(i32::MIN, |h| h.depth) - 8 * stale
                };
                (0..BUCKET).min_by_key(|&i| worth(&entries[i])).unwrap_or(0)
            }
        };
        let mv = mv.or_else(|| {
            if same.is_some() {
                unpack(entries[slot].1).and_then(|h| h.mv)
            } else {
                None
            }
        });
        bucket.write(slot, key, pack(mv, score, depth, bound, age));
    }

    /// The share of entries used by the current search, in permill (from
    /// the first thousand entries).
    pub fn hashfull(&self) -> u32 {
        let sample = self.buckets.min(250);
        if sample == 0 {
            return 0;
        }
        let used: usize = (0..sample)
            .filter_map(|b| self.bucket(b))
            .map(|b| {
                (0..BUCKET)
                    .filter(|&i| {
                        let data = b.read(i).1;
                        data != 0 && age_of(data) == self.age
                    })
                    .count()
            })
            .sum();
        (used * 1000 / (sample * BUCKET)) as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::{Role, Square};

    #[test]
    fn entries_round_trip() {
        let mut table = Table::new(1).unwrap();
        assert_eq!(BUCKET_WORDS * size_of::<AtomicU64>(), 64);
        assert_eq!(
            table.bucket(0).unwrap().0.as_ptr().addr() % 64,
            0,
            "buckets on cache lines"
        );
        let mv = Move::Drop {
            role: Role::Knight,
            to: Square::ALL[37],
        };
        table.store(0xdead_beef, Some(mv), -999_123, 7, Bound::Lower);
        assert_eq!(
            table.probe(0xdead_beef),
            Some(Hit {
                mv: Some(mv),
                score: -999_123,
                depth: 7,
                bound: Bound::Lower
            })
        );
        assert_eq!(table.probe(0xdead_bef0), None);
        // A shallower bound keeps the deeper entry but takes the new move.
        let other = Move::Jump {
            from: Square::ALL[1],
            to: Square::ALL[3],
        };
        table.store(0xdead_beef, Some(other), 5, 2, Bound::Upper);
        let hit = table.probe(0xdead_beef).unwrap();
        assert_eq!((hit.mv, hit.depth, hit.score), (Some(other), 7, -999_123));
        table.clear();
        assert_eq!(table.probe(0xdead_beef), None);
    }

    #[test]
    fn a_large_table_is_cleared_on_every_core() {
        // More than a serial clear's words, so the parallel path runs.
        let mut table = Table::new(8).unwrap();
        assert!(table.memory.words().len() > SERIAL_CLEAR_WORDS);
        let keys: Vec<u64> = (0..4000u64).map(|i| i.wrapping_mul(0x9e37_79b9_7f4a_7c15)).collect();
        for &key in &keys {
            table.store(key, None, 1, 3, Bound::Exact);
        }
        assert!(keys.iter().all(|&k| table.probe(k).is_some()));
        table.clear();
        assert!(keys.iter().all(|&k| table.probe(k).is_none()));
        assert!(table.memory.words().iter().all(|w| w.load(Ordering::Relaxed) == 0));
        // Nothing stored since: the next clear has nothing to do.
        assert!(!*table.dirty.get_mut());
    }

    #[test]
    fn absurd_sizes_are_refused() {
        assert!(Table::new(usize::MAX / 2).is_err() || machine_memory_mb().is_none());
        // Beyond the address space: an error, not an overflow.
        assert!(Memory::zeroed(usize::MAX / 4).is_err());
    }
}
