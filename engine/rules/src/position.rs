//! The position: board, hands, side to move, ply and hash, with the rules
//! that change it: move generation, legality, making moves, and game end.
//!
//! The board is kept twice, as bitboards (for generation) and as a square
//! table (for "what stands here"); the Zobrist hash is updated with every
//! change. Generation yields every move the rules allow, including those that
//! leave one's own wazir attacked: the rules have no check, so filtering is
//! the search's business.

use super::bitboard::{Bitboard, leaps};
use super::moves::{GameMove, Move, MoveList};
use super::setup::Setup;
use super::types::{Color, Piece, Role, Square};
use super::zobrist;
use std::fmt;

/// The ply at which the game is drawn: two setups and 100 regular moves.
pub const MAX_PLY: u32 = 102;

/// Pieces of one side's hand, counted per role.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Hand {
    counts: [u8; 5],
}

impl Hand {
    /// A hand holding `counts[role.index()]` pieces of each role (the
    /// wazir's count is ignored: it is never in hand).
    pub const fn from_counts(counts: [u8; 5]) -> Hand {
        let mut counts = counts;
        counts[Role::Wazir.index()] = 0;
        Hand { counts }
    }

    /// How many pieces of `role` it holds.
    #[inline]
    pub const fn count(&self, role: Role) -> u8 {
        self.counts[role.index()]
    }

    /// Whether it holds nothing.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.counts == [0; 5]
    }

    /// The roles it holds at least one of.
    pub fn roles(&self) -> impl Iterator<Item = Role> + '_ {
        Role::DROPPABLE.into_iter().filter(|r| self.count(*r) > 0)
    }

    /// The number of pieces it holds.
    pub fn total(&self) -> u32 {
        self.counts.iter().map(|&c| c as u32).sum()
    }
}

/// How a game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EndReason {
    /// A wazir was captured; its captor wins.
    WazirCaptured,
    /// 102 plies were played without a wazir capture: a draw.
    PlyLimit,
    /// The side to move has no legal move: it loses.
    NoLegalMove,
}

impl EndReason {
    /// The name used in game records (`wazir-captured`, ...).
    pub const fn name(self) -> &'static str {
        match self {
            EndReason::WazirCaptured => "wazir-captured",
            EndReason::PlyLimit => "ply-limit",
            EndReason::NoLegalMove => "no-legal-move",
        }
    }
}

/// The end of a game: who won, if anyone, and why.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Outcome {
    /// The winner; `None` for a draw.
    pub winner: Option<Color>,
    /// Why the game ended.
    pub reason: EndReason,
}

impl Outcome {
    /// The result from Red's side: `1-0`, `0-1` or `1/2-1/2`.
    pub const fn result_text(self) -> &'static str {
        match self.winner {
            Some(Color::Red) => "1-0",
            Some(Color::Blue) => "0-1",
            None => "1/2-1/2",
        }
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.result_text(), self.reason.name())
    }
}

/// Why a well-formed move is not legal in a position.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum IllegalMove {
    /// The game has ended; no move follows.
    #[error("the game is over: {0}")]
    GameOver(Outcome),
    /// A jump or drop while a setup is due.
    #[error("{0} must place its 16 pieces first (a setup move is due)")]
    SetupDue(Color),
    /// A setup after both sides have set up.
    #[error("both sides have placed their pieces; a setup is no longer possible")]
    SetupOver,
    /// A setup in the other side's case.
    #[error("this setup is written in {found}'s case but {expected} is to move")]
    SetupColor {
        /// The side to move.
        expected: Color,
        /// The side the letters' case denotes.
        found: Color,
    },
    /// A jump from an empty square.
    #[error("there is no piece on {0}")]
    NoPiece(Square),
    /// A jump with the opponent's piece.
    #[error("the piece on {square} is {owner}'s, but {mover} is to move")]
    NotYours {
        /// The square jumped from.
        square: Square,
        /// The piece's owner.
        owner: Color,
        /// The side to move.
        mover: Color,
    },
    /// A target the piece cannot leap to.
    #[error("a {role} on {from} cannot leap to {to}")]
    Unreachable {
        /// The moving role.
        role: Role,
        /// Its square.
        from: Square,
        /// The target.
        to: Square,
    },
    /// A target held by one's own piece.
    #[error("{0} holds a piece of the mover's own")]
    OwnPiece(Square),
    /// A drop in the opponent's case.
    #[error("the drop is written in {found}'s case but {expected} is to move")]
    DropColor {
        /// The side to move.
        expected: Color,
        /// The side the letter's case denotes.
        found: Color,
    },
    /// A drop of a role not in hand.
    #[error("{color} has no {role} in hand")]
    NotInHand {
        /// The mover.
        color: Color,
        /// The role it tried to drop.
        role: Role,
    },
    /// A drop onto an occupied square.
    #[error("{0} is not empty, so nothing can be dropped there")]
    Occupied(Square),
}

