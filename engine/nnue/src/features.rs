//! The input features of the learned evaluation, one definition for the
//! trainer and the engine: wazir-relative piece-square features per
//! perspective, plus the pieces in each hand counted one feature per piece.
//!
//! # Symmetry
//! Every piece is a leaper whose leaps are closed under the eight symmetries
//! of the square (rotations and reflections), drops go to any empty square,
//! and nothing in regular play depends on where a square is: only the setup
//! (plies 1 and 2: Red fills rows `a`/`b`, Blue rows `g`/`h`) is tied to the
//! board's orientation, and no position is evaluated during it. So from ply
//! 2 on, the eight board symmetries map games to games with the same
//! outcome. Swapping the colours is a symmetry too as far as the board is
//! concerned (features are relative to a perspective, "own" and "enemy"),
//! though Red moving first and Blue making the 102nd ply are not: the side
//! to move is handled by the network, which reads the mover's accumulator
//! first.
//!
//! # The features of one perspective
//! The board is turned by the symmetry (the *frame*) that brings the
//! perspective's own wazir into the triangle `a1 a2 a3 a4 b2 b3 b4 c3 c4 d4`
//! (row <= column <= 3): ten *buckets*. Within a bucket, a feature is
//! - a piece on a (turned) square: 9 kinds (own alfil, dabbaba, ferz,
//!   knight; enemy alfil, dabbaba, ferz, knight, wazir) x 64 squares; the
//!   own wazir is the bucket and no feature of its own;
//! - a piece in a hand, by count: feature (side, role, k) is active when that
//!   side holds more than k pieces of that role, k < 16 alfils, 8 dabbabas,
//!   4 ferzes, 2 knights: 30 per side.
//!
//! That is 10 x (576 + 60) = 6,360 features per perspective, of which at
//! most 31 are active (the 30 pieces other than the wazirs, each on the
//! board or in a hand, and the enemy wazir).
//!
//! When the own wazir stands on a diagonal of its quadrant, two symmetries
//! bring it into the triangle. The frame then picks the one under which the
//! position sorts first (the enemy wazir's turned square, then the turned
//! bitboards of the nine kinds): a choice that depends only on what the two
//! turned boards look like, so any symmetric image of a position gets
//! exactly the same features. The price: with the wazir on such a diagonal,
//! a move of another piece can switch the frame, which [`move_delta`]
//! reports as a refresh.

use leaper_rules::{Bitboard, Color, Move, Piece, Position, PositionError, Role, Square};

/// The number of wazir buckets (canonical squares of the own wazir).
pub const BUCKETS: usize = 10;
/// Board piece kinds per bucket: own alfil, dabbaba, ferz, knight, then the
/// enemy's alfil, dabbaba, ferz, knight and wazir.
pub const BOARD_KINDS: usize = 9;
/// Hand features of one side: 16 alfils, 8 dabbabas, 4 ferzes, 2 knights.
pub const HAND_SLOTS: usize = 30;
/// Where each droppable role's hand features start within a side's slots.
const HAND_OFFSET: [usize; 4] = [0, 16, 24, 28];
/// Features of one bucket: board features, then own hand, then enemy hand.
pub const FEATURES_PER_BUCKET: usize = BOARD_KINDS * 64 + 2 * HAND_SLOTS;
/// Features of one perspective.
pub const NUM_FEATURES: usize = BUCKETS * FEATURES_PER_BUCKET;
/// The most features active at once for one perspective (31 in a game).
pub const MAX_ACTIVE: usize = 32;

/// One of the eight symmetries of the board: bit 0 flips the rows (`a` <->
/// `h`), bit 1 flips the columns (`1` <-> `8`), bit 2 then swaps row and
/// column (a reflection in the `a1`-`h8` diagonal).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Transform(u8);

