//! One training record as it sits in a data file: a position packed into
//! 37 bytes (64 squares of 4 bits, both hands in 28 bits, side and ply in
//! one byte), its score, the game's result for the side to move, the game
//! it came from and how that game opened. [`RECORD_SIZE`] bytes, fixed, so
//! that a file is an array a trainer can index and a reader can check.
//!
//! Layout (little-endian):
//!
//! | bytes  | field |
//! |--------|-------|
//! | 0..32  | board: square `i` in byte `i / 2`, low nibble for even `i`; 0 empty, else `1 + 5 * colour + role` (colour: red 0, blue 1; role: alfil 0, dabbaba 1, ferz 2, knight 3, wazir 4) |
//! | 32..36 | hands, `u32`: red in bits 0..14, blue in 14..28 (alfils 5 bits, dabbabas 4, ferzes 3, knights 2, in that order from the low bit); bits 28..32 zero |
//! | 36     | ply (0..=102) in bits 0..7, bit 7 set when blue is to move |
//! | 37     | result for the side to move: 0 loss, 1 draw, 2 win |
//! | 38     | flags: bit 0 set when the game opened from the book; other bits zero |
//! | 39     | zero |
//! | 40..44 | score, `i32`: the search's value for the side to move, logit x 10,000 |
//! | 44..48 | game, `u32`: the index of the game in its run |
//!
//! The codes are spelled out here rather than taken from the rules' enum
//! order, so that reordering an enum cannot silently change the format.

use leaper_rules::{Color, Hand, MAX_PLY, Piece, Position, Role, Square};
use serde::Serialize;

/// Bytes of one record.
pub const RECORD_SIZE: usize = 48;

/// Roles in the order of their codes.
const ROLES: [Role; 5] = [Role::Alfil, Role::Dabbaba, Role::Ferz, Role::Knight, Role::Wazir];
/// Droppable roles in the order of their hand fields, with each field's width in bits.
const HAND_FIELDS: [(Role, u32); 4] = [(Role::Alfil, 5), (Role::Dabbaba, 4), (Role::Ferz, 3), (Role::Knight, 2)];
/// Bits of one side's hand.
const HAND_BITS: u32 = 14;

/// Why bytes are not a valid record.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RecordError {
    /// A board nibble that codes no piece.
    #[error("square {square} holds code {code}, which is no piece (0 to 10)")]
    BadPiece {
        /// The square.
        square: Square,
        /// The nibble found.
        code: u8,
    },
    /// A hand count beyond what a game can reach.
    #[error("{color} holds {count} {role}s in hand, more than the {max} a game allows")]
    BadHand {
        /// Whose hand.
        color: Color,
        /// Which role.
        role: Role,
        /// The count found.
        count: u8,
        /// The most possible.
        max: u8,
    },
    /// Reserved bits that are not zero.
    #[error("reserved bits are set ({0})")]
    Reserved(&'static str),
    /// A ply past the end of a game.
    #[error("ply {0} is beyond the last ply {MAX_PLY}")]
    BadPly(u32),
    /// Side and ply disagree.
    #[error("ply {ply} is not {side}'s turn")]
    SideMismatch {
        /// The ply.
        ply: u32,
        /// The side recorded.
        side: Color,
    },
    /// A result code other than 0, 1, 2.
    #[error("result code {0} is not 0 (loss), 1 (draw) or 2 (win)")]
    BadResult(u8),
    /// The pieces do not make a position of the game.
    #[error("not a position of the game: {0}")]
    BadPosition(String),
}

/// The result of the game for the side to move of a record's position.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum GameResult {
    /// The side to move lost.
    Loss,
    /// Drawn (the ply limit).
    Draw,
    /// The side to move won.
    Win,
}

impl GameResult {
    /// The result as a training target: 0, 0.5 or 1.
    pub fn as_f32(self) -> f32 {
        match self {
            GameResult::Loss => 0.0,
            GameResult::Draw => 0.5,
            GameResult::Win => 1.0,
        }
    }