/// Why parts do not make a position that can arise in a game.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PositionError {
    /// More plies than a game has.
    #[error("ply {0} is not a number from 0 to 102")]
    Ply(u32),
    /// Side and ply disagree.
    #[error("at ply {ply} it cannot be {side} to move (red moves after an even number of plies)")]
    SideMismatch {
        /// The ply.
        ply: u32,
        /// The side given.
        side: Color,
    },
    /// Piece counts that no game can produce.
    #[error("{0}")]
    Material(String),
}

fn check_material(board: &[Option<Piece>; 64], hands: &[Hand; 2], turn: Color, ply: u32) -> Result<(), PositionError> {
    let material = |msg: String| Err(PositionError::Material(msg));
    let on_board = |piece: Piece| board.iter().filter(|p| **p == Some(piece)).count();
    let placed = board.iter().flatten().count();
    match ply {
        0 => {
            if placed > 0 || hands.iter().any(|h| !h.is_empty()) {
                return material("at ply 0 the board and hands are empty".into());
            }
        }
        1 => {
            let roles: Vec<Role> = (0..16)
                .filter_map(|i| board[Setup::square(Color::Red, i).index()].filter(|p| p.color == Color::Red))
                .map(|p| p.role)
                .collect();
            let setup = <[Role; 16]>::try_from(roles)
                .ok()
                .and_then(|r| Setup::from_roles(r).ok());
            if setup.is_none() || placed != 16 || hands.iter().any(|h| !h.is_empty()) {
                return material("at ply 1 red's 16 setup pieces fill rows a and b and nothing else is placed".into());
            }
        }
        _ => {
            for role in Role::DROPPABLE {
                let total: usize = Color::ALL
                    .iter()
                    .map(|&c| on_board(Piece::new(c, role)) + hands[c.index()].count(role) as usize)
                    .sum();
                let expected = 2 * role.count_per_side() as usize;
                if total != expected {
                    return material(format!(
                        "the position has {total} {}s on the board and in hand; a game has {expected}",
                        role.name()
                    ));
                }
            }
            for color in Color::ALL {
                let wazirs = on_board(Piece::new(color, Role::Wazir));
                if wazirs > 1 {
                    return material(format!("{color} has {wazirs} wazirs; a side has one"));
                }
                // A captured wazir ends the game with its side to move.
                if wazirs == 0 && color != turn {
                    return material(format!("{color} has no wazir, but a captured wazir's side is to move"));
                }
            }
        }
    }
    Ok(())
}

/// A position of the game.
#[derive(Clone, PartialEq, Eq)]
pub struct Position {
    board: [Option<Piece>; 64],
    by_color: [Bitboard; 2],
    by_role: [Bitboard; 5],
    hands: [Hand; 2],
    turn: Color,
    ply: u32,
    hash: u64,
    /// The part of `hash` made by Red's pieces and hand (Blue's part is
    /// the rest, less the side-to-move key).
    red_hash: u64,
}

impl Default for Position {
    fn default() -> Self {
        Position::new()
    }
}

impl fmt::Debug for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Position({})", self.to_fen())
    }
}

impl Position {
    /// The start of a game: an empty board, Red to place its pieces.
    pub fn new() -> Position {
        Position {
            board: [None; 64],
            by_color: [Bitboard::EMPTY; 2],
            by_role: [Bitboard::EMPTY; 5],
            hands: [Hand::default(); 2],
            turn: Color::Red,
            ply: 0,
            hash: 0,
            red_hash: 0,
        }
    }