const TRANSFORM_TABLE: [[u8; 64]; 8] = {
    let mut table = [[0u8; 64]; 8];
    let mut t = 0;
    while t < 8 {
        let mut sq = 0;
        while sq < 64 {
            let mut row = sq / 8;
            let mut col = sq % 8;
            if t & 1 != 0 {
                row = 7 - row;
            }
            if t & 2 != 0 {
                col = 7 - col;
            }
            if t & 4 != 0 {
                let r = row;
                row = col;
                col = r;
            }
            table[t][sq] = (row * 8 + col) as u8;
            sq += 1;
        }
        t += 1;
    }
    table
};

/// The bucket of a canonical square (row <= column <= 3), by row and column.
const BUCKET_OF: [[u8; 4]; 4] = [[0, 1, 2, 3], [0, 4, 5, 6], [0, 0, 7, 8], [0, 0, 0, 9]];

impl Transform {
    /// The identity.
    pub const IDENTITY: Transform = Transform(0);
    /// All eight symmetries.
    pub const ALL: [Transform; 8] = [
        Transform(0),
        Transform(1),
        Transform(2),
        Transform(3),
        Transform(4),
        Transform(5),
        Transform(6),
        Transform(7),
    ];

    /// The image of `sq`.
    #[inline]
    pub const fn apply(self, sq: Square) -> Square {
        Square::from_index_masked(TRANSFORM_TABLE[self.0 as usize & 7][sq.index() & 63] as u32)
    }

    /// The image of a set of squares, by whole-board bit operations in the
    /// order of [`Transform::apply`] (the frame's tie-break turns up to
    /// sixteen bitboards, which square by square cost a loop each).
    #[inline]
    pub fn apply_bitboard(self, bb: Bitboard) -> Bitboard {
        let mut x = bb.0;
        if self.0 & 1 != 0 {
            // Rows reversed: the eight bytes in reverse order.
            x = x.swap_bytes();
        }
        if self.0 & 2 != 0 {
            // Columns reversed: the bits of each byte in reverse order.
            x = x.reverse_bits().swap_bytes();
        }
        if self.0 & 4 != 0 {
            // Rows and columns swapped: three exchanges of blocks across
            // the diagonal row = column (4 x 4, then 2 x 2, then 1 x 1).
            for (mask, shift) in [
                (0x0f0f_0f0f_0000_0000u64, 28),
                (0x3333_0000_3333_0000, 14),
                (0x5500_5500_5500_5500, 7),
            ] {
                let t = mask & (x ^ (x << shift));
                x ^= t ^ (t >> shift);
            }
        }
        Bitboard(x)
    }

    /// The image of a whole position: board turned, hands, side and ply
    /// kept.
    ///
    /// # Errors
    /// During the setup (ply 1, where Red's pieces must stand on rows
    /// `a`/`b`) the image may be no position of the game; from ply 2 on a
    /// symmetry maps positions to positions and this does not fail.
    pub fn apply_position(self, pos: &Position) -> Result<Position, PositionError> {
        pos.transformed(|sq| self.apply(sq))
    }
}

/// A position seen from one side with the colours swapped: the board keeps
/// its squares, every piece and hand changes colour, and the ply moves by one
/// so that the other side is to move. Features of `pos` for Red equal those
/// of the swapped position for Blue.
///
/// # Errors
/// In the setup phase (plies 0 and 1) the swapped position is no position
/// of the game; from ply 2 on this does not fail.
pub fn swap_colors(pos: &Position) -> Result<Position, PositionError> {
    pos.color_swapped()
}

/// Position re-building helpers kept here, out of the rules crate, through
/// its checked constructor (`Position::from_parts`): the rules need no
/// symmetry API of their own.
trait Rebuild {
    fn transformed(&self, map: impl Fn(Square) -> Square) -> Result<Position, PositionError>;
    fn color_swapped(&self) -> Result<Position, PositionError>;
}

impl Rebuild for Position {
    fn transformed(&self, map: impl Fn(Square) -> Square) -> Result<Position, PositionError> {
        let mut board = [None; 64];
        for sq in Square::ALL {
            board[map(sq).index()] = self.piece_at(sq);
        }
        rebuild(self, &board, false)
    }