    /// The result for `turn` of a game won by `winner` (`None`: drawn).
    pub fn for_side(winner: Option<Color>, turn: Color) -> GameResult {
        match winner {
            None => GameResult::Draw,
            Some(w) if w == turn => GameResult::Win,
            Some(_) => GameResult::Loss,
        }
    }

    /// The winner of the game, knowing whose turn it was.
    pub fn winner(self, turn: Color) -> Option<Color> {
        match self {
            GameResult::Loss => Some(!turn),
            GameResult::Draw => None,
            GameResult::Win => Some(turn),
        }
    }

    const fn code(self) -> u8 {
        match self {
            GameResult::Loss => 0,
            GameResult::Draw => 1,
            GameResult::Win => 2,
        }
    }
}

/// How a game opened.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Opening {
    /// Both setups uniformly random.
    Random,
    /// A setup pair from the engine's built-in book.
    Book,
    /// A recorded game followed move by move (`datagen --games`).
    Recorded,
}

/// A position in 37 bytes; always valid as a board (checked when read).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct PackedPosition {
    board: [u8; 32],
    hands: u32,
    side_ply: u8,
}

impl std::fmt::Debug for PackedPosition {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "PackedPosition({})", self.to_fen())
    }
}

fn piece_code(piece: Piece) -> u8 {
    let role = ROLES.iter().position(|&r| r == piece.role).unwrap_or(0) as u8;
    1 + 5 * piece.color.index() as u8 + role
}

impl PackedPosition {
    /// Packs `pos`.
    pub fn from_position(pos: &Position) -> PackedPosition {
        let mut board = [0u8; 32];
        for sq in Square::ALL {
            if let Some(piece) = pos.piece_at(sq) {
                board[sq.index() / 2] |= piece_code(piece) << (4 * (sq.index() % 2));
            }
        }
        let mut hands = 0u32;
        for color in Color::ALL {
            let mut shift = HAND_BITS * color.index() as u32;
            for (role, bits) in HAND_FIELDS {
                hands |= u32::from(pos.hand(color).count(role)) << shift;
                shift += bits;
            }
        }
        let side = if pos.turn() == Color::Blue { 0x80 } else { 0 };
        PackedPosition {
            board,
            hands,
            side_ply: side | pos.ply().min(MAX_PLY) as u8,
        }
    }

    /// The piece on `sq`.
    pub fn piece_at(&self, sq: Square) -> Option<Piece> {
        let code = (self.board[sq.index() / 2] >> (4 * (sq.index() % 2))) & 0xf;
        match code {
            0 => None,
            c => {
                let c = c - 1;
                let color = if c >= 5 { Color::Blue } else { Color::Red };
                ROLES.get(usize::from(c % 5)).map(|&role| Piece::new(color, role))
            }
        }
    }

    /// Pieces of `role` in `color`'s hand.
    pub fn hand_count(&self, color: Color, role: Role) -> u8 {
        let mut shift = HAND_BITS * color.index() as u32;
        for (r, bits) in HAND_FIELDS {
            if r == role {
                return ((self.hands >> shift) & ((1 << bits) - 1)) as u8;
            }
            shift += bits;
        }
        0
    }

    /// The side to move.
    pub fn turn(&self) -> Color {
        if self.side_ply & 0x80 != 0 {
            Color::Blue
        } else {
            Color::Red
        }
    }

    /// Plies played, setups included.
    pub fn ply(&self) -> u32 {
        u32::from(self.side_ply & 0x7f)
    }

    /// The board, hands, side and ply, as [`Position::from_parts`] takes
    /// them.
    fn parts(&self) -> ([Option<Piece>; 64], [Hand; 2], Color, u32) {
        let board = Square::ALL.map(|sq| self.piece_at(sq));
        let hands = Color::ALL.map(|color| Hand::from_counts(Role::ALL.map(|role| self.hand_count(color, role))));
        (board, hands, self.turn(), self.ply())
    }

    /// The position string (FEN) of PROTOCOL.md, whether or not a game
    /// reaches the position.
    pub fn to_fen(&self) -> String {
        let (board, hands, turn, ply) = self.parts();
        Position::fen_of_parts(&board, &hands, turn, ply)
    }

