//! Messages from the engine to a GUI (or the arena): `id`, `option`,
//! `uciok`, `readyok`, `info`, `bestmove`, plus the lines of `go perft` and
//! `spsa`. The engine formats them; the arena parses them. Free text the
//! engine prints (the board of `d`, blank lines) parses to an ignorable
//! error, as UCI asks of a GUI.

use std::fmt;
use std::str::FromStr;

use crate::command::option_names_match;
use crate::error::{
    I32, I64, NumberError, ParseError, Tokens, U32, U64, excerpt, parse_int, trim_ascii_end, unexpected,
    write_one_line, write_words,
};
use leaper_rules::MoveText;

/// A line from the engine.
#[derive(Clone, Debug, PartialEq)]
pub enum EngineMessage {
    /// `id name <text>` or `id author <text>`.
    Id(Id),
    /// `option name <name> type <type> ...`.
    Option(UciOption),
    /// `uciok`.
    UciOk,
    /// `readyok`.
    ReadyOk,
    /// `info ...`.
    Info(Info),
    /// `bestmove <move> [ponder <move>]`, or `bestmove (none)` (`None`) in
    /// a finished position.
    BestMove(Option<BestMove>),
    /// A `go perft` line for one root move: `b5d3: 1234`.
    PerftMove {
        /// The root move.
        mv: MoveText,
        /// Move sequences counted below it.
        nodes: u64,
    },
    /// The last `go perft` line: `Nodes searched: <total>`.
    PerftTotal(u64),
    /// A line of `spsa` output.
    Spsa(SpsaParam),
}

/// An `id` line. The text is the rest of the line, inner spacing kept.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Id {
    /// `id name leaper 0.1.0`.
    Name(String),
    /// `id author leaper developers`.
    Author(String),
}

/// An option the engine offers: `option name <name> type <kind> ...`.
///
/// The name is every token between `name` and the first `type`, joined by
/// single spaces, so it cannot contain the word `type`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UciOption {
    /// The name, in the case the engine declares.
    pub name: String,
    /// Its type, default and range.
    pub kind: OptionKind,
}

/// The type of a [`UciOption`] with its default and range.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OptionKind {
    /// `type check default true|false`.
    Check {
        /// The default.
        default: bool,
    },
    /// `type spin default <n> min <n> max <n>`, with `min <= default <= max`
    /// (checked when parsing).
    Spin {
        /// The default.
        default: i64,
        /// The least value.
        min: i64,
        /// The greatest value.
        max: i64,
    },
    /// `type combo default <v> var <v1> var <v2> ...`; the default is one of
    /// the vars, compared as option names are (checked when parsing).
    /// Values are words joined by single spaces and cannot contain `var`.
    Combo {
        /// The default.
        default: String,
        /// The choices.
        vars: Vec<String>,
    },
    /// `type button`.
    Button,
    /// `type string default <text>`; the empty string is written
    /// `<empty>` as UCI says (so the text `<empty>` itself reads back as
    /// empty). Words are joined by single spaces.
    String {
        /// The default.
        default: String,
    },
}

impl UciOption {
    /// A `spin` option (does not check `min <= default <= max`; parsing does).
    pub fn spin(name: impl Into<String>, default: i64, min: i64, max: i64) -> UciOption {
        UciOption {
            name: name.into(),
            kind: OptionKind::Spin { default, min, max },
        }
    }

    /// A `check` option.
    pub fn check(name: impl Into<String>, default: bool) -> UciOption {
        UciOption {
            name: name.into(),
            kind: OptionKind::Check { default },
        }
    }

    /// A `string` option.
    pub fn string(name: impl Into<String>, default: impl Into<String>) -> UciOption {
        UciOption {
            name: name.into(),
            kind: OptionKind::String {
                default: default.into(),
            },
        }
    }

    /// A `button` option.
    pub fn button(name: impl Into<String>) -> UciOption {
        UciOption {
            name: name.into(),
            kind: OptionKind::Button,
        }
    }