    fn color_swapped(&self) -> Result<Position, PositionError> {
        let mut board = [None; 64];
        for sq in Square::ALL {
            board[sq.index()] = self.piece_at(sq).map(|p| Piece::new(!p.color, p.role));
        }
        rebuild(self, &board, true)
    }
}

fn rebuild(pos: &Position, board: &[Option<Piece>; 64], swap: bool) -> Result<Position, PositionError> {
    let hands = Color::ALL.map(|color| *pos.hand(if swap { !color } else { color }));
    let ply = if !swap {
        pos.ply()
    } else if pos.ply() < leaper_rules::MAX_PLY {
        pos.ply() + 1
    } else {
        pos.ply() - 1
    };
    Position::from_parts(*board, hands, Color::to_move_at(ply), ply)
}

/// The frame of one perspective: the wazir bucket and the symmetry that
/// turns the board into it. Equal frames before and after a move mean the
/// features changed only where pieces did.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Frame {
    /// The own wazir's canonical square, 0..10.
    pub bucket: u8,
    /// The symmetry applied to every square.
    pub transform: Transform,
}

impl Frame {
    /// How many frames there are: ten buckets times eight symmetries.
    pub(crate) const COUNT: usize = BUCKETS * 8;

    /// Whether the own wazir stands on a diagonal of its quadrant (row =
    /// column in the triangle: buckets 0, 4, 7 and 9), where the frame
    /// has a tie to break.
    #[inline]
    pub(crate) fn on_diagonal(self) -> bool {
        const DIAGONAL_BUCKETS: u16 = 1 | 1 << 4 | 1 << 7 | 1 << 9;
        DIAGONAL_BUCKETS >> (self.bucket & 15) & 1 != 0
    }

    /// A distinct index below [`Frame::COUNT`].
    #[inline]
    pub(crate) fn index(self) -> usize {
        (self.bucket as usize % BUCKETS) * 8 + (self.transform.0 as usize & 7)
    }
}

/// The board kind of `piece` for `perspective`, `None` for the own wazir.
#[inline]
fn board_kind(perspective: Color, piece: Piece) -> Option<usize> {
    if piece.color == perspective {
        (piece.role != Role::Wazir).then_some(piece.role.index())
    } else {
        Some(4 + piece.role.index())
    }
}

/// The frame of `perspective` in `pos`. A position without that side's
/// wazir (the game is over) gets bucket 0 and the identity, so that nothing
/// downstream has to treat it apart.
pub fn frame(pos: &Position, perspective: Color) -> Frame {
    let Some(w) = pos.wazir(perspective) else {
        return Frame::default();
    };
    let (row, col) = (w.row(), w.col());
    let flips = u8::from(row > 3) | (u8::from(col > 3) << 1);
    let r = if row > 3 { 7 - row } else { row };
    let c = if col > 3 { 7 - col } else { col };
    let bucket = BUCKET_OF[r.min(c) as usize][r.max(c) as usize];
    let transform = match r.cmp(&c) {
        std::cmp::Ordering::Less => Transform(flips),
        std::cmp::Ordering::Greater => Transform(flips | 4),
        std::cmp::Ordering::Equal => tie_break(pos, perspective, Transform(flips), Transform(flips | 4)),
    };
    Frame { bucket, transform }
}

/// Of two symmetries that put the own wazir on the same canonical square,
/// the one under which the position sorts first: a function of the two
/// turned boards alone, hence the same for every symmetric image.
fn tie_break(pos: &Position, perspective: Color, a: Transform, b: Transform) -> Transform {
    let enemy_wazir = |t: Transform| pos.wazir(!perspective).map_or(64, |sq| t.apply(sq).index());
    match enemy_wazir(a).cmp(&enemy_wazir(b)) {
        std::cmp::Ordering::Less => return a,
        std::cmp::Ordering::Greater => return b,
        std::cmp::Ordering::Equal => {}
    }
    for color in [perspective, !perspective] {
        for role in Role::DROPPABLE {
            let bb = pos.squares_of(Piece::new(color, role));
            let (ka, kb) = (a.apply_bitboard(bb).0, b.apply_bitboard(bb).0);
            if ka != kb {
                return if ka < kb { a } else { b };
            }
        }
    }
    a
}

