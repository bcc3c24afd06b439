//! Commands from a GUI (or the arena) to the engine: UCI with the
//! non-standard `d` and `spsa`. A command parses from one line and formats
//! back to its canonical line. Parsing is strict about known commands (every
//! token is understood or reported with its index) and leaves unknown ones
//! to the caller, which UCI says should ignore them.

use std::fmt;
use std::str::FromStr;

use crate::error::{ParseError, Tokens, U32, U64, excerpt, parse_int, unexpected, write_words};
use leaper_rules::{MoveText, Position};

/// A command to the engine.
///
/// Parsing (`line.parse::<Command>()`) follows these decisions:
/// - Command words and keywords are case-sensitive, as in UCI.
/// - Tokens are separated by runs of ASCII whitespace; a trailing `\r` is
///   harmless.
/// - An unknown first token gives [`ParseError::Unknown`], an empty line
///   [`ParseError::Empty`]; both are [`ParseError::is_ignorable`]. Unlike
///   UCI's `joho debug on` example, an unknown word is not skipped in search
///   of a known one (Stockfish does the same).
/// - A known command with a token it does not expect, a repeated
///   parameter, a missing value or a bad number or move fails with the
///   index of the token at fault, so the engine can answer
///   `info string error: ...` and keep its state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    /// `uci`: identify, list the options, answer `uciok`.
    Uci,
    /// `debug on|off`.
    Debug(bool),
    /// `isready`: answer `readyok` once earlier commands are done.
    IsReady,
    /// `setoption name <name> [value <value>]`.
    SetOption(SetOption),
    /// `ucinewgame`.
    UciNewGame,
    /// `position startpos|fen <fen> [moves <m1> <m2> ...]`. `moves` with an
    /// empty list parses to an empty `moves` and formats without `moves`.
    Position {
        /// Where the moves start from.
        start: StartPosition,
        /// Moves to play from there, checked for shape only.
        moves: Vec<MoveText>,
    },
    /// `go ...`: search with these limits.
    Go(SearchLimits),
    /// `go perft <depth>`: count move sequences of `depth` plies.
    Perft(u32),
    /// `stop`: end the search now and answer its `bestmove`.
    Stop,
    /// `ponderhit`: the opponent played the move being pondered.
    PonderHit,
    /// `quit`.
    Quit,
    /// `d`: print the position (board, hands, side, ply, hash).
    Display,
    /// `spsa`: print the tunable parameters (see
    /// [`SpsaParam`](crate::SpsaParam)).
    Spsa,
}

/// The start of a `position` command.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StartPosition {
    /// `startpos`: the empty board before the setups, Red to move, ply 0.
    StartPos,
    /// `fen <board> <hands> <side> <ply>`: a position a game can reach
    /// (checked when parsed; boxed, as a position is large).
    Fen(Box<Position>),
}

/// `setoption name <name> [value <value>]`.
///
/// Names and values may hold spaces: the name is every token between
/// `name` and the first `value` token, the value every token after it, each
/// joined by single spaces (runs of whitespace are not kept). So a name
/// cannot contain the word `value`. `value` with nothing after it gives
/// `Some("")`. Names keep the case they were given; compare them with
/// [`SetOption::name_is`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SetOption {
    /// The option name as given.
    pub name: String,
    /// The value, if `value` was given.
    pub value: Option<String>,
}

impl SetOption {
    /// A `setoption` with this name and value.
    pub fn new(name: &str, value: Option<&str>) -> SetOption {
        SetOption {
            name: name.to_owned(),
            value: value.map(str::to_owned),
        }
    }

    /// True if this sets option `name` (see [`option_names_match`]).
    pub fn name_is(&self, name: &str) -> bool {
        option_names_match(&self.name, name)
    }
}

/// True if two option names are the same: equal once ASCII case,
/// whitespace and underscores are ignored, as UCI asks and then some
/// (`multipv` matches `MultiPV`, `Move  Overhead` matches `MoveOverhead`,
/// `futility_margin` matches `FutilityMargin`). The one definition of
/// option-name equality: the engine and the arena both use it.
pub fn option_names_match(a: &str, b: &str) -> bool {
    fn squeeze(s: &str) -> impl Iterator<Item = u8> + '_ {
        s.bytes()
            .filter(|c| !c.is_ascii_whitespace() && *c != b'_')
            .map(|c| c.to_ascii_lowercase())
    }
    squeeze(a).eq(squeeze(b))
}

