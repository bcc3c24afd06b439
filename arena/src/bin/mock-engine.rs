//! A scripted engine for testing the arena with real processes and real
//! pipes (the idea of fastchess's `tests/mock/engine`). It plays random
//! legal moves (the rules come from the `leaper` crate) in UCI or CodeCup
//! mode, and misbehaves on demand on its N-th search:
//!
//! | mode | on the N-th search |
//! |------|--------------------|
//! | `random` (default), `instant` | nothing: always a random legal move at once |
//! | `crash` | aborts (killed by SIGABRT) |
//! | `exit` | exits with status 0 |
//! | `stall` | stops answering anything, forever |
//! | `illegal` | answers a well-formed illegal move |
//! | `garbage` | prints junk lines, then an unreadable `bestmove` |
//! | `none` | answers `bestmove (none)` |
//! | `slow` | from then on waits `--delay-ms` (default 100) before each answer |
//! | `mute` | never answers `uci` (N is ignored) |
//! | `flood` | first prints `--flood-mb` MB (default 300) of short lines, `info string` and unknown ones in turn |
//! | `twice` | from then on prints each `bestmove` twice, the second `--delay-ms` after the first |
//! | `ponder-none` | from then on answers `bestmove MOVE ponder (none)` |
//!
//! It offers two options for tuning tests: `Ratio`, a float carried as a
//! `string` (a value that is not a decimal in [0, 1] makes it exit with
//! status 3), and `Knob`, a `spin` from 0 to 10 that changes nothing.
//!
//! Settings come from arguments (`--mode M --after N --delay-ms D --seed
//! S --flood-mb F`), from the environment (`MOCK_MODE`, `MOCK_AFTER`,
//! `MOCK_DELAY_MS`, `MOCK_SEED`, `MOCK_FLOOD_MB`), or in UCI mode from
//! options (`Mode`, `After`, `DelayMs`, `Seed`, `FloodMb`); later sources
//! override earlier ones. `--delay-ms` in any mode but `slow` and `twice`
//! delays every answer.

use std::io::{self, Write};
use std::time::Duration;

use leaper::{GameMove, Move, MoveList, MoveText, Position, Setup, SetupCase, Square};
use protocol::{Command, Line, LineReader, StartPosition};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    Random,
    Crash,
    Exit,
    Stall,
    Illegal,
    Garbage,
    NoMove,
    Slow,
    Mute,
    Flood,
    Twice,
    PonderNone,
}

impl Mode {
    fn parse(text: &str) -> Option<Self> {
        Some(match text.to_ascii_lowercase().as_str() {
            "random" | "instant" => Self::Random,
            "crash" => Self::Crash,
            "exit" => Self::Exit,
            "stall" => Self::Stall,
            "illegal" => Self::Illegal,
            "garbage" => Self::Garbage,
            "none" => Self::NoMove,
            "slow" => Self::Slow,
            "mute" => Self::Mute,
            "flood" => Self::Flood,
            "twice" => Self::Twice,
            "ponder-none" => Self::PonderNone,
            _ => return None,
        })
    }
}

struct Mock {
    mode: Mode,
    after: u64,
    delay: Option<Duration>,
    seed: u64,
    flood_mb: u64,
    searches: u64,
    rng: StdRng,
    pos: Position,
    out: io::StdoutLock<'static>,
}

impl Mock {
    fn say(&mut self, line: &str) {
        let _ = writeln!(self.out, "{line}");
        let _ = self.out.flush();
    }

    fn set(&mut self, key: &str, value: &str) {
        match key.to_ascii_lowercase().as_str() {
            "mode" => {
                if let Some(mode) = Mode::parse(value) {
                    self.mode = mode;
                }
            }
            "after" => self.after = value.parse().unwrap_or(self.after),
            "delayms" | "delay-ms" => self.delay = value.parse().ok().map(Duration::from_millis),
            "floodmb" | "flood-mb" => self.flood_mb = value.parse().unwrap_or(self.flood_mb),
            "seed" => {
                self.seed = value.parse().unwrap_or(self.seed);
                self.rng = StdRng::seed_from_u64(self.seed);
            }
            _ => {}
        }
    }

    /// A random legal answer in the current position, or `None` if the
    /// game is over.
    fn random_move(&mut self) -> Option<String> {
        if self.pos.outcome().is_some() {
            return None;
        }
        let turn = self.pos.turn();
        if self.pos.is_setup_phase() {
            return Some(Setup::random(&mut self.rng).to_text(turn));
        }
        let mut list = MoveList::new();
        self.pos.legal_moves(&mut list);
        let moves = list.as_slice();
        let mv = *moves.get(self.rng.random_range(0..moves.len().max(1)))?;
        Some(GameMove::Move(mv).to_text(turn))
    }