/// The index of a board feature.
#[inline]
fn board_index(frame: Frame, kind: usize, sq: Square) -> u16 {
    (frame.bucket as usize * FEATURES_PER_BUCKET + kind * 64 + frame.transform.apply(sq).index()) as u16
}

/// The index of hand feature `k` (0-based) of `holder`'s `role`.
#[inline]
fn hand_index(frame: Frame, perspective: Color, holder: Color, role: Role, k: u8) -> u16 {
    let side = usize::from(holder != perspective);
    (frame.bucket as usize * FEATURES_PER_BUCKET
        + BOARD_KINDS * 64
        + side * HAND_SLOTS
        + HAND_OFFSET[role.index()]
        + k as usize) as u16
}

/// The own wazir's canonical square (row, column) of each bucket: the
/// inverse of `BUCKET_OF`.
static BUCKET_SQUARE: [(u8, u8); BUCKETS] = [
    (0, 0),
    (0, 1),
    (0, 2),
    (0, 3),
    (1, 1),
    (1, 2),
    (1, 3),
    (2, 2),
    (2, 3),
    (3, 3),
];

/// Training-only *factors* (virtual features): weights shared by many
/// real features, which a trainer adds to every real feature's own weight
/// and folds into it at export, so that what one bucket learns reaches the
/// others and the engine never sees them. The *square* factor of a feature
/// is its kind and turned square (or hand slot) in any bucket: one of
/// [`FEATURES_PER_BUCKET`].
pub const SQUARE_FACTORS: usize = FEATURES_PER_BUCKET;
/// Rows and columns a turned square can lie from the own wazir's canonical
/// square (row and column 0..=3): -3..=7.
const OFFSETS: usize = 11;
/// The *offset* factor of a board feature is its kind and where its turned
/// square lies relative to the own wazir (rows and columns, -3..=7 each),
/// in any bucket: a piece next to the wazir is alike wherever the wazir
/// stands. Hand features have none.
pub const OFFSET_FACTORS: usize = BOARD_KINDS * OFFSETS * OFFSETS;

/// The square factor of feature `f`: `f` with its bucket forgotten,
/// `0..SQUARE_FACTORS`.
#[inline]
pub fn square_factor(f: u16) -> u16 {
    (f as usize % FEATURES_PER_BUCKET) as u16
}

/// The offset factor of feature `f`, `0..OFFSET_FACTORS`, or `None` for a
/// hand feature (or an index past [`NUM_FEATURES`]).
#[inline]
pub fn offset_factor(f: u16) -> Option<u16> {
    let f = f as usize;
    if f >= NUM_FEATURES {
        return None;
    }
    let (bucket, within) = (f / FEATURES_PER_BUCKET, f % FEATURES_PER_BUCKET);
    if within >= BOARD_KINDS * 64 {
        return None;
    }
    let (kind, sq) = (within / 64, within % 64);
    let (wr, wc) = BUCKET_SQUARE[bucket];
    let dr = sq / 8 + 3 - wr as usize;
    let dc = sq % 8 + 3 - wc as usize;
    Some(((kind * OFFSETS + dr) * OFFSETS + dc) as u16)
}

/// A short list of feature indices, at most [`MAX_ACTIVE`].
#[derive(Clone, Copy, Debug)]
pub struct FeatureList {
    items: [u16; MAX_ACTIVE],
    len: usize,
}

impl Default for FeatureList {
    fn default() -> Self {
        FeatureList {
            items: [0; MAX_ACTIVE],
            len: 0,
        }
    }
}