    /// The position after both setups.
    pub fn from_setups(red: &Setup, blue: &Setup) -> Position {
        let mut pos = Position::new();
        pos.play_setup(red);
        pos.play_setup(blue);
        pos
    }

    /// Builds a position from its parts: what stands on each square (by
    /// index), the two hands (Red's first), the side to move and the plies
    /// played. Checks that the parts can arise in a game: ply in range,
    /// side and ply agreeing, and the piece counts of ply 0, of ply 1 (Red's
    /// setup alone) or of later plies (every piece on the board or in a
    /// hand, one wazir a side, only the side to move without one).
    ///
    /// # Errors
    /// [`PositionError`] naming the first disagreement found.
    pub fn from_parts(
        board: [Option<Piece>; 64],
        hands: [Hand; 2],
        turn: Color,
        ply: u32,
    ) -> Result<Position, PositionError> {
        if ply > MAX_PLY {
            return Err(PositionError::Ply(ply));
        }
        if Color::to_move_at(ply) != turn {
            return Err(PositionError::SideMismatch { ply, side: turn });
        }
        check_material(&board, &hands, turn, ply)?;
        Ok(Position::assemble(&board, &hands, turn, ply))
    }

    /// The position of these parts, which the caller knows are consistent.
    fn assemble(board: &[Option<Piece>; 64], hands: &[Hand; 2], turn: Color, ply: u32) -> Position {
        let mut pos = Position::new();
        for sq in Square::ALL {
            if let Some(piece) = board[sq.index()] {
                pos.put(sq, piece);
            }
        }
        for color in Color::ALL {
            for role in Role::ALL {
                for _ in 0..hands[color.index()].count(role) {
                    pos.add_to_hand(color, role);
                }
            }
        }
        pos.turn = turn;
        pos.ply = ply;
        if turn == Color::Blue {
            pos.hash ^= zobrist::blue_to_move();
        }
        pos
    }

    /// The side to move.
    #[inline]
    pub const fn turn(&self) -> Color {
        self.turn
    }

    /// Plies played so far, setups included (0..=102).
    #[inline]
    pub const fn ply(&self) -> u32 {
        self.ply
    }

    /// The Zobrist hash (board, hands and side to move; not the ply).
    #[inline]
    pub const fn hash(&self) -> u64 {
        self.hash
    }

    /// The Zobrist hash of `color`'s pieces on the board and in hand
    /// alone: the same whatever the other side holds and whoever is to
    /// move, so that a search can learn about one side's arrangement
    /// across the other side's moves.
    #[inline]
    pub fn side_hash(&self, color: Color) -> u64 {
        match color {
            Color::Red => self.red_hash,
            Color::Blue => {
                let turn = match self.turn {
                    Color::Red => 0,
                    Color::Blue => zobrist::blue_to_move(),
                };
                self.hash ^ self.red_hash ^ turn
            }
        }
    }

    /// Whether the side to move is to place its setup (plies 0 and 1).
    #[inline]
    pub const fn is_setup_phase(&self) -> bool {
        self.ply < 2
    }

    /// What stands on `sq`.
    #[inline]
    pub const fn piece_at(&self, sq: Square) -> Option<Piece> {
        self.board[sq.index()]
    }

    /// The hand of `color`.
    #[inline]
    pub const fn hand(&self, color: Color) -> &Hand {
        &self.hands[color.index()]
    }

    /// The squares of `color`'s pieces.
    #[inline]
    pub const fn pieces_of(&self, color: Color) -> Bitboard {
        self.by_color[color.index()]
    }

    /// The squares of pieces of `role`, both colours.
    #[inline]
    pub const fn role_squares(&self, role: Role) -> Bitboard {
        self.by_role[role.index()]
    }

    /// The squares of `piece`.
    #[inline]
    pub fn squares_of(&self, piece: Piece) -> Bitboard {
        self.by_color[piece.color.index()] & self.by_role[piece.role.index()]
    }

    /// The occupied squares.
    #[inline]
    pub fn occupied(&self) -> Bitboard {
        self.by_color[0] | self.by_color[1]
    }

    /// The square of `color`'s wazir, if it is on the board.
    #[inline]
    pub fn wazir(&self, color: Color) -> Option<Square> {
        self.squares_of(Piece::new(color, Role::Wazir)).first()
    }