    /// A `combo` option.
    pub fn combo(name: impl Into<String>, default: impl Into<String>, vars: Vec<String>) -> UciOption {
        UciOption {
            name: name.into(),
            kind: OptionKind::Combo {
                default: default.into(),
                vars,
            },
        }
    }
}

/// The move an engine answers a `go` with, and optionally the reply it
/// expects.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BestMove {
    /// The move to play.
    pub best: MoveText,
    /// The expected reply, to ponder on.
    pub ponder: Option<MoveText>,
}

/// A score: centipawns or a mate distance, possibly only a bound.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Score {
    /// The value.
    pub value: ScoreValue,
    /// `lowerbound` or `upperbound` if the value is only a bound.
    pub bound: Option<Bound>,
}

impl Score {
    /// `score cp <n>`, exact.
    pub const fn cp(n: i32) -> Score {
        Score {
            value: ScoreValue::Cp(n),
            bound: None,
        }
    }

    /// `score mate <n>`, exact.
    pub const fn mate(n: i32) -> Score {
        Score {
            value: ScoreValue::Mate(n),
            bound: None,
        }
    }
}

/// The value of a [`Score`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScoreValue {
    /// `cp <n>`: 100 cp is a logit of 1 of the expected score.
    Cp(i32),
    /// `mate <n>`: the side to move captures the wazir on its n-th move
    /// (negative: its own wazir falls).
    Mate(i32),
}

/// Which side of the true score a bound is on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    /// `lowerbound`: the true score is at least this.
    Lower,
    /// `upperbound`: the true score is at most this.
    Upper,
}

/// An `info` line. Absent fields are `None` (or empty for `pv`).
///
/// Canonical order when formatting: `depth seldepth multipv score nodes
/// nps hashfull time currmove currmovenumber pv string`; parsing accepts any
/// order, rejects repeated fields and unknown tokens. `pv` takes the moves
/// up to the next info keyword. `string` takes the rest of the line (inner
/// spacing kept, trailing whitespace dropped, a CR inside read as a space),
/// so it comes last; when formatting, any CR or LF in it becomes a space so
/// that an `Info` is always one line.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Info {
    /// Search depth in plies.
    pub depth: Option<u32>,
    /// Selective depth in plies.
    pub seldepth: Option<u32>,
    /// Which line of a multi-PV search (from 1).
    pub multipv: Option<u32>,
    /// The score from the side to move's point of view.
    pub score: Option<Score>,
    /// Nodes searched.
    pub nodes: Option<u64>,
    /// Nodes per second.
    pub nps: Option<u64>,
    /// Hash table fill in permill, 0..=1000.
    pub hashfull: Option<u32>,
    /// Time searched, ms.
    pub time: Option<u64>,
    /// The root move being searched.
    pub currmove: Option<MoveText>,
    /// Its number among the root moves, from 1.
    pub currmovenumber: Option<u32>,
    /// The principal variation.
    pub pv: Vec<MoveText>,
    /// Free text to show the user.
    pub string: Option<String>,
}

/// Prefix of an error report in `info string`.
const ERROR_PREFIX: &str = "error: ";
/// Prefix of a game-over report in `info string`.
const GAME_OVER_PREFIX: &str = "gameover ";

impl Info {
    /// `info string <text>`.
    pub fn string(text: impl Into<String>) -> Info {
        Info {
            string: Some(text.into()),
            ..Info::default()
        }
    }

    /// `info string error: <what>`, the engine's answer to a bad command.
    pub fn error(what: impl fmt::Display) -> Info {
        Info::string(format!("{ERROR_PREFIX}{what}"))
    }

    /// `info string gameover <result>`, sent before `bestmove (none)` in a
    /// finished position.
    pub fn game_over(result: impl fmt::Display) -> Info {
        Info::string(format!("{GAME_OVER_PREFIX}{result}"))
    }