impl FeatureList {
    #[inline]
    pub(crate) fn push(&mut self, index: u16) {
        // A game never has more (see MAX_ACTIVE); a hand-built oddity is
        // cut rather than allowed to index out of range.
        if self.len < MAX_ACTIVE {
            self.items[self.len] = index;
            self.len += 1;
        }
    }

    /// The indices.
    #[inline]
    pub fn as_slice(&self) -> &[u16] {
        &self.items[..self.len]
    }

    /// How many.
    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether there are none.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

/// The active features of `pos` for `perspective`, with the frame they were
/// computed in.
pub fn active_features(pos: &Position, perspective: Color) -> (Frame, FeatureList) {
    let frame = frame(pos, perspective);
    let mut list = FeatureList::default();
    for_each_feature(pos, perspective, frame, |f| list.push(f));
    (frame, list)
}

/// Calls `visit` with each active feature of `pos` for `perspective` in
/// `frame`, which must be [`frame`]`(pos, perspective)` (in the order of
/// [`active_features`], at most [`MAX_ACTIVE`] of them in a game): for a
/// caller that knows the frame and only folds the features, such as a sum
/// from scratch, without the list.
#[inline]
pub(crate) fn for_each_feature(pos: &Position, perspective: Color, frame: Frame, mut visit: impl FnMut(u16)) {
    // Kind by kind from the bitboards (the kinds of `board_kind`: own
    // roles but the wazir, then every enemy role), one table row per frame.
    let bucket = frame.bucket as usize * FEATURES_PER_BUCKET;
    let turn = &TRANSFORM_TABLE[frame.transform.0 as usize];
    let own = Role::DROPPABLE.map(|role| Piece::new(perspective, role));
    let enemy = Role::ALL.map(|role| Piece::new(!perspective, role));
    for piece in own.into_iter().chain(enemy) {
        let Some(kind) = board_kind(perspective, piece) else {
            continue;
        };
        let base = bucket + kind * 64;
        for sq in pos.squares_of(piece) {
            visit((base + turn[sq.index()] as usize) as u16);
        }
    }
    for holder in Color::ALL {
        for role in Role::DROPPABLE {
            let first = hand_index(frame, perspective, holder, role, 0);
            for k in 0..pos.hand(holder).count(role).min(2 * role.count_per_side()) {
                visit(first + u16::from(k));
            }
        }
    }
}

/// What one perspective's features are read from, in a form two positions
/// compare by: the squares of each board kind (untransformed) and the
/// capped hand counts. In one frame, the features of two positions differ
/// exactly where their sources do ([`source_delta`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub(crate) struct FeatureSource {
    /// The squares of each kind of `board_kind`.
    boards: [u64; BOARD_KINDS],
    /// The capped count of each droppable role in each hand, by colour.
    hands: [[u8; 4]; 2],
}

impl FeatureSource {
    /// The source of `perspective`'s features in `pos`.
    #[inline]
    pub(crate) fn of(pos: &Position, perspective: Color) -> FeatureSource {
        let mut boards = [0; BOARD_KINDS];
        for role in Role::ALL {
            if let Some(kind) = board_kind(perspective, Piece::new(perspective, role)) {
                boards[kind] = pos.squares_of(Piece::new(perspective, role)).0;
            }
            if let Some(kind) = board_kind(perspective, Piece::new(!perspective, role)) {
                boards[kind] = pos.squares_of(Piece::new(!perspective, role)).0;
            }
        }
        let hands = Color::ALL
            .map(|holder| Role::DROPPABLE.map(|role| pos.hand(holder).count(role).min(2 * role.count_per_side())));
        FeatureSource { boards, hands }
    }
}

