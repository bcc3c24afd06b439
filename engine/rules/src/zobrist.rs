//! Zobrist keys: fixed pseudo-random numbers whose XOR identifies a position.
//!
//! One key per piece and square, one per (colour, role, count in hand), and
//! one for Blue to move. Hands are hashed by count, so moving a piece into or
//! out of a hand changes the hash by two XORs. Keys are generated at compile
//! time from a fixed seed, so hashes are the same in every build and run.

use super::types::{Color, Piece, Role, Square};

const fn splitmix(state: u64) -> (u64, u64) {
    let state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    (state, z ^ (z >> 31))
}

/// The most pieces of one role a hand can hold (16 alfils).
pub const MAX_IN_HAND: usize = 16;

struct Keys {
    pieces: [[u64; 64]; 10],
    hands: [[[u64; MAX_IN_HAND + 1]; 5]; 2],
    blue_to_move: u64,
}

static KEYS: Keys = {
    let mut state = 0x1ea9_e7f0_0d5e_ed01u64;
    let mut pieces = [[0u64; 64]; 10];
    let mut p = 0;
    while p < 10 {
        let mut s = 0;
        while s < 64 {
            let (next, key) = splitmix(state);
            state = next;
            pieces[p][s] = key;
            s += 1;
        }
        p += 1;
    }
    let mut hands = [[[0u64; MAX_IN_HAND + 1]; 5]; 2];
    let mut c = 0;
    while c < 2 {
        let mut r = 0;
        while r < 5 {
            // Count 0 keeps key 0, so an empty hand adds nothing.
            let mut n = 1;
            while n <= MAX_IN_HAND {
                let (next, key) = splitmix(state);
                state = next;
                hands[c][r][n] = key;
                n += 1;
            }
            r += 1;
        }
        c += 1;
    }
    let (_, blue_to_move) = splitmix(state);
    Keys {
        pieces,
        hands,
        blue_to_move,
    }
};

/// `N` fixed pseudo-random keys drawn from `seed`, at compile time: the
/// same generator as the position's keys, for other tables of keys (a
/// search's, say) that must not depend on the build or the run.
pub const fn random_keys<const N: usize>(seed: u64) -> [u64; N] {
    let mut keys = [0u64; N];
    let mut state = seed;
    let mut i = 0;
    while i < N {
        let (next, key) = splitmix(state);
        state = next;
        keys[i] = key;
        i += 1;
    }
    keys
}

/// A fixed pseudo-random key for `value` (one step of the same
/// generator), to hash small integers.
#[inline]
pub const fn mix_key(value: u64) -> u64 {
    splitmix(value).1
}

/// The key of `piece` on `sq`.
#[inline]
pub fn piece(piece: Piece, sq: Square) -> u64 {
    KEYS.pieces[piece.index()][sq.index()]
}

/// The key of holding `count` pieces of `role` in `color`'s hand.
#[inline]
pub fn hand(color: Color, role: Role, count: u8) -> u64 {
    KEYS.hands[color.index()][role.index()][(count as usize).min(MAX_IN_HAND)]
}

/// The key XORed in when Blue is to move.
#[inline]
pub fn blue_to_move() -> u64 {
    KEYS.blue_to_move
}