/// The limits of a `go` command. Absent fields are `None`.
///
/// `wtime`/`winc` are Red's clock (Red moves first, as White does in
/// chess), `btime`/`binc` Blue's, in milliseconds. UCI allows negative
/// clock values (a GUI's clock may run past zero); they parse as 0. Other
/// negative numbers are errors. `ponder`, `mate` and `searchmoves` are
/// standard UCI and parse into fields here; an engine that does not
/// implement them may treat `go ponder` as `go infinite` (the GUI sends
/// `ponderhit` or `stop`), ignore `mate`, and must still answer every `go`
/// with one `bestmove`.
///
/// Canonical order when formatting: `wtime btime winc binc movestogo
/// movetime depth nodes mate infinite ponder searchmoves`; parsing accepts
/// any order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SearchLimits {
    /// Red's remaining time, ms.
    pub wtime: Option<u64>,
    /// Blue's remaining time, ms.
    pub btime: Option<u64>,
    /// Red's increment per move, ms.
    pub winc: Option<u64>,
    /// Blue's increment per move, ms.
    pub binc: Option<u64>,
    /// Moves to the next time control.
    pub movestogo: Option<u32>,
    /// Search exactly this long, ms.
    pub movetime: Option<u64>,
    /// Search to this depth in plies.
    pub depth: Option<u32>,
    /// Search this many nodes.
    pub nodes: Option<u64>,
    /// Search for a mate in this many moves.
    pub mate: Option<u32>,
    /// Search until `stop`.
    pub infinite: bool,
    /// Search in pondering mode until `ponderhit` or `stop`.
    pub ponder: bool,
    /// Search only these root moves (empty: all).
    pub searchmoves: Vec<MoveText>,
}

impl SearchLimits {
    /// The (time, increment) of the side to move: Red's
    /// (`wtime`, `winc`) if `red`, else Blue's (`btime`, `binc`).
    pub fn clock(&self, red: bool) -> (Option<u64>, Option<u64>) {
        if red {
            (self.wtime, self.winc)
        } else {
            (self.btime, self.binc)
        }
    }
}

const GO_PARAMETERS: &str =
    "a go parameter (wtime btime winc binc movestogo movetime depth nodes mate infinite ponder searchmoves)";

fn is_go_keyword(token: &str) -> bool {
    matches!(
        token,
        "wtime"
            | "btime"
            | "winc"
            | "binc"
            | "movestogo"
            | "movetime"
            | "depth"
            | "nodes"
            | "mate"
            | "infinite"
            | "ponder"
            | "searchmoves"
            | "perft"
    )
}

impl FromStr for Command {
    type Err = ParseError;

    /// Parses one line.
    ///
    /// # Errors
    /// See [`Command`] for the rules and [`ParseError`] for the variants:
    /// `Empty` and `Unknown` for lines to ignore; `Missing`, `Unexpected`,
    /// `Duplicate`, `Number`, `Move` and `Fen` for malformed known
    /// commands.
    fn from_str(line: &str) -> Result<Self, Self::Err> {
        let t = Tokens::new(line);
        let Some(word) = t.get(0) else {
            return Err(ParseError::Empty);
        };
        let no_args = |command: Command| t.expect_end(1).map(|()| command);
        match word {
            "uci" => no_args(Command::Uci),
            "isready" => no_args(Command::IsReady),
            "ucinewgame" => no_args(Command::UciNewGame),
            "stop" => no_args(Command::Stop),
            "ponderhit" => no_args(Command::PonderHit),
            "quit" => no_args(Command::Quit),
            "d" => no_args(Command::Display),
            "spsa" => no_args(Command::Spsa),
            "debug" => {
                let on = match t.require(1, "`on` or `off`")? {
                    "on" => true,
                    "off" => false,
                    other => return Err(unexpected(1, other, "`on` or `off`")),
                };
                t.expect_end(2)?;
                Ok(Command::Debug(on))
            }
            "setoption" => parse_setoption(&t),
            "position" => parse_position(&t),
            "go" => parse_go(&t),
            _ => Err(ParseError::Unknown(excerpt(word))),
        }
    }
}