    /// The `<what>` of an `info string error: <what>` line.
    pub fn error_text(&self) -> Option<&str> {
        self.string.as_deref()?.strip_prefix(ERROR_PREFIX)
    }

    /// The `<result>` of an `info string gameover <result>` line.
    pub fn game_over_result(&self) -> Option<&str> {
        self.string.as_deref()?.strip_prefix(GAME_OVER_PREFIX)
    }
}

/// One tunable parameter as the `spsa` command prints it, in OpenBench's
/// input format: `name, int, value, min, max, c_end, r_end`. Only `int`
/// parameters exist (UCI spin options). Errors in such a line index the
/// comma-separated fields from 0.
#[derive(Clone, Debug, PartialEq)]
pub struct SpsaParam {
    /// The UCI option name (one word).
    pub name: String,
    /// The current value.
    pub value: i64,
    /// The least value.
    pub min: i64,
    /// The greatest value.
    pub max: i64,
    /// The final perturbation size.
    pub c_end: f64,
    /// The final learning rate.
    pub r_end: f64,
}

const INFO_FIELDS: &str =
    "an info field (depth seldepth multipv score nodes nps hashfull time currmove currmovenumber pv string)";

fn is_info_keyword(token: &str) -> bool {
    matches!(
        token,
        "depth"
            | "seldepth"
            | "multipv"
            | "score"
            | "nodes"
            | "nps"
            | "hashfull"
            | "time"
            | "currmove"
            | "currmovenumber"
            | "pv"
            | "string"
    )
}

impl FromStr for EngineMessage {
    type Err = ParseError;

    /// Parses one line from the engine.
    ///
    /// # Errors
    /// `Empty` and `Unknown` for lines a GUI ignores (blank lines, the
    /// board printed by `d`); `Missing`, `Unexpected`, `Duplicate`,
    /// `Number`, `Move` and `Inconsistent` for malformed messages, with the
    /// index of the token at fault.
    fn from_str(line: &str) -> Result<Self, Self::Err> {
        let t = Tokens::new(line);
        let Some(word) = t.get(0) else {
            return Err(ParseError::Empty);
        };
        match word {
            "id" => parse_id(&t).map(EngineMessage::Id),
            "option" => parse_option(&t).map(EngineMessage::Option),
            "uciok" => t.expect_end(1).map(|()| EngineMessage::UciOk),
            "readyok" => t.expect_end(1).map(|()| EngineMessage::ReadyOk),
            "info" => parse_info(&t).map(EngineMessage::Info),
            "bestmove" => parse_bestmove(&t).map(EngineMessage::BestMove),
            "Nodes" if t.get(1) == Some("searched:") => {
                let nodes = t.number_after(1, U64, false)?;
                t.expect_end(3)?;
                Ok(EngineMessage::PerftTotal(nodes))
            }
            _ => {
                if let Some(mv) = word.strip_suffix(':').and_then(|m| m.parse::<MoveText>().ok()) {
                    let nodes = t.number_after(0, U64, false)?;
                    t.expect_end(2)?;
                    Ok(EngineMessage::PerftMove { mv, nodes })
                } else if word.ends_with(',') && t.get(1) == Some("int,") {
                    parse_spsa(line).map(EngineMessage::Spsa)
                } else {
                    Err(ParseError::Unknown(excerpt(word)))
                }
            }
        }
    }
}

fn parse_id(t: &Tokens<'_>) -> Result<Id, ParseError> {
    const KINDS: &str = "`name` or `author`";
    let kind = t.require(1, KINDS)?;
    let text = t.rest_one_line(2);
    if text.is_empty() {
        return Err(ParseError::Missing {
            index: 2,
            expected: format!("the {kind} text"),
        });
    }
    match kind {
        "name" => Ok(Id::Name(text)),
        "author" => Ok(Id::Author(text)),
        other => Err(unexpected(1, other, KINDS)),
    }
}