    /// The squares from which pieces of `color` attack `sq` (every leap is
    /// symmetric, so they are found by leaping from `sq`).
    pub fn attackers(&self, sq: Square, color: Color) -> Bitboard {
        let own = self.by_color[color.index()];
        Role::ALL.into_iter().fold(Bitboard::EMPTY, |acc, role| {
            acc | (leaps(role, sq) & self.by_role[role.index()] & own)
        })
    }

    #[inline]
    fn put(&mut self, sq: Square, piece: Piece) {
        let bb = Bitboard::from_square(sq);
        self.board[sq.index()] = Some(piece);
        self.by_color[piece.color.index()] |= bb;
        self.by_role[piece.role.index()] |= bb;
        self.hash_piece(piece, sq);
    }

    #[inline]
    fn remove(&mut self, sq: Square, piece: Piece) {
        let bb = Bitboard::from_square(sq);
        self.board[sq.index()] = None;
        self.by_color[piece.color.index()] ^= bb;
        self.by_role[piece.role.index()] ^= bb;
        self.hash_piece(piece, sq);
    }

    /// XORs `piece` on `sq` into the hash and, if it is Red's, into
    /// Red's part.
    #[inline]
    fn hash_piece(&mut self, piece: Piece, sq: Square) {
        let key = zobrist::piece(piece, sq);
        self.hash ^= key;
        if piece.color == Color::Red {
            self.red_hash ^= key;
        }
    }

    /// XORs `key`, a change of `color`'s hand, into the hash and, if the
    /// hand is Red's, into Red's part.
    #[inline]
    fn hash_hand(&mut self, color: Color, key: u64) {
        self.hash ^= key;
        if color == Color::Red {
            self.red_hash ^= key;
        }
    }

    #[inline]
    fn add_to_hand(&mut self, color: Color, role: Role) {
        let count = self.hands[color.index()].counts[role.index()];
        self.hash_hand(
            color,
            zobrist::hand(color, role, count) ^ zobrist::hand(color, role, count + 1),
        );
        self.hands[color.index()].counts[role.index()] = count + 1;
    }

    #[inline]
    fn take_from_hand(&mut self, color: Color, role: Role) {
        let count = self.hands[color.index()].counts[role.index()];
        debug_assert!(count > 0);
        let new = count.saturating_sub(1);
        self.hash_hand(
            color,
            zobrist::hand(color, role, count) ^ zobrist::hand(color, role, new),
        );
        self.hands[color.index()].counts[role.index()] = new;
    }

    #[inline]
    fn pass_turn(&mut self) {
        self.turn = !self.turn;
        self.ply += 1;
        self.hash ^= zobrist::blue_to_move();
    }

    /// Places the side to move's setup. The caller knows a setup is due
    /// (see [`Position::check`] for untrusted input).
    pub fn play_setup(&mut self, setup: &Setup) {
        debug_assert!(self.is_setup_phase());
        let color = self.turn;
        for (i, &role) in setup.roles().iter().enumerate() {
            self.put(Setup::square(color, i), Piece::new(color, role));
        }
        self.pass_turn();
    }

    /// Plays a regular move known to be legal (generated, or checked with
    /// [`Position::check`]). A capture moves the captured piece into the
    /// mover's hand, except a wazir, whose capture ends the game.
    #[inline]
    pub fn play(&mut self, mv: Move) {
        let us = self.turn;
        match mv {
            Move::Jump { from, to } => {
                let Some(piece) = self.board[from.index()] else {
                    debug_assert!(false, "jump from empty {from}");
                    return;
                };
                if let Some(victim) = self.board[to.index()] {
                    self.remove(to, victim);
                    if victim.role != Role::Wazir {
                        self.add_to_hand(us, victim.role);
                    }
                }
                self.remove(from, piece);
                self.put(to, piece);
            }
            Move::Drop { role, to } => {
                self.take_from_hand(us, role);
                self.put(to, Piece::new(us, role));
            }
        }
        self.pass_turn();
    }

    /// Plays any move known to be legal.
    pub fn play_game_move(&mut self, mv: &GameMove) {
        match mv {
            GameMove::Setup(setup) => self.play_setup(setup),
            GameMove::Move(mv) => self.play(*mv),
        }
    }