    /// A well-formed move the rules refuse here.
    fn illegal_move(&self) -> String {
        let turn = self.pos.turn();
        if self.pos.is_setup_phase() {
            // A setup in the opponent's case.
            return Setup::first().to_text(!turn);
        }
        let empty = Square::ALL
            .into_iter()
            .find(|&sq| self.pos.piece_at(sq).is_none())
            .unwrap_or(Square::ALL[0]);
        let to = Square::ALL[(empty.index() + 1) % 64];
        GameMove::Move(Move::Jump { from: empty, to }).to_text(turn)
    }

    /// The answer to one search, with the scripted misbehaviour; `None`
    /// for "no move" (game over or mode `none`).
    fn answer(&mut self) -> Answer {
        self.searches += 1;
        let triggered = self.searches == self.after;
        if self.mode == Mode::Slow && self.searches >= self.after {
            std::thread::sleep(self.delay.unwrap_or(Duration::from_millis(100)));
        } else if self.mode == Mode::Twice {
            // The delay separates the two copies of the answer.
        } else if let Some(delay) = self.delay {
            std::thread::sleep(delay);
        }
        if triggered {
            match self.mode {
                Mode::Crash => std::process::abort(),
                Mode::Exit => std::process::exit(0),
                Mode::Stall => loop {
                    std::thread::sleep(Duration::from_secs(3600));
                },
                Mode::Illegal => return Answer::Move(self.illegal_move()),
                Mode::Garbage => {
                    let _ = self.out.write_all(b"\xff\xfe garbage \x00 line\n");
                    self.say("bestmove");
                    return Answer::Text("bestmove zz99!".to_owned());
                }
                Mode::NoMove => return Answer::None,
                Mode::Flood => self.flood(),
                Mode::Random | Mode::Slow | Mode::Mute | Mode::Twice | Mode::PonderNone => {}
            }
        }
        match self.random_move() {
            Some(mv) => Answer::Move(mv),
            None => Answer::None,
        }
    }

    /// Prints `flood_mb` MB of short lines, `info string` and unknown
    /// ones in turn, as fast as the pipe takes them.
    fn flood(&mut self) {
        let mut chunk = Vec::with_capacity(1 << 16);
        let mut written = 0u64;
        let mut n = 0u64;
        while written < self.flood_mb << 20 {
            chunk.clear();
            while chunk.len() < (1 << 16) - 64 {
                n += 1;
                let prefix = if n.is_multiple_of(2) { "info string " } else { "" };
                let _ = writeln!(chunk, "{prefix}flood {n}");
            }
            if self.out.write_all(&chunk).is_err() {
                return;
            }
            written += chunk.len() as u64;
        }
        let _ = self.out.flush();
    }

    /// Whether this search's answer is to misbehave in a mode that lasts
    /// from the N-th search on.
    fn misbehaves_as(&self, mode: Mode) -> bool {
        self.mode == mode && self.searches >= self.after
    }

    fn play(&mut self, text: MoveText) -> bool {
        match self.pos.move_from_text(text, SetupCase::Lenient) {
            Ok(mv) => {
                self.pos.play_game_move(&mv);
                true
            }
            Err(_) => false,
        }
    }
}

enum Answer {
    Move(String),
    Text(String),
    None,
}

fn settings_from_args(mock: &mut Mock) {
    for (key, var) in [
        ("mode", "MOCK_MODE"),
        ("after", "MOCK_AFTER"),
        ("delay-ms", "MOCK_DELAY_MS"),
        ("seed", "MOCK_SEED"),
        ("flood-mb", "MOCK_FLOOD_MB"),
    ] {
        if let Ok(value) = std::env::var(var) {
            mock.set(key, &value);
        }
    }
    let args: Vec<String> = std::env::args().skip(1).collect();
    for pair in args.chunks(2) {
        if let [key, value] = pair {
            mock.set(key.trim_start_matches('-'), value);
        }
    }
}

/// Whether `text` is a decimal number with a fractional part in `[0, 1]`
/// (what the `Ratio` option accepts).
fn is_ratio(text: &str) -> bool {
    text.contains('.') && text.parse::<f64>().is_ok_and(|x| (0.0..=1.0).contains(&x))
}