    /// The position, checked by the rules (piece counts, hands, side and
    /// ply agree).
    ///
    /// # Errors
    /// [`RecordError::BadPosition`] when no game reaches it.
    pub fn to_position(&self) -> Result<Position, RecordError> {
        let (board, hands, turn, ply) = self.parts();
        Position::from_parts(board, hands, turn, ply).map_err(|e| RecordError::BadPosition(e.to_string()))
    }

    /// A 64-bit hash of the board, the hands and the side to move (not the
    /// ply): equal positions met at different plies share it. Computed
    /// afresh by each build; it is not stored.
    pub fn key(&self) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut h = std::hash::DefaultHasher::new();
        self.board.hash(&mut h);
        self.hands.hash(&mut h);
        (self.side_ply & 0x80).hash(&mut h);
        h.finish()
    }

    fn encode(&self, out: &mut [u8]) {
        out[0..32].copy_from_slice(&self.board);
        out[32..36].copy_from_slice(&self.hands.to_le_bytes());
        out[36] = self.side_ply;
    }

    fn decode(bytes: &[u8]) -> Result<PackedPosition, RecordError> {
        let mut board = [0u8; 32];
        board.copy_from_slice(&bytes[0..32]);
        let packed = PackedPosition {
            board,
            hands: u32::from_le_bytes([bytes[32], bytes[33], bytes[34], bytes[35]]),
            side_ply: bytes[36],
        };
        for sq in Square::ALL {
            let code = (board[sq.index() / 2] >> (4 * (sq.index() % 2))) & 0xf;
            if code > 10 {
                return Err(RecordError::BadPiece { square: sq, code });
            }
        }
        if packed.hands >> (2 * HAND_BITS) != 0 {
            return Err(RecordError::Reserved("hands bits 28..32"));
        }
        for color in Color::ALL {
            for (role, _) in HAND_FIELDS {
                let count = packed.hand_count(color, role);
                let max = 2 * role.count_per_side();
                if count > max {
                    return Err(RecordError::BadHand {
                        color,
                        role,
                        count,
                        max,
                    });
                }
            }
        }
        let ply = packed.ply();
        if ply > MAX_PLY {
            return Err(RecordError::BadPly(ply));
        }
        if Color::to_move_at(ply) != packed.turn() {
            return Err(RecordError::SideMismatch {
                ply,
                side: packed.turn(),
            });
        }
        Ok(packed)
    }
}

/// One training position with its labels.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Record {
    /// The position (quiet: the side to move's wazir is not attacked and
    /// a search finds no capture best).
    pub position: PackedPosition,
    /// The deeper search's value for the side to move, logit x 10,000 (the
    /// engine's evaluation unit).
    pub score: i32,
    /// How the game ended, for the side to move.
    pub result: GameResult,
    /// The index of the game in its run.
    pub game: u32,
    /// How the game opened.
    pub opening: Opening,
}

impl Record {
    /// The record's bytes.
    pub fn encode(&self) -> [u8; RECORD_SIZE] {
        let mut out = [0u8; RECORD_SIZE];
        self.position.encode(&mut out);
        out[37] = self.result.code();
        out[38] = match self.opening {
            Opening::Random => 0,
            Opening::Book => 1,
            Opening::Recorded => 2,
        };
        out[40..44].copy_from_slice(&self.score.to_le_bytes());
        out[44..48].copy_from_slice(&self.game.to_le_bytes());
        out
    }

    /// Reads a record from exactly [`RECORD_SIZE`] bytes. The board is
    /// checked field by field; whether the pieces make a position of the
    /// game is checked by [`PackedPosition::to_position`].
    ///
    /// # Errors
    /// [`RecordError`] naming the first field at fault.
    pub fn decode(bytes: &[u8; RECORD_SIZE]) -> Result<Record, RecordError> {
        let position = PackedPosition::decode(bytes)?;
        let result = match bytes[37] {
            0 => GameResult::Loss,
            1 => GameResult::Draw,
            2 => GameResult::Win,
            code => return Err(RecordError::BadResult(code)),
        };
        let opening = match bytes[38] {
            0 => Opening::Random,
            1 => Opening::Book,
            2 => Opening::Recorded,
            _ => return Err(RecordError::Reserved("flags byte 38")),
        };
        if bytes[39] != 0 {
            return Err(RecordError::Reserved("byte 39"));
        }
        Ok(Record {
            position,
            score: i32::from_le_bytes([bytes[40], bytes[41], bytes[42], bytes[43]]),
            result,
            game: u32::from_le_bytes([bytes[44], bytes[45], bytes[46], bytes[47]]),
            opening,
        })
    }