fn parse_setoption(t: &Tokens<'_>) -> Result<Command, ParseError> {
    match t.require(1, "`name`")? {
        "name" => {}
        other => return Err(unexpected(1, other, "`name`")),
    }
    let value_at = (2..t.len()).find(|&i| t.get(i) == Some("value"));
    let name_end = value_at.unwrap_or(t.len());
    if name_end == 2 {
        return Err(ParseError::Missing {
            index: 2,
            expected: "an option name".into(),
        });
    }
    Ok(Command::SetOption(SetOption {
        name: t.join(2, name_end),
        value: value_at.map(|v| t.join(v + 1, t.len())),
    }))
}

fn parse_position(t: &Tokens<'_>) -> Result<Command, ParseError> {
    const START: &str = "`startpos` or `fen`";
    let (start, next) = match t.require(1, START)? {
        "startpos" => (StartPosition::StartPos, 2),
        "fen" => (StartPosition::Fen(Box::new(parse_fen(t, 2)?)), 6),
        other => return Err(unexpected(1, other, START)),
    };
    let moves = match t.get(next) {
        None => Vec::new(),
        Some("moves") => t.moves(next + 1, t.len())?,
        Some(other) => return Err(unexpected(next, other, "`moves`")),
    };
    Ok(Command::Position { start, moves })
}

/// Reads the four fields of a position from tokens `first..first + 4`:
/// missing fields and a ply that is not a number are this line's errors,
/// the rest is the rules' judgement, reported at the field at fault.
fn parse_fen(t: &Tokens<'_>, first: usize) -> Result<Position, ParseError> {
    let board = t.require(first, "fen board")?;
    let hands = t.require(first + 1, "fen hands")?;
    let side = t.require(first + 2, "fen side")?;
    let ply = parse_int(first + 3, t.require(first + 3, "fen ply")?, U32, false)?;
    Position::from_fen_fields(board, hands, side, ply).map_err(|reason| ParseError::Fen {
        index: first + reason.field().unwrap_or(0),
        reason,
    })
}

fn parse_go(t: &Tokens<'_>) -> Result<Command, ParseError> {
    if t.get(1) == Some("perft") {
        let depth = t.number_after(1, U32, false)?;
        t.expect_end(3)?;
        return Ok(Command::Perft(depth));
    }
    let mut l = SearchLimits::default();
    let mut seen_searchmoves = false;
    let mut i = 1;
    while let Some(token) = t.get(i) {
        i = match token {
            "wtime" => t.number_once(&mut l.wtime, i, U64, true)?,
            "btime" => t.number_once(&mut l.btime, i, U64, true)?,
            "winc" => t.number_once(&mut l.winc, i, U64, true)?,
            "binc" => t.number_once(&mut l.binc, i, U64, true)?,
            "movestogo" => t.number_once(&mut l.movestogo, i, U32, false)?,
            "movetime" => t.number_once(&mut l.movetime, i, U64, false)?,
            "depth" => t.number_once(&mut l.depth, i, U32, false)?,
            "nodes" => t.number_once(&mut l.nodes, i, U64, false)?,
            "mate" => t.number_once(&mut l.mate, i, U32, false)?,
            "infinite" => t.flag_once(&mut l.infinite, i)?,
            "ponder" => t.flag_once(&mut l.ponder, i)?,
            "searchmoves" => {
                let (moves, end) = t.moves_once(&mut seen_searchmoves, i, is_go_keyword)?;
                l.searchmoves = moves;
                end
            }
            other => return Err(unexpected(i, other, GO_PARAMETERS)),
        };
    }
    Ok(Command::Go(l))
}