    /// Checks `mv` against the rules, then plays it.
    pub fn play_checked(&mut self, mv: &GameMove) -> Result<(), IllegalMove> {
        self.check(mv)?;
        self.play_game_move(mv);
        Ok(())
    }

    /// The position after `mv` (known to be legal).
    pub fn after(&self, mv: Move) -> Position {
        let mut next = self.clone();
        next.play(mv);
        next
    }

    /// The position with the side to move passing: not a move of the game
    /// (the rules have no pass), but the question a search's null-move
    /// pruning asks, "what if the opponent moved twice?". The ply advances
    /// as after a move.
    pub fn null_move(&self) -> Position {
        let mut next = self.clone();
        next.pass_turn();
        next
    }

    /// The game's end by wazir capture or ply limit, which needs no move
    /// generation. A captured wazir takes precedence: a capture on ply 102
    /// wins.
    #[inline]
    pub fn terminal(&self) -> Option<Outcome> {
        if self.ply < 2 {
            return None;
        }
        let wazirs = self.by_role[Role::Wazir.index()];
        for color in Color::ALL {
            if (wazirs & self.by_color[color.index()]).is_empty() {
                return Some(Outcome {
                    winner: Some(!color),
                    reason: EndReason::WazirCaptured,
                });
            }
        }
        if self.ply >= MAX_PLY {
            return Some(Outcome {
                winner: None,
                reason: EndReason::PlyLimit,
            });
        }
        None
    }

    /// How the game has ended, if it has: a captured wazir, the ply limit,
    /// or a side to move without a legal move (which loses).
    pub fn outcome(&self) -> Option<Outcome> {
        if let Some(outcome) = self.terminal() {
            return Some(outcome);
        }
        if !self.is_setup_phase() && !self.has_legal_move() {
            return Some(Outcome {
                winner: Some(!self.turn),
                reason: EndReason::NoLegalMove,
            });
        }
        None
    }

    /// Whether the side to move has a regular move (ignoring game end).
    fn has_legal_move(&self) -> bool {
        let us = self.turn.index();
        let own = self.by_color[us];
        if !self.hands[us].is_empty() && self.occupied() != Bitboard::FULL {
            return true;
        }
        Role::ALL
            .into_iter()
            .any(|role| (self.by_role[role.index()] & own).any(|from| (leaps(role, from) & !own).is_nonempty()))
    }

    /// Appends every legal regular move to `list`: jumps and captures, then
    /// drops. Nothing in the setup phase (setups are enumerated by
    /// [`Setup::all`]) or once the game is over.
    pub fn legal_moves(&self, list: &mut MoveList) {
        if self.is_setup_phase() || self.terminal().is_some() {
            return;
        }
        let us = self.turn.index();
        let own = self.by_color[us];
        for role in Role::ALL {
            for from in self.by_role[role.index()] & own {
                for to in leaps(role, from) & !own {
                    list.push(Move::Jump { from, to });
                }
            }
        }
        let empty = !self.occupied();
        for role in self.hands[us].roles() {
            for to in empty {
                list.push(Move::Drop { role, to });
            }
        }
    }

    /// Appends the legal captures only (jumps onto an enemy piece), the
    /// moves a quiescence search looks at. A subset of
    /// [`Position::legal_moves`], in the same order.
    pub fn captures(&self, list: &mut MoveList) {
        if self.is_setup_phase() || self.terminal().is_some() {
            return;
        }
        let us = self.turn.index();
        let own = self.by_color[us];
        let enemy = self.by_color[1 - us];
        for role in Role::ALL {
            for from in self.by_role[role.index()] & own {
                for to in leaps(role, from) & enemy {
                    list.push(Move::Jump { from, to });
                }
            }
        }
    }

    /// The number of legal regular moves, counted without generating them
    /// (perft's last ply).
    #[inline]
    pub fn count_moves(&self) -> u64 {
        if self.is_setup_phase() || self.terminal().is_some() {
            return 0;
        }
        let us = self.turn.index();
        let own = self.by_color[us];
        let mut n = 0u64;
        for role in Role::ALL {
            for from in self.by_role[role.index()] & own {
                n += (leaps(role, from) & !own).count() as u64;
            }
        }
        let hand = &self.hands[us];
        let kinds = Role::DROPPABLE.iter().filter(|r| hand.count(**r) > 0).count() as u64;
        n + kinds * (!self.occupied()).count() as u64
    }