fn parse_option(t: &Tokens<'_>) -> Result<UciOption, ParseError> {
    match t.require(1, "`name`")? {
        "name" => {}
        other => return Err(unexpected(1, other, "`name`")),
    }
    let Some(type_at) = (2..t.len()).find(|&i| t.get(i) == Some("type")) else {
        return Err(ParseError::Missing {
            index: t.len().max(3),
            expected: "`type`".into(),
        });
    };
    if type_at == 2 {
        return Err(ParseError::Missing {
            index: 2,
            expected: "an option name".into(),
        });
    }
    let name = t.join(2, type_at);
    const TYPES: &str = "an option type (check spin combo button string)";
    let kind_word = t.require(type_at + 1, TYPES)?;
    let i = type_at + 2;
    let require_default = || match t.require(i, "`default`")? {
        "default" => Ok(()),
        other => Err(unexpected(i, other, "`default`")),
    };
    let kind = match kind_word {
        "button" => {
            t.expect_end(i)?;
            OptionKind::Button
        }
        "check" => {
            require_default()?;
            let default = match t.require(i + 1, "`true` or `false`")? {
                "true" => true,
                "false" => false,
                other => return Err(unexpected(i + 1, other, "`true` or `false`")),
            };
            t.expect_end(i + 2)?;
            OptionKind::Check { default }
        }
        "string" => {
            require_default()?;
            let mut default = t.join(i + 1, t.len());
            if default == "<empty>" {
                default.clear();
            }
            OptionKind::String { default }
        }
        "spin" => parse_spin(t, i)?,
        "combo" => parse_combo(t, i)?,
        other => return Err(unexpected(type_at + 1, other, TYPES)),
    };
    Ok(UciOption { name, kind })
}

fn parse_spin(t: &Tokens<'_>, mut i: usize) -> Result<OptionKind, ParseError> {
    let (mut default, mut min, mut max) = (None, None, None);
    while let Some(token) = t.get(i) {
        let slot = match token {
            "default" => &mut default,
            "min" => &mut min,
            "max" => &mut max,
            other => return Err(unexpected(i, other, "`default`, `min` or `max`")),
        };
        if slot.is_some() {
            return Err(ParseError::Duplicate {
                index: i,
                token: token.to_owned(),
            });
        }
        *slot = Some((t.number_after::<i64>(i, I64, false)?, i + 1));
        i += 2;
    }
    let missing = |what: &str| ParseError::Missing {
        index: i,
        expected: format!("`{what}`"),
    };
    let (default, default_at) = default.ok_or_else(|| missing("default"))?;
    let (min, _) = min.ok_or_else(|| missing("min"))?;
    let (max, _) = max.ok_or_else(|| missing("max"))?;
    if !(min <= default && default <= max) {
        return Err(ParseError::Inconsistent {
            index: default_at,
            what: format!("spin default {default} outside min {min} max {max}"),
        });
    }
    Ok(OptionKind::Spin { default, min, max })
}

fn parse_combo(t: &Tokens<'_>, i: usize) -> Result<OptionKind, ParseError> {
    match t.require(i, "`default`")? {
        "default" => {}
        other => return Err(unexpected(i, other, "`default`")),
    }
    // Runs of words: the default, then one per `var`.
    let var_at: Vec<usize> = (i + 1..t.len()).filter(|&j| t.get(j) == Some("var")).collect();
    let mut starts = vec![i];
    starts.extend(&var_at);
    let mut values = Vec::new();
    for (n, &start) in starts.iter().enumerate() {
        let end = starts.get(n + 1).copied().unwrap_or(t.len());
        if end == start + 1 {
            return Err(ParseError::Missing {
                index: start + 1,
                expected: format!("a value after `{}`", t.get(start).unwrap_or_default()),
            });
        }
        values.push(t.join(start + 1, end));
    }
    let default = values.remove(0);
    if values.is_empty() {
        return Err(ParseError::Missing {
            index: t.len(),
            expected: "`var`".into(),
        });
    }
    if !values.iter().any(|v| option_names_match(v, &default)) {
        return Err(ParseError::Inconsistent {
            index: i + 1,
            what: format!("combo default `{}` is none of its vars", excerpt(&default)),
        });
    }
    Ok(OptionKind::Combo { default, vars: values })
}