impl fmt::Display for Command {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Command::Uci => f.write_str("uci"),
            Command::Debug(on) => f.write_str(if *on { "debug on" } else { "debug off" }),
            Command::IsReady => f.write_str("isready"),
            Command::SetOption(option) => write!(f, "{option}"),
            Command::UciNewGame => f.write_str("ucinewgame"),
            Command::Position { start, moves } => {
                match start {
                    StartPosition::StartPos => f.write_str("position startpos")?,
                    StartPosition::Fen(pos) => write!(f, "position fen {}", pos.to_fen())?,
                }
                if !moves.is_empty() {
                    f.write_str(" moves")?;
                    for m in moves {
                        write!(f, " {m}")?;
                    }
                }
                Ok(())
            }
            Command::Go(limits) => write!(f, "{limits}"),
            Command::Perft(depth) => write!(f, "go perft {depth}"),
            Command::Stop => f.write_str("stop"),
            Command::PonderHit => f.write_str("ponderhit"),
            Command::Quit => f.write_str("quit"),
            Command::Display => f.write_str("d"),
            Command::Spsa => f.write_str("spsa"),
        }
    }
}

impl fmt::Display for SetOption {
    /// Writes `setoption name <name> [value <value>]` with the words of
    /// name and value joined by single spaces.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("setoption name ")?;
        write_words(f, &self.name)?;
        if let Some(value) = &self.value {
            f.write_str(" value")?;
            if !value.trim_ascii().is_empty() {
                f.write_str(" ")?;
                write_words(f, value)?;
            }
        }
        Ok(())
    }
}