    /// The winner of the record's game (`None`: drawn).
    pub fn winner(&self) -> Option<Color> {
        self.result.winner(self.position.turn())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use leaper_rules::random_game_positions;
    use rand::SeedableRng;
    use rand::rngs::StdRng;

    /// Positions of random games: drops, captures, full hands, both sides.
    fn random_positions(games: usize) -> Vec<Position> {
        // Prefer captures, so that hands fill up.
        random_game_positions(&mut StdRng::seed_from_u64(7), games, 0.7)
    }

    #[test]
    fn positions_round_trip_through_records() {
        let positions = random_positions(60);
        assert!(positions.iter().any(|p| p.hand(Color::Red).total() >= 6));
        assert!(positions.iter().any(|p| p.turn() == Color::Blue));
        for (i, pos) in positions.iter().enumerate() {
            let record = Record {
                position: PackedPosition::from_position(pos),
                score: (i as i32 - 500) * 37,
                result: [GameResult::Loss, GameResult::Draw, GameResult::Win][i % 3],
                game: i as u32 * 3,
                opening: if i % 2 == 0 { Opening::Book } else { Opening::Random },
            };
            let bytes = record.encode();
            let back = Record::decode(&bytes).unwrap();
            assert_eq!(back, record);
            assert_eq!(back.position.to_fen(), pos.to_fen());
            assert_eq!(&back.position.to_position().unwrap(), pos);
            assert_eq!(back.position.ply(), pos.ply());
            for sq in Square::ALL {
                assert_eq!(back.position.piece_at(sq), pos.piece_at(sq));
            }
        }
    }

    #[test]
    fn equal_positions_share_a_key_and_others_differ() {
        let positions = random_positions(5);
        let a = PackedPosition::from_position(&positions[3]);
        assert_eq!(a.key(), PackedPosition::from_position(&positions[3].clone()).key());
        assert_ne!(a.key(), PackedPosition::from_position(&positions[4]).key());
    }

    #[test]
    fn bad_fields_are_named() {
        let pos = &random_positions(1)[10];
        let good = Record {
            position: PackedPosition::from_position(pos),
            score: 5,
            result: GameResult::Win,
            game: 1,
            opening: Opening::Random,
        }
        .encode();
        let mut b = good;
        b[0] = 0xfb;
        assert!(matches!(
            Record::decode(&b),
            Err(RecordError::BadPiece { code: 11, .. })
        ));
        let mut b = good;
        b[32] = 31; // 31 red alfils in hand
        assert!(matches!(
            Record::decode(&b),
            Err(RecordError::BadHand { count: 31, .. })
        ));
        let mut b = good;
        b[36] ^= 0x80;
        assert!(matches!(Record::decode(&b), Err(RecordError::SideMismatch { .. })));
        let mut b = good;
        b[36] = (b[36] & 0x80) | 120;
        assert!(Record::decode(&b).is_err());
        let mut b = good;
        b[37] = 3;
        assert_eq!(Record::decode(&b), Err(RecordError::BadResult(3)));
        let mut b = good;
        b[39] = 1;
        assert!(matches!(Record::decode(&b), Err(RecordError::Reserved(_))));
        // A board with a third wazir passes the field checks but is no
        // position of the game.
        let mut b = good;
        let empty = Square::ALL.into_iter().find(|&s| pos.piece_at(s).is_none()).unwrap();
        b[empty.index() / 2] |= 5 << (4 * (empty.index() % 2));
        let r = Record::decode(&b).unwrap();
        assert!(matches!(r.position.to_position(), Err(RecordError::BadPosition(_))));
    }
}