fn parse_info(t: &Tokens<'_>) -> Result<Info, ParseError> {
    let mut info = Info::default();
    let mut seen_pv = false;
    let mut i = 1;
    while let Some(token) = t.get(i) {
        i = match token {
            "depth" => t.number_once(&mut info.depth, i, U32, false)?,
            "seldepth" => t.number_once(&mut info.seldepth, i, U32, false)?,
            "multipv" => t.number_once(&mut info.multipv, i, U32, false)?,
            "nodes" => t.number_once(&mut info.nodes, i, U64, false)?,
            "nps" => t.number_once(&mut info.nps, i, U64, false)?,
            "hashfull" => t.number_once(&mut info.hashfull, i, (0, 1000), false)?,
            "time" => t.number_once(&mut info.time, i, U64, false)?,
            "currmovenumber" => t.number_once(&mut info.currmovenumber, i, U32, false)?,
            "currmove" => {
                if info.currmove.is_some() {
                    return Err(t.duplicate(i));
                }
                t.require(i + 1, "a move after `currmove`")?;
                info.currmove = Some(t.move_at(i + 1)?);
                i + 2
            }
            "score" => {
                if info.score.is_some() {
                    return Err(t.duplicate(i));
                }
                let (score, next) = parse_score(t, i)?;
                info.score = Some(score);
                next
            }
            "pv" => {
                let (pv, end) = t.moves_once(&mut seen_pv, i, is_info_keyword)?;
                info.pv = pv;
                end
            }
            "string" => {
                info.string = Some(t.rest_one_line(i + 1));
                break;
            }
            other => return Err(unexpected(i, other, INFO_FIELDS)),
        };
    }
    Ok(info)
}

/// Parses `score cp|mate <n> [lowerbound|upperbound]` from keyword `i`;
/// returns the score and the index after it.
fn parse_score(t: &Tokens<'_>, i: usize) -> Result<(Score, usize), ParseError> {
    const UNITS: &str = "`cp` or `mate`";
    let value = match t.require(i + 1, UNITS)? {
        "cp" => ScoreValue::Cp(t.number_after(i + 1, I32, false)?),
        "mate" => ScoreValue::Mate(t.number_after(i + 1, I32, false)?),
        other => return Err(unexpected(i + 1, other, UNITS)),
    };
    let (bound, next) = match t.get(i + 3) {
        Some("lowerbound") => (Some(Bound::Lower), i + 4),
        Some("upperbound") => (Some(Bound::Upper), i + 4),
        _ => (None, i + 3),
    };
    Ok((Score { value, bound }, next))
}

fn parse_bestmove(t: &Tokens<'_>) -> Result<Option<BestMove>, ParseError> {
    let first = t.require(1, "a move or `(none)`")?;
    if first == "(none)" {
        t.expect_end(2)?;
        return Ok(None);
    }
    let best = t.move_at(1)?;
    // What follows `ponder` is a hint the arena never needs: some engines
    // write `ponder (none)` or nothing, which must not void the move.
    let ponder = match t.get(2) {
        None => None,
        Some("ponder") => t.move_at(3).ok().filter(|_| t.get(4).is_none()),
        Some(other) => return Err(unexpected(2, other, "`ponder` or end of line")),
    };
    Ok(Some(BestMove { best, ponder }))
}