impl fmt::Display for SearchLimits {
    /// Writes the whole `go ...` line in canonical order.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("go")?;
        let numbers = [
            ("wtime", self.wtime),
            ("btime", self.btime),
            ("winc", self.winc),
            ("binc", self.binc),
            ("movestogo", self.movestogo.map(u64::from)),
            ("movetime", self.movetime),
            ("depth", self.depth.map(u64::from)),
            ("nodes", self.nodes),
            ("mate", self.mate.map(u64::from)),
        ];
        for (key, value) in numbers {
            if let Some(v) = value {
                write!(f, " {key} {v}")?;
            }
        }
        if self.infinite {
            f.write_str(" infinite")?;
        }
        if self.ponder {
            f.write_str(" ponder")?;
        }
        if !self.searchmoves.is_empty() {
            f.write_str(" searchmoves")?;
            for m in &self.searchmoves {
                write!(f, " {m}")?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(line: &str) -> Result<Command, ParseError> {
        line.parse()
    }

    fn roundtrip(line: &str) {
        let command = parse(line).unwrap_or_else(|e| panic!("{line}: {e}"));
        assert_eq!(command.to_string(), line);
    }

    #[test]
    fn canonical_lines_round_trip() {
        for line in [
            "uci",
            "debug on",
            "debug off",
            "isready",
            "setoption name Hash value 64",
            "setoption name Clear Hash",
            "setoption name Move Overhead value 10",
            "setoption name EvalFile value my net.bin",
            "setoption name EmptyString value",
            "ucinewgame",
            "position startpos",
            "position startpos moves AWNAADADAFFAADDA aaaaaffdaddadnwa b5d3 Df8 ac3",
            "position fen 1W1A1D1D/AaFA1DDA/2A1A1A1/6A1/3a1a1d/2d2n2/a1a1N1f1/add2w1a AFf r 26 moves a3c4",
            "go",
            "go wtime 30000 btime 29120 winc 0 binc 0 movestogo 40 movetime 100 depth 12 nodes 1000000 mate 3 infinite ponder searchmoves b5d3 Df8",
            "go perft 5",
            "stop",
            "ponderhit",
            "quit",
            "d",
            "spsa",
        ] {
            roundtrip(line);
        }
    }

    #[test]
    fn lenient_input_formats_canonically() {
        let cases = [
            ("  go   depth 3\r", "go depth 3"),
            ("go depth 3 wtime -100", "go wtime 0 depth 3"),
            ("go searchmoves b5d3 depth 3", "go depth 3 searchmoves b5d3"),
            ("position startpos moves", "position startpos"),
            ("position startpos moves D@f8", "position startpos moves Df8"),
            (
                "setoption  name  Move   Overhead  value  a   b ",
                "setoption name Move Overhead value a b",
            ),
            ("go depth 007", "go depth 7"),
        ];
        for (input, canonical) in cases {
            assert_eq!(parse(input).unwrap().to_string(), canonical, "{input}");
        }
    }

    #[test]
    fn option_names_compare_without_case() {
        let Command::SetOption(o) = parse("setoption name multipv value 3").unwrap() else {
            panic!()
        };
        assert_eq!(o.name, "multipv");
        assert!(o.name_is("MultiPV"));
        assert!(!o.name_is("MultiPV2"));
        assert!(option_names_match("Move  Overhead", "move overhead"));
        assert!(option_names_match("Move Overhead", "MoveOverhead"));
        assert!(option_names_match("futility_margin", "FutilityMargin"));
        assert!(!option_names_match("Futility Margin", "FutilityMargins"));
        assert_eq!(o.value.as_deref(), Some("3"));
    }

    #[test]
    fn unknown_and_empty_lines_are_ignorable() {
        assert_eq!(parse(""), Err(ParseError::Empty));
        assert_eq!(parse(" \t\r\n"), Err(ParseError::Empty));
        assert_eq!(parse("joho debug on"), Err(ParseError::Unknown("joho".into())));
        assert_eq!(parse("UCI"), Err(ParseError::Unknown("UCI".into())));
        assert!(parse("xyzzy").unwrap_err().is_ignorable());
        assert!(!parse("go depth x").unwrap_err().is_ignorable());
    }

    #[test]
    fn malformed_commands_name_the_token_at_fault() {
        let cases = [
            ("uci now", "unexpected `now` at token 1, expected end of line"),
            ("debug", "missing `on` or `off` at token 1"),
            ("debug maybe", "unexpected `maybe` at token 1, expected `on` or `off`"),
            ("setoption Hash", "unexpected `Hash` at token 1, expected `name`"),
            ("setoption name value 3", "missing an option name at token 2"),
            ("position", "missing `startpos` or `fen` at token 1"),
            (
                "position startpos b5d3",
                "unexpected `b5d3` at token 2, expected `moves`",
            ),
            (
                "position startpos moves b5d3 b5d9",
                "bad move `b5d9` at token 4: bad square `d9`, expected a row a..h then a column 1..8",
            ),
            ("position fen 8/8 - r", "missing fen ply at token 5"),
            (
                "position fen 8/8/8/8/8/8/8/8 - b 0 moves b5d3",
                "bad fen at token 5: at ply 0 it cannot be blue to move (red moves after an even number of plies)",
            ),
            (
                "position fen 8/8/8/8/8/8/8/8 W r 0",
                "bad fen at token 3: 'W' in the hands field is not a piece that can be in hand (A, D, F, N; W never is)",
            ),
            (
                "position fen 8/8 - r x moves",
                "bad number `x` at token 5: not an integer",
            ),
            ("go depth", "missing a number after `depth` at token 2"),
            ("go depth -1", "bad number `-1` at token 2: out of range 0..=4294967295"),
            (
                "go nodes 18446744073709551616",
                "bad number `18446744073709551616` at token 2: out of range 0..=18446744073709551615",
            ),
            ("go depth 3 depth 4", "`depth` repeated at token 3"),
            ("go infinite infinite", "`infinite` repeated at token 2"),
            (
                "go depth 3 perft 2",
                "unexpected `perft` at token 3, expected a go parameter (wtime btime winc binc movestogo movetime depth nodes mate infinite ponder searchmoves)",
            ),
            ("go perft", "missing a number after `perft` at token 2"),
            (
                "go perft 3 depth 2",
                "unexpected `depth` at token 3, expected end of line",
            ),
            (
                "go fast",
                "unexpected `fast` at token 1, expected a go parameter (wtime btime winc binc movestogo movetime depth nodes mate infinite ponder searchmoves)",
            ),
        ];
        for (line, message) in cases {
            assert_eq!(parse(line).unwrap_err().to_string(), message, "{line}");
        }
    }

    #[test]
    fn clocks_belong_to_red_and_blue() {
        let Command::Go(l) = parse("go wtime 5 btime 6 winc 1 binc 2").unwrap() else {
            panic!()
        };
        assert_eq!(l.clock(true), (Some(5), Some(1)));
        assert_eq!(l.clock(false), (Some(6), Some(2)));
    }
}