/// Calls `change(feature, false)` with each feature of `perspective` in
/// `frame` that `old` makes active and `new` does not, and
/// `change(feature, true)` with each the other way round: with the sum of
/// `old`'s features in `frame`, the sum of `new`'s, at the cost of the few
/// that differ.
#[inline]
pub(crate) fn source_delta(
    perspective: Color,
    frame: Frame,
    old: &FeatureSource,
    new: &FeatureSource,
    mut change: impl FnMut(u16, bool),
) {
    let bucket = frame.bucket as usize * FEATURES_PER_BUCKET;
    let turn = &TRANSFORM_TABLE[frame.transform.0 as usize];
    for kind in 0..BOARD_KINDS {
        let (was, is) = (old.boards[kind], new.boards[kind]);
        if was == is {
            continue;
        }
        let base = bucket + kind * 64;
        for sq in Bitboard(was & !is) {
            change((base + turn[sq.index()] as usize) as u16, false);
        }
        for sq in Bitboard(is & !was) {
            change((base + turn[sq.index()] as usize) as u16, true);
        }
    }
    if old.hands == new.hands {
        return;
    }
    for holder in Color::ALL {
        for role in Role::DROPPABLE {
            let (was, is) = (
                old.hands[holder.index()][role.index()],
                new.hands[holder.index()][role.index()],
            );
            let first = hand_index(frame, perspective, holder, role, 0);
            for k in is..was {
                change(first + u16::from(k), false);
            }
            for k in was..is {
                change(first + u16::from(k), true);
            }
        }
    }
}

/// How one perspective's features change with a move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FeatureDelta {
    /// The frame changed (the own wazir moved, or was captured, or a
    /// diagonal tie-break flipped): recompute from the position after.
    Refresh(Frame),
    /// The frame is unchanged; these features leave and enter.
    Update {
        /// Features no longer active (at most 2 used).
        removed: [u16; 2],
        /// How many of `removed` are used.
        removed_len: u8,
        /// Features newly active (at most 2 used).
        added: [u16; 2],
        /// How many of `added` are used.
        added_len: u8,
    },
}

impl FeatureDelta {
    /// The removed features of an update (empty for a refresh).
    pub fn removed(&self) -> &[u16] {
        match self {
            FeatureDelta::Refresh(_) => &[],
            FeatureDelta::Update {
                removed, removed_len, ..
            } => &removed[..*removed_len as usize],
        }
    }

    /// The added features of an update (empty for a refresh).
    pub fn added(&self) -> &[u16] {
        match self {
            FeatureDelta::Refresh(_) => &[],
            FeatureDelta::Update { added, added_len, .. } => &added[..*added_len as usize],
        }
    }
}

/// Whether the tie-break of `frame` (`perspective`'s frame of `before`,
/// its own wazir on a diagonal of its quadrant) is settled by the enemy
/// wazir both before and after `mv`: the enemy wazir is neither moved nor
/// taken, and `frame` turns it off the diagonal, so the two candidate
/// symmetries (which differ by swapping rows and columns) turn it to two
/// different squares, and the one that turns it lower is chosen again.
#[inline]
fn enemy_wazir_settles(before: &Position, mv: Move, perspective: Color, frame: Frame) -> bool {
    let Some(enemy) = before.wazir(!perspective) else {
        return false;
    };
    if let Move::Jump { from, to } = mv
        && (from == enemy || to == enemy)
    {
        return false;
    }
    let turned = frame.transform.apply(enemy);
    turned.row() != turned.col()
}

/// The change of `perspective`'s features when `mv` takes `before` (whose
/// frame for `perspective` is `frame_before`) to `after`.
#[inline]
pub fn move_delta(
    before: &Position,
    mv: Move,
    after: &Position,
    perspective: Color,
    frame_before: Frame,
) -> FeatureDelta {
    delta_of(&MoveFacts::of(before, mv), before, mv, after, perspective, frame_before)
}

/// [`move_delta`] for both perspectives (indexed by colour, as are the
/// frames of `before`), reading what the move does from `before` once.
#[inline]
pub fn move_deltas(before: &Position, mv: Move, after: &Position, frames: [Frame; 2]) -> [FeatureDelta; 2] {
    let facts = MoveFacts::of(before, mv);
    let [red, blue] = Color::ALL;
    [
        delta_of(&facts, before, mv, after, red, frames[red.index()]),
        delta_of(&facts, before, mv, after, blue, frames[blue.index()]),
    ]
}