    /// Whether `mv` is legal here; the error says why not.
    pub fn check(&self, mv: &GameMove) -> Result<(), IllegalMove> {
        if let Some(outcome) = self.terminal() {
            return Err(IllegalMove::GameOver(outcome));
        }
        match mv {
            GameMove::Setup(_) if self.is_setup_phase() => Ok(()),
            GameMove::Setup(_) => Err(IllegalMove::SetupOver),
            GameMove::Move(_) if self.is_setup_phase() => Err(IllegalMove::SetupDue(self.turn)),
            GameMove::Move(mv) => self.check_regular(*mv),
        }
    }

    fn check_regular(&self, mv: Move) -> Result<(), IllegalMove> {
        let us = self.turn;
        match mv {
            Move::Jump { from, to } => {
                let piece = self.piece_at(from).ok_or(IllegalMove::NoPiece(from))?;
                if piece.color != us {
                    return Err(IllegalMove::NotYours {
                        square: from,
                        owner: piece.color,
                        mover: us,
                    });
                }
                if !leaps(piece.role, from).contains(to) {
                    return Err(IllegalMove::Unreachable {
                        role: piece.role,
                        from,
                        to,
                    });
                }
                if self.pieces_of(us).contains(to) {
                    return Err(IllegalMove::OwnPiece(to));
                }
                Ok(())
            }
            Move::Drop { role, to } => {
                if self.hand(us).count(role) == 0 {
                    return Err(IllegalMove::NotInHand { color: us, role });
                }
                if self.occupied().contains(to) {
                    return Err(IllegalMove::Occupied(to));
                }
                Ok(())
            }
        }
    }

    /// The hash computed from scratch (tests compare it with [`Position::hash`]).
    pub fn compute_hash(&self) -> u64 {
        let mut hash = self.compute_side_hash(Color::Red) ^ self.compute_side_hash(Color::Blue);
        if self.turn == Color::Blue {
            hash ^= zobrist::blue_to_move();
        }
        hash
    }

    /// [`Position::side_hash`] computed from scratch, for tests.
    pub fn compute_side_hash(&self, color: Color) -> u64 {
        let mut hash = 0;
        for sq in self.pieces_of(color) {
            if let Some(piece) = self.piece_at(sq) {
                hash ^= zobrist::piece(piece, sq);
            }
        }
        for role in Role::ALL {
            hash ^= zobrist::hand(color, role, self.hand(color).count(role));
        }
        hash
    }

    /// The position seen in the left-right mirror.
    pub fn mirror(&self) -> Position {
        let mut board = [None; 64];
        for sq in Square::ALL {
            board[sq.mirror().index()] = self.board[sq.index()];
        }
        Position::assemble(&board, &self.hands, self.turn, self.ply)
    }

    /// A board diagram with hands, side to move, ply and hash, for humans.
    pub fn diagram(&self) -> String {
        let mut out = String::from("   12345678\n");
        for row in 0..8u8 {
            out.push_str(&format!(" {} ", (b'a' + row) as char));
            for col in 0..8u8 {
                let sq = Square::ALL[(row * 8 + col) as usize];
                out.push(self.piece_at(sq).map_or('.', Piece::letter));
            }
            out.push('\n');
        }
        let hand_text = |color: Color| {
            let text: String = Role::DROPPABLE
                .iter()
                .flat_map(|&r| std::iter::repeat_n(r.letter(color), self.hand(color).count(r) as usize))
                .collect();
            if text.is_empty() { "-".to_string() } else { text }
        };
        out.push_str(&format!(
            "hand red: {}  hand blue: {}\n",
            hand_text(Color::Red),
            hand_text(Color::Blue)
        ));
        out.push_str(&format!("to move: {}  ply: {}\n", self.turn, self.ply));
        out.push_str(&format!("fen: {}\n", self.to_fen()));
        out.push_str(&format!("hash: {:016x}\n", self.hash));
        out
    }
}
