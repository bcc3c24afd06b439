//! Replays recorded games against the rules: every move must be legal and
//! the recorded result must follow from the moves.
//!
//! Two record formats are read, told apart by their header: the CodeCup
//! transcripts (`Game,Round,IsSwiss,User1,Score1,Status1,User2,Score2,Status2,Moves`,
//! User1 playing Red, a format of the contest's, read here) and the
//! arena's game record, read through the `results` crate, which owns it.
//! Setups are read in either case, as the CodeCup referee accepted both.

use leaper_rules::{Color, EndReason, GameMove, Move, MoveError, Outcome, Position, Setup, SetupCase};
use results::{GameRecord, GameResult};
use std::path::Path;

/// What is wrong with one recorded game.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum GameError {
    /// A move that is not legal where it stands.
    #[error("ply {ply}, move '{text}': {error}")]
    Move {
        /// 1-based ply of the move (1 and 2 are the setups).
        ply: usize,
        /// The move as recorded.
        text: String,
        /// Why it is not legal.
        error: MoveError,
    },
    /// The recorded result or ending disagrees with the moves.
    #[error("{0}")]
    Result(String),
    /// A field that cannot be read.
    #[error("{0}")]
    Field(String),
}

/// Plays a space-separated move list from the empty board, returning the
/// final position and the moves read.
pub fn replay_moves(moves: &str) -> Result<(Position, Vec<GameMove>), GameError> {
    let mut pos = Position::new();
    let mut played = Vec::new();
    for (i, text) in moves.split_whitespace().enumerate() {
        let mv = pos
            .parse_move(text, SetupCase::Lenient)
            .map_err(|error| GameError::Move {
                ply: i + 1,
                text: text.to_string(),
                error,
            })?;
        pos.play_game_move(&mv);
        played.push(mv);
    }
    Ok((pos, played))
}

/// The forfeit statuses of CodeCup transcripts; the offending move is not
/// recorded, so the forfeiter is the side to move.
const FORFEITS: [&str; 4] = ["TIMEOUT", "ILLEGAL", "CRASH", "EXIT"];

/// Checks one CodeCup game: its moves, and its statuses and scores against
/// the position the moves reach. Returns how the rules ended the game, or
/// `None` when it ended by a forfeit.
pub fn check_codecup_game(moves: &str, status: [&str; 2], score: [&str; 2]) -> Result<Option<Outcome>, GameError> {
    let (pos, _) = replay_moves(moves)?;
    let expected_status = |color: Color| status[color.index()];
    let outcome = pos.outcome();
    let want: [&[&str]; 2] = match outcome {
        Some(Outcome { winner: None, .. }) => [&["DRAW"], &["DRAW"]],
        Some(Outcome {
            winner: Some(w),
            reason: EndReason::NoLegalMove,
        }) => by_color(w, &["WIN"], &["LOSE", "TIMEOUT", "ILLEGAL", "CRASH", "EXIT"]),
        Some(Outcome { winner: Some(w), .. }) => by_color(w, &["WIN"], &["LOSE"]),
        None => by_color(!pos.turn(), &["WIN"], &FORFEITS),
    };
    for color in Color::ALL {
        let found = expected_status(color);
        if !want[color.index()].contains(&found) {
            let why = match outcome {
                Some(o) => format!("the moves end the game {o}"),
                None => format!(
                    "the moves stop unfinished at ply {} with {} to move, which needs a forfeit by {}",
                    pos.ply(),
                    pos.turn(),
                    pos.turn()
                ),
            };
            return Err(GameError::Result(format!(
                "{color} has status {found} but {why} (expected {})",
                want[color.index()].join(" or ")
            )));
        }
        let points = match found {
            "WIN" => "21",
            "DRAW" => "11",
            "LOSE" => "1",
            _ => "0",
        };
        if score[color.index()] != points {
            return Err(GameError::Result(format!(
                "{color} has status {found} but score {} (expected {points})",
                score[color.index()]
            )));
        }
    }
    Ok(outcome)
}