/// What a move does, as both perspectives' deltas need it.
#[derive(Clone, Copy, Debug)]
struct MoveFacts {
    mover: Color,
    /// The piece that lands (`None` for a jump from an empty square, which
    /// no legal move makes).
    moved: Option<Piece>,
    /// The piece taken on the landing square, if any.
    victim: Option<Piece>,
    /// How many of the dropped or taken role the mover held before.
    in_hand: u8,
}

impl MoveFacts {
    #[inline(always)]
    fn of(before: &Position, mv: Move) -> MoveFacts {
        let mover = before.turn();
        match mv {
            Move::Jump { from, to } => {
                let victim = before.piece_at(to);
                MoveFacts {
                    mover,
                    moved: before.piece_at(from),
                    victim,
                    in_hand: victim.map_or(0, |v| before.hand(mover).count(v.role)),
                }
            }
            Move::Drop { role, .. } => MoveFacts {
                mover,
                moved: Some(Piece::new(mover, role)),
                victim: None,
                in_hand: before.hand(mover).count(role),
            },
        }
    }
}

/// [`move_delta`] from the move's facts.
#[inline(always)]
fn delta_of(
    facts: &MoveFacts,
    before: &Position,
    mv: Move,
    after: &Position,
    perspective: Color,
    frame_before: Frame,
) -> FeatureDelta {
    // The frame is a function of the own wazir's square, and of the rest
    // of the position only when that square is on a diagonal of its
    // quadrant (the tie-break): with the wazir neither moved nor taken,
    // and off the diagonals or with the tie settled by the enemy wazir, it
    // stays, and is not recomputed. (A drop moves no wazir.)
    let own_wazir = Some(Piece::new(perspective, Role::Wazir));
    let wazir_stays = facts.moved != own_wazir && facts.victim != own_wazir;
    let frame_after =
        if wazir_stays && (!frame_before.on_diagonal() || enemy_wazir_settles(before, mv, perspective, frame_before)) {
            frame_before
        } else {
            frame(after, perspective)
        };
    if frame_after != frame_before {
        return FeatureDelta::Refresh(frame_after);
    }
    let f = frame_before;
    let mover = facts.mover;
    let mut removed = [0u16; 2];
    let mut added = [0u16; 2];
    let (mut nr, mut na) = (0usize, 0usize);
    let mut remove = |i: u16| {
        removed[nr] = i;
        nr += 1;
    };
    let mut add = |i: u16| {
        added[na] = i;
        na += 1;
    };
    let Some(piece) = facts.moved else {
        return FeatureDelta::Refresh(frame_after);
    };
    match mv {
        Move::Jump { from, to } => {
            if let Some(victim) = facts.victim {
                if let Some(kind) = board_kind(perspective, victim) {
                    remove(board_index(f, kind, to));
                }
                if victim.role != Role::Wazir {
                    let k = facts.in_hand;
                    if k >= 2 * victim.role.count_per_side() {
                        return FeatureDelta::Refresh(frame_after);
                    }
                    add(hand_index(f, perspective, mover, victim.role, k));
                }
            }
            if let Some(kind) = board_kind(perspective, piece) {
                remove(board_index(f, kind, from));
                add(board_index(f, kind, to));
            }
        }
        Move::Drop { role, to } => {
            let k = facts.in_hand;
            if k == 0 || k > 2 * role.count_per_side() {
                return FeatureDelta::Refresh(frame_after);
            }
            remove(hand_index(f, perspective, mover, role, k - 1));
            if let Some(kind) = board_kind(perspective, piece) {
                add(board_index(f, kind, to));
            }
        }
    }
    FeatureDelta::Update {
        removed,
        removed_len: nr as u8,
        added,
        added_len: na as u8,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_turned_bitboard_is_its_squares_turned_one_by_one() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..200 {
            // A xorshift walk through sparse and dense boards alike.
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            for bb in [
                Bitboard(x),
                Bitboard(x & x.rotate_left(23)),
                Bitboard(x | x.rotate_left(11)),
            ] {
                for t in Transform::ALL {
                    let by_square = bb.fold(Bitboard::EMPTY, |acc, sq| acc | Bitboard::from_square(t.apply(sq)));
                    assert_eq!(t.apply_bitboard(bb), by_square, "{t:?} of {:#x}", bb.0);
                }
            }
        }
    }

    #[test]
    fn transforms_are_the_eight_symmetries() {
        let mut images = std::collections::HashSet::new();
        for t in Transform::ALL {
            let image: Vec<usize> = Square::ALL.iter().map(|&sq| t.apply(sq).index()).collect();
            let mut sorted = image.clone();
            sorted.sort_unstable();
            assert_eq!(sorted, (0..64).collect::<Vec<_>>(), "{t:?} is a permutation");
            // Leaps are kept: adjacent squares stay adjacent.
            for sq in Square::ALL {
                for to in leaper_rules::leaps(Role::Knight, sq) {
                    assert!(leaper_rules::leaps(Role::Knight, t.apply(sq)).contains(t.apply(to)));
                }
            }
            images.insert(image);
        }
        assert_eq!(images.len(), 8);
    }

    #[test]
    fn bucket_squares_invert_the_bucket_table_and_offsets_fill_their_range() {
        for (b, &(r, c)) in BUCKET_SQUARE.iter().enumerate() {
            assert_eq!(BUCKET_OF[r as usize][c as usize] as usize, b);
            let frame = Frame {
                bucket: b as u8,
                transform: Transform::IDENTITY,
            };
            assert_eq!(frame.on_diagonal(), r == c, "bucket {b}");
        }
        let mut seen = vec![false; OFFSET_FACTORS];
        for f in 0..NUM_FEATURES as u16 {
            assert!((square_factor(f) as usize) < SQUARE_FACTORS);
            let within = f as usize % FEATURES_PER_BUCKET;
            match offset_factor(f) {
                Some(o) => {
                    assert!(within < BOARD_KINDS * 64, "feature {f}");
                    seen[o as usize] = true;
                }
                None => assert!(within >= BOARD_KINDS * 64, "feature {f}"),
            }
        }
        // The own wazir on a1 (bucket 0) sees a piece on b2 one row and one
        // column away, as the wazir on d4 (bucket 9) sees one on e5.
        let b2 = board_index(
            Frame {
                bucket: 0,
                transform: Transform::IDENTITY,
            },
            2,
            Square::from_index_masked(9),
        );
        let e5 = board_index(
            Frame {
                bucket: 9,
                transform: Transform::IDENTITY,
            },
            2,
            Square::from_index_masked(36),
        );
        assert_eq!(offset_factor(b2), offset_factor(e5));
        assert_ne!(square_factor(b2), square_factor(e5));
        // Both extreme offsets occur: (-3, -3) from d4, (7, 7) from a1.
        assert!(seen[0] && seen[OFFSETS * OFFSETS - 1]);
        assert_eq!(offset_factor(NUM_FEATURES as u16), None);
    }

    #[test]
    fn every_wazir_square_maps_into_the_triangle() {
        let mut seen = [0usize; BUCKETS];
        for sq in Square::ALL {
            let canon = (0..8).filter_map(|t| {
                let img = Transform(t).apply(sq);
                (img.row() <= img.col() && img.col() <= 3).then_some(img)
            });
            let n = canon.clone().count();
            assert!(n == 1 || n == 2, "{sq}: {n} images in the triangle");
            let first = canon
                .clone()
                .next()
                .map(|s| BUCKET_OF[s.row() as usize][s.col() as usize]);
            seen[first.unwrap_or(0) as usize] += 1;
        }
        // Squares on a diagonal have 4 images, the others 8.
        assert_eq!(seen, [4, 8, 8, 8, 4, 8, 8, 4, 8, 4]);
        assert_eq!(NUM_FEATURES, 6360);
    }
}