fn parse_spsa(line: &str) -> Result<SpsaParam, ParseError> {
    let fields: Vec<&str> = trim_ascii_end(line).split(',').map(|f| f.trim_ascii()).collect();
    if fields.len() < 7 {
        return Err(ParseError::Missing {
            index: fields.len(),
            expected: "7 comma-separated fields (name, int, value, min, max, c_end, r_end)".into(),
        });
    }
    if fields.len() > 7 {
        return Err(unexpected(7, fields[7], "end of line"));
    }
    let name = fields[0];
    if name.is_empty() || name.contains(|c: char| c.is_ascii_whitespace()) {
        return Err(unexpected(0, name, "a one-word parameter name"));
    }
    let int = |i: usize| parse_int::<i64>(i, fields[i], I64, false);
    let decimal = |i: usize| match fields[i].parse::<f64>() {
        Ok(x) if x.is_finite() && fields[i].bytes().all(|b| b.is_ascii_digit() || b"-.eE".contains(&b)) => Ok(x),
        _ => Err(ParseError::Number {
            index: i,
            token: excerpt(fields[i]),
            reason: NumberError::NotADecimal,
        }),
    };
    let (value, min, max) = (int(2)?, int(3)?, int(4)?);
    if !(min <= value && value <= max) {
        return Err(ParseError::Inconsistent {
            index: 2,
            what: format!("value {value} outside min {min} max {max}"),
        });
    }
    Ok(SpsaParam {
        name: name.to_owned(),
        value,
        min,
        max,
        c_end: decimal(5)?,
        r_end: decimal(6)?,
    })
}

impl fmt::Display for EngineMessage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EngineMessage::Id(Id::Name(text)) => {
                f.write_str("id name ")?;
                write_one_line(f, text)
            }
            EngineMessage::Id(Id::Author(text)) => {
                f.write_str("id author ")?;
                write_one_line(f, text)
            }
            EngineMessage::Option(option) => write!(f, "{option}"),
            EngineMessage::UciOk => f.write_str("uciok"),
            EngineMessage::ReadyOk => f.write_str("readyok"),
            EngineMessage::Info(info) => write!(f, "{info}"),
            EngineMessage::BestMove(None) => f.write_str("bestmove (none)"),
            EngineMessage::BestMove(Some(BestMove { best, ponder })) => {
                write!(f, "bestmove {best}")?;
                match ponder {
                    Some(p) => write!(f, " ponder {p}"),
                    None => Ok(()),
                }
            }
            EngineMessage::PerftMove { mv, nodes } => write!(f, "{mv}: {nodes}"),
            EngineMessage::PerftTotal(nodes) => write!(f, "Nodes searched: {nodes}"),
            EngineMessage::Spsa(param) => write!(f, "{param}"),
        }
    }
}

impl fmt::Display for UciOption {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("option name ")?;
        write_words(f, &self.name)?;
        match &self.kind {
            OptionKind::Check { default } => write!(f, " type check default {default}"),
            OptionKind::Spin { default, min, max } => {
                write!(f, " type spin default {default} min {min} max {max}")
            }
            OptionKind::Combo { default, vars } => {
                f.write_str(" type combo default ")?;
                write_words(f, default)?;
                for var in vars {
                    f.write_str(" var ")?;
                    write_words(f, var)?;
                }
                Ok(())
            }
            OptionKind::Button => f.write_str(" type button"),
            OptionKind::String { default } => {
                f.write_str(" type string default ")?;
                if default.trim_ascii().is_empty() {
                    f.write_str("<empty>")
                } else {
                    write_words(f, default)
                }
            }
        }
    }
}

impl fmt::Display for Score {
    /// Writes `score cp <n>` or `score mate <n>`, then the bound if any.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.value {
            ScoreValue::Cp(n) => write!(f, "score cp {n}")?,
            ScoreValue::Mate(n) => write!(f, "score mate {n}")?,
        }
        match self.bound {
            None => Ok(()),
            Some(Bound::Lower) => f.write_str(" lowerbound"),
            Some(Bound::Upper) => f.write_str(" upperbound"),
        }
    }
}