fn by_color<'a>(winner: Color, win: &'a [&'a str], lose: &'a [&'a str]) -> [&'a [&'a str]; 2] {
    match winner {
        Color::Red => [win, lose],
        Color::Blue => [lose, win],
    }
}

/// Checks one game of the arena's record (read and field-checked by the
/// `results` crate, which owns the format): its moves, and its result and
/// termination against the position the moves reach.
pub fn check_arena_game(record: &GameRecord) -> Result<(), GameError> {
    let (pos, _) = replay_moves(&record.moves.join(" "))?;
    let winner = match record.result {
        GameResult::RedWins => Some(Color::Red),
        GameResult::BlueWins => Some(Color::Blue),
        GameResult::Draw => None,
    };
    let (result, termination) = (record.result, record.termination);
    match pos.outcome() {
        Some(outcome) => {
            if outcome.reason.name() != termination.as_str() || outcome.winner != winner {
                return Err(GameError::Result(format!(
                    "recorded {result} by {termination}, but the moves end the game {outcome}"
                )));
            }
        }
        None => {
            if !termination.is_forfeit() {
                return Err(GameError::Result(format!(
                    "recorded {termination}, but the game is unfinished at ply {}",
                    pos.ply()
                )));
            }
        }
    }
    Ok(())
}

/// One game that failed its check.
#[derive(Clone, Debug)]
pub struct GameFailure {
    /// The game's id as recorded (or its row number).
    pub game: String,
    /// What is wrong.
    pub error: GameError,
}

/// The result of checking one file.
#[derive(Clone, Debug, Default)]
pub struct FileReport {
    /// Games read.
    pub games: usize,
    /// Games whose moves and result check out.
    pub legal: usize,
    /// The others, in file order.
    pub failures: Vec<GameFailure>,
}

/// Why a file could not be checked at all.
#[derive(Debug, thiserror::Error)]
pub enum FileError {
    /// Unreadable.
    #[error("cannot read: {0}")]
    Io(#[from] std::io::Error),
    /// Not CSV, or a row that CSV cannot split.
    #[error("not a CSV game record: {0}")]
    Csv(#[from] csv::Error),
    /// A header of neither known format.
    #[error("unknown header (expected the CodeCup 'Game,...,Moves' or the arena 'game,pair,...,moves' columns)")]
    UnknownHeader,
    /// An arena record that `results` refuses: a damaged row other than a
    /// torn last line, or a game id recorded twice (it would count twice).
    #[error("{0}")]
    Record(results::ReadError),
}

/// The columns `Game, Status1, Status2, Score1, Score2, Moves` of a
/// CodeCup transcript's header, or `None` for another header.
fn codecup_columns(headers: &csv::StringRecord) -> Option<[usize; 6]> {
    let col = |name: &str| headers.iter().position(|h| h.trim() == name);
    Some([
        col("Game")?,
        col("Status1")?,
        col("Status2")?,
        col("Score1")?,
        col("Score2")?,
        col("Moves")?,
    ])
}

/// Checks every game of a CodeCup transcript or arena record file.
///
/// # Errors
/// [`FileError`] when the file cannot be read or is of neither format;
/// bad games are counted in the report.
pub fn check_file(path: &Path) -> Result<FileReport, FileError> {
    let mut reader = csv::ReaderBuilder::new().flexible(true).from_path(path)?;
    let headers = reader.headers()?.clone();
    match codecup_columns(&headers) {
        Some([game, s1, s2, p1, p2, moves]) => {
            let mut report = FileReport::default();
            for (row, record) in reader.records().enumerate() {
                let checked = match record {
                    Err(e) => (
                        format!("row {}", row + 2),
                        Err(GameError::Field(format!("unreadable row: {e}"))),
                    ),
                    Ok(rec) => {
                        let get = |i: usize| rec.get(i).unwrap_or("");
                        let result = check_codecup_game(get(moves), [get(s1), get(s2)], [get(p1), get(p2)]);
                        (get(game).to_string(), result.map(|_| ()))
                    }
                };
                report.add(checked);
            }
            Ok(report)
        }
        _ => check_arena_file(path),
    }
}

/// A game's id (or row) and its check.
type Checked = (String, Result<(), GameError>);

/// An arena record file, read by `results`, its errors as [`FileError`]s.
fn read_arena_file(path: &Path) -> Result<results::RecordFile, FileError> {
    results::read_record_file(path).map_err(|err| match err {
        results::ReadError::Io { source, .. } => FileError::Io(source),
        results::ReadError::Header { .. } => FileError::UnknownHeader,
        other => FileError::Record(other),
    })
}

/// Checks every game of an arena record file, read by `results`; a row it
/// cannot read is a failed game.
fn check_arena_file(path: &Path) -> Result<FileReport, FileError> {
    let file = read_arena_file(path)?;
    let mut checked: Vec<(u64, Checked)> = file
        .games
        .iter()
        .map(|g| (g.line, (g.record.game.to_string(), check_arena_game(&g.record))))
        .collect();
    checked.extend(file.damaged.iter().map(|d| {
        (
            d.line,
            (format!("row {}", d.line), Err(GameError::Field(d.error.to_string()))),
        )
    }));
    checked.sort_by_key(|(line, _)| *line);
    let mut report = FileReport::default();
    for (_, game) in checked {
        report.add(game);
    }
    Ok(report)
}

impl FileReport {
    /// Counts one game and its check.
    fn add(&mut self, (game, checked): Checked) {
        self.games += 1;
        match checked {
            Ok(()) => self.legal += 1,
            Err(error) => self.failures.push(GameFailure { game, error }),
        }
    }
}

/// A game of a record file that the rules ended, ready to be followed by
/// the data generator (`datagen --games`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecordedGame {
    /// The game's id in its file (or its row).
    pub id: String,
    /// Red's and Blue's setups.
    pub setups: (Setup, Setup),
    /// The regular moves, from ply 3.
    pub moves: Vec<Move>,
    /// The winner, `None` for a draw.
    pub winner: Option<Color>,
}

/// What a record file gave: the games the rules ended, and how many were
/// left out (forfeits, illegal or unreadable games).
#[derive(Clone, Debug, Default)]
pub struct RecordedGames {
    /// The games, in file order.
    pub games: Vec<RecordedGame>,
    /// Games read but not kept: a forfeit decides nothing about the
    /// position, and an illegal game has no trustworthy result.
    pub skipped: usize,
}

/// The games of a CodeCup transcript or arena record file that ended by
/// the rules (a captured wazir, the ply limit, no legal move), with their
/// moves and winner; forfeited, illegal and unreadable games are counted
/// in `skipped`.
///
/// # Errors
/// [`FileError`] when the file cannot be read or is of neither format.
pub fn read_games(path: &Path) -> Result<RecordedGames, FileError> {
    let mut reader = csv::ReaderBuilder::new().flexible(true).from_path(path)?;
    let headers = reader.headers()?.clone();
    let mut out = RecordedGames::default();
    let mut keep = |id: String, moves: &str, checked: bool| {
        let game = checked
            .then(|| replay_moves(moves).ok())
            .flatten()
            .and_then(|(pos, played)| {
                let outcome = pos.outcome()?;
                let (GameMove::Setup(red), GameMove::Setup(blue)) = (played.first()?, played.get(1)?) else {
                    return None;
                };
                let moves = played[2..]
                    .iter()
                    .map(|m| match m {
                        GameMove::Move(mv) => Some(*mv),
                        GameMove::Setup(_) => None,
                    })
                    .collect::<Option<Vec<Move>>>()?;
                Some(RecordedGame {
                    id,
                    setups: (*red, *blue),
                    moves,
                    winner: outcome.winner,
                })
            });
        match game {
            Some(game) => out.games.push(game),
            None => out.skipped += 1,
        }
    };
    match codecup_columns(&headers) {
        Some([game, s1, s2, p1, p2, moves]) => {
            for (row, record) in reader.records().enumerate() {
                match record {
                    Err(_) => keep(format!("row {}", row + 2), "", false),
                    Ok(rec) => {
                        let get = |i: usize| rec.get(i).unwrap_or("");
                        let ok = check_codecup_game(get(moves), [get(s1), get(s2)], [get(p1), get(p2)])
                            .is_ok_and(|outcome| outcome.is_some());
                        keep(get(game).to_string(), get(moves), ok);
                    }
                }
            }
        }
        _ => {
            let file = read_arena_file(path)?;
            for g in &file.games {
                let ok = !g.record.termination.is_forfeit() && check_arena_game(&g.record).is_ok();
                keep(g.record.game.to_string(), &g.record.moves.join(" "), ok);
            }
            out.skipped += file.damaged.len();
        }
    }
    Ok(out)
}