fn uci(mock: &mut Mock, first: &str, lines: &mut impl Iterator<Item = String>) {
    let mut next = Some(first.to_owned());
    while let Some(line) = next.take().or_else(|| lines.next()) {
        let Ok(command) = line.parse::<Command>() else { continue };
        match command {
            Command::Uci => {
                if mock.mode == Mode::Mute {
                    continue;
                }
                mock.say("id name mock-engine");
                mock.say("id author leaper developers");
                mock.say("option name Mode type string default random");
                mock.say("option name After type spin default 1 min 1 max 1000000");
                mock.say("option name DelayMs type spin default 0 min 0 max 1000000");
                mock.say("option name Seed type spin default 1 min 0 max 1000000000");
                mock.say("option name Hash type spin default 1 min 1 max 1024");
                mock.say("option name FloodMb type spin default 300 min 0 max 100000");
                // Two options for tuning tests: a float carried as a string,
                // and an integer knob that does nothing.
                mock.say("option name Ratio type string default 0.5");
                mock.say("option name Knob type spin default 5 min 0 max 10");
                mock.say("uciok");
            }
            Command::IsReady => mock.say("readyok"),
            Command::SetOption(option) => {
                let value = option.value.clone().unwrap_or_default();
                if option.name.eq_ignore_ascii_case("ratio") && !is_ratio(&value) {
                    // A float option must get decimal text in [0, 1]: say so
                    // and die, so that the arena records a crash.
                    eprintln!("mock-engine: Ratio must be a decimal in [0, 1], got {value:?}");
                    std::process::exit(3);
                }
                mock.set(&option.name.replace(' ', ""), &value);
            }
            Command::UciNewGame => {}
            Command::Position { start, moves } => {
                mock.pos = match start {
                    StartPosition::StartPos => Position::new(),
                    StartPosition::Fen(pos) => *pos,
                };
                for mv in moves {
                    if !mock.play(mv) {
                        mock.say(&format!("info string error: illegal move {mv}"));
                        break;
                    }
                }
            }
            Command::Go(_) => match mock.answer() {
                Answer::Move(mv) => {
                    mock.say("info depth 1 score cp 0 nodes 1");
                    if mock.misbehaves_as(Mode::PonderNone) {
                        mock.say(&format!("bestmove {mv} ponder (none)"));
                    } else {
                        mock.say(&format!("bestmove {mv}"));
                    }
                    if mock.misbehaves_as(Mode::Twice) {
                        if let Some(delay) = mock.delay {
                            std::thread::sleep(delay);
                        }
                        mock.say(&format!("bestmove {mv}"));
                    }
                }
                Answer::Text(text) => mock.say(&text),
                Answer::None => {
                    if mock.pos.outcome().is_some() {
                        mock.say("info string gameover");
                    }
                    mock.say("bestmove (none)");
                }
            },
            Command::Quit => std::process::exit(0),
            _ => {}
        }
    }
}

fn codecup(mock: &mut Mock, first: &str, lines: &mut impl Iterator<Item = String>) {
    let mut next = Some(first.to_owned());
    while let Some(line) = next.take().or_else(|| lines.next()) {
        let line = line.trim();
        match line {
            "Quit" => std::process::exit(0),
            "Start" => {}
            "" => continue,
            // The opening-line extension: moves already played, then wait
            // for `Start` or the opponent's move.
            played if played.starts_with("Opening") => {
                for mv in played.split_whitespace().skip(1) {
                    if !mv.parse().is_ok_and(|mv| mock.play(mv)) {
                        eprintln!("mock-engine: illegal opening move from the referee: {mv}");
                        std::process::exit(1);
                    }
                }
                continue;
            }
            mv => {
                if !mv.parse().is_ok_and(|mv| mock.play(mv)) {
                    eprintln!("mock-engine: illegal move from the referee: {mv}");
                    std::process::exit(1);
                }
            }
        }
        match mock.answer() {
            Answer::Move(mv) => {
                let ok = mock.pos.parse_move(&mv, SetupCase::Strict).is_ok();
                mock.say(&mv);
                if let (true, Ok(mv)) = (ok, mv.parse()) {
                    mock.play(mv);
                }
            }
            Answer::Text(text) => mock.say(&text),
            Answer::None => mock.say("none"),
        }
    }
}

fn main() {
    let mut mock = Mock {
        mode: Mode::Random,
        after: 1,
        delay: None,
        seed: 1,
        flood_mb: 300,
        searches: 0,
        rng: StdRng::seed_from_u64(1),
        pos: Position::new(),
        out: io::stdout().lock(),
    };
    settings_from_args(&mut mock);
    let stdin = io::stdin().lock();
    let mut lines = LineReader::new(stdin).filter_map(|line| match line {
        Ok(Line::Text(text)) => Some(text),
        Ok(Line::TooLong { .. }) => Some(String::new()),
        Err(_) => None,
    });
    let Some(first) = lines.by_ref().find(|l| !l.trim().is_empty()) else {
        return;
    };
    if first.trim() == "uci" {
        uci(&mut mock, &first, &mut lines);
    } else {
        codecup(&mut mock, &first, &mut lines);
    }
    // End of input: exit quietly.
    let _ = io::stdout().flush();
}