impl fmt::Display for Info {
    /// Writes the whole `info ...` line in canonical order.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("info")?;
        let before_score = [
            ("depth", self.depth),
            ("seldepth", self.seldepth),
            ("multipv", self.multipv),
        ];
        for (key, value) in before_score {
            if let Some(v) = value {
                write!(f, " {key} {v}")?;
            }
        }
        if let Some(score) = self.score {
            write!(f, " {score}")?;
        }
        let after_score = [
            ("nodes", self.nodes),
            ("nps", self.nps),
            ("hashfull", self.hashfull.map(u64::from)),
            ("time", self.time),
        ];
        for (key, value) in after_score {
            if let Some(v) = value {
                write!(f, " {key} {v}")?;
            }
        }
        if let Some(m) = self.currmove {
            write!(f, " currmove {m}")?;
        }
        if let Some(n) = self.currmovenumber {
            write!(f, " currmovenumber {n}")?;
        }
        if !self.pv.is_empty() {
            f.write_str(" pv")?;
            for m in &self.pv {
                write!(f, " {m}")?;
            }
        }
        if let Some(text) = &self.string {
            f.write_str(" string")?;
            if !text.is_empty() {
                f.write_str(" ")?;
                write_one_line(f, text)?;
            }
        }
        Ok(())
    }
}

impl fmt::Display for SpsaParam {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let SpsaParam {
            name,
            value,
            min,
            max,
            c_end,
            r_end,
        } = self;
        write!(f, "{name}, int, {value}, {min}, {max}, {c_end}, {r_end}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(line: &str) -> Result<EngineMessage, ParseError> {
        line.parse()
    }

    #[test]
    fn canonical_lines_round_trip() {
        for line in [
            "id name leaper 0.1.0",
            "id author leaper  developers",
            "option name Hash type spin default 64 min 1 max 65536",
            "option name NullMoveMargin type spin default -1100 min -10000 max 10000",
            "option name Ponder type check default false",
            "option name Clear Hash type button",
            "option name EvalFile type string default <empty>",
            "option name EvalFile type string default nets/big net.bin",
            "option name Style type combo default Normal var Solid var Normal var Risky Play",
            "uciok",
            "readyok",
            "info",
            "info depth 12 seldepth 25 score cp -4 nodes 1893311 nps 1510000 time 1254 pv a3c4 g4e6 c4a3",
            "info depth 3 seldepth 4 multipv 2 score mate -3 upperbound nodes 5 nps 6 hashfull 1000 time 7 currmove Df8 currmovenumber 9 pv AWNAADADAFFAADDA string spaced  text",
            "info score cp 30 lowerbound",
            "info string",
            "info string gameover 1-0",
            "bestmove a3c4",
            "bestmove b5d3 ponder ac3",
            "bestmove (none)",
            "b5d3: 1234",
            "AWNAADADAFFAADDA: 10810800",
            "Nodes searched: 0",
            "NullMoveMargin, int, 1100, 0, 10000, 500, 0.002",
        ] {
            let message = parse(line).unwrap_or_else(|e| panic!("{line}: {e}"));
            assert_eq!(message.to_string(), line);
        }
    }

    #[test]
    fn what_follows_ponder_never_voids_the_move() {
        for line in [
            "bestmove a3c4 ponder (none)",
            "bestmove a3c4 ponder",
            "bestmove a3c4 ponder x y",
        ] {
            match parse(line) {
                Ok(EngineMessage::BestMove(Some(best))) => {
                    assert_eq!(best.best.to_string(), "a3c4", "{line}");
                    assert_eq!(best.ponder, None, "{line}");
                }
                other => panic!("{line}: {other:?}"),
            }
        }
    }

    #[test]
    fn info_helpers_read_and_write_strings() {
        let over = Info::game_over("1-0");
        assert_eq!(over.to_string(), "info string gameover 1-0");
        let EngineMessage::Info(parsed) = parse("info string gameover 1-0 (wazir captured)").unwrap() else {
            panic!()
        };
        assert_eq!(parsed.game_over_result(), Some("1-0 (wazir captured)"));
        assert_eq!(parsed.error_text(), None);
        let error = Info::error("unknown option `Foo`");
        assert_eq!(error.to_string(), "info string error: unknown option `Foo`");
        assert_eq!(error.error_text(), Some("unknown option `Foo`"));
        // A newline in a message cannot split the line.
        assert_eq!(Info::string("a\nb\r\nc").to_string(), "info string a b  c");
    }

    #[test]
    fn free_text_is_ignorable() {
        for line in [
            "",
            "  ",
            "Fen: 8/8 - r 0",
            "Key: 1234ABCD",
            " +---+---+",
            "hello, world",
        ] {
            assert!(parse(line).unwrap_err().is_ignorable(), "{line}");
        }
    }

    #[test]
    fn malformed_messages_name_the_token_at_fault() {
        let cases = [
            ("uciok now", "unexpected `now` at token 1, expected end of line"),
            ("id name", "missing the name text at token 2"),
            (
                "id version 3",
                "unexpected `version` at token 1, expected `name` or `author`",
            ),
            ("option name Hash", "missing `type` at token 3"),
            ("option name type spin", "missing an option name at token 2"),
            (
                "option name Hash type spin default 64 min 1",
                "missing `max` at token 9",
            ),
            (
                "option name Hash type spin default 0 min 1 max 2",
                "spin default 0 outside min 1 max 2 at token 6",
            ),
            (
                "option name Hash type spin default 1 min 1 max 2 min 1",
                "`min` repeated at token 11",
            ),
            (
                "option name Hash type float default 1",
                "unexpected `float` at token 4, expected an option type (check spin combo button string)",
            ),
            (
                "option name Ponder type check default maybe",
                "unexpected `maybe` at token 6, expected `true` or `false`",
            ),
            (
                "option name S type combo default X var A var B",
                "combo default `X` is none of its vars at token 6",
            ),
            (
                "option name S type combo default A var",
                "missing a value after `var` at token 8",
            ),
            ("option name S type combo default A", "missing `var` at token 7"),
            ("info depth x", "bad number `x` at token 2: not an integer"),
            (
                "info hashfull 1001",
                "bad number `1001` at token 2: out of range 0..=1000",
            ),
            ("info score", "missing `cp` or `mate` at token 2"),
            (
                "info score wdl 1",
                "unexpected `wdl` at token 2, expected `cp` or `mate`",
            ),
            (
                "info score cp 99999999999",
                "bad number `99999999999` at token 3: out of range -2147483648..=2147483647",
            ),
            ("info depth 1 depth 2", "`depth` repeated at token 3"),
            (
                "info tbhits 3",
                "unexpected `tbhits` at token 1, expected an info field (depth seldepth multipv score nodes nps hashfull time currmove currmovenumber pv string)",
            ),
            (
                "info pv a3c4 x",
                "bad move `x` at token 3: expected 16 setup letters, a drop like `Df8` or `D@f8`, or two squares like `b5d3`",
            ),
            ("bestmove", "missing a move or `(none)` at token 1"),
            (
                "bestmove 0000",
                "bad move `0000` at token 1: expected 16 setup letters, a drop like `Df8` or `D@f8`, or two squares like `b5d3`",
            ),
            (
                "bestmove (none) ponder a3c4",
                "unexpected `ponder` at token 2, expected end of line",
            ),
            ("b5d3: x", "bad number `x` at token 1: not an integer"),
            ("Nodes searched:", "missing a number after `searched:` at token 2"),
            ("X, int, 5, 0, 4, 1, 0.1", "value 5 outside min 0 max 4 at token 2"),
            (
                "X, int, 5, 0, 9, 1",
                "missing 7 comma-separated fields (name, int, value, min, max, c_end, r_end) at token 6",
            ),
            (
                "X, int, 5, 0, 9, 1, inf",
                "bad number `inf` at token 6: not a finite decimal number",
            ),
        ];
        for (line, message) in cases {
            assert_eq!(parse(line).unwrap_err().to_string(), message, "{line}");
        }
    }
}
