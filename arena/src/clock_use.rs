//! Where the clock goes: each engine's thinking time by move number, read
//! back from a run's event log (`events.jsonl`, whose `move` events carry
//! the time each move took). A time control is spent well when the moves
//! that decide games get their share; a median per band of move numbers
//! shows at a glance whether an engine spends its clock up front (the
//! profile that made this report: 368 ms a move over its first five moves
//! and 35 ms over moves 26-30, where its games were being lost).
//!
//! Only finished games count (a `game-finished` event after the moves), and
//! of a game started more than once (a resumed run replays the games it
//! had not recorded) only the last attempt. Lines that are not JSON, or
//! events without the keys they need, are skipped and reported, as `arena
//! stats` does with damaged rows.

use std::collections::{BTreeMap, HashMap};
use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::Path;

use serde_json::Value;

use crate::files::FileError;

/// The thinking times of one engine over the finished games it played.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EngineClock {
    /// Games played.
    pub games: usize,
    /// Milliseconds of its setup moves (0 when the arena imposed them).
    pub setups: Vec<u64>,
    /// Milliseconds of its regular moves: `by_move[k]` holds its (k+1)-th
    /// regular move of every game that lasted that long.
    pub by_move: Vec<Vec<u64>>,
    /// Milliseconds of each whole game, setup included.
    pub totals: Vec<u64>,
}

/// The times of a band of move numbers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Band {
    /// First regular move of the band (1-based).
    pub first: usize,
    /// Last regular move of the band.
    pub last: usize,
    /// Moves in the band over all games.
    pub moves: usize,
    /// Their median, ms.
    pub median_ms: u64,
}

/// The median of some times (the mean of the two middle ones for an even
/// count, rounded down); `None` when there are none.
pub fn median(values: &[u64]) -> Option<u64> {
    if values.is_empty() {
        return None;
    }
    let mut sorted = values.to_vec();
    sorted.sort_unstable();
    let mid = sorted.len() / 2;
    Some(if sorted.len() % 2 == 1 {
        sorted[mid]
    } else {
        sorted[mid - 1] / 2 + sorted[mid] / 2 + (sorted[mid - 1] % 2 + sorted[mid] % 2) / 2
    })
}

impl EngineClock {
    /// The medians of bands of `width` regular moves (1..=width,
    /// width+1..=2 width, ...), up to the last move any game reached.
    pub fn bands(&self, width: usize) -> Vec<Band> {
        let width = width.max(1);
        self.by_move
            .chunks(width)
            .enumerate()
            .map(|(i, chunk)| {
                let all: Vec<u64> = chunk.iter().flatten().copied().collect();
                Band {
                    first: i * width + 1,
                    last: i * width + chunk.len(),
                    moves: all.len(),
                    median_ms: median(&all).unwrap_or(0),
                }
            })
            .collect()
    }

    /// The median time of a whole game.
    pub fn median_total(&self) -> u64 {
        median(&self.totals).unwrap_or(0)
    }

    /// The median time of a setup move.
    pub fn median_setup(&self) -> u64 {
        median(&self.setups).unwrap_or(0)
    }
}

/// The clock use of every engine of one or more event logs.
#[derive(Clone, Debug, Default)]
pub struct ClockUse {
    /// By engine name.
    pub engines: BTreeMap<String, EngineClock>,
    /// Finished games read.
    pub games: usize,
    /// Games started but never finished (left out).
    pub unfinished: usize,
    /// Lines skipped, each with its file and line number.
    pub skipped: Vec<String>,
}

/// A game between its `game-started` and `game-finished` events.
struct Pending {
    names: [String; 2],
    /// (ply, side index, ms).
    moves: Vec<(u64, usize, u64)>,
}

impl ClockUse {
    /// Reads an event log into this tally (several logs may be read into
    /// one).
    ///
    /// # Errors
    /// When the file cannot be opened or read.
    pub fn read(&mut self, path: &Path) -> Result<(), FileError> {
        let io = |source| FileError::Io {
            path: path.to_path_buf(),
            source,
        };
        let reader = BufReader::new(File::open(path).map_err(io)?);
        let mut pending: HashMap<u64, Pending> = HashMap::new();
        for (index, line) in reader.lines().enumerate() {
            let line = line.map_err(io)?;
            if line.trim().is_empty() {
                continue;
            }
            let at = format!("{}:{}", path.display(), index + 1);
            if let Err(reason) = self.event(&line, &mut pending) {
                self.skipped.push(format!("{at}: {reason}"));
            }
        }
        self.unfinished += pending.len();
        Ok(())
    }

    /// Takes in one line of the log.
    fn event(&mut self, line: &str, pending: &mut HashMap<u64, Pending>) -> Result<(), String> {
        let value: Value = serde_json::from_str(line).map_err(|e| format!("not a JSON object ({e})"))?;
        let kind = value["event"].as_str().ok_or("no `event` key")?;
        let key = |name: &str| {
            value[name]
                .as_u64()
                .ok_or(format!("a `{kind}` event without a numeric `{name}`"))
        };
        let name = |name: &str| {
            value[name]
                .as_str()
                .map(str::to_owned)
                .ok_or(format!("a `{kind}` event without `{name}`"))
        };
        match kind {
            "game-started" => {
                // A replayed game's earlier attempt is dropped with it.
                let game = key("game")?;
                let names = [name("red")?, name("blue")?];
                pending.insert(
                    game,
                    Pending {
                        names,
                        moves: Vec::new(),
                    },
                );
            }
            "move" => {
                let game = key("game")?;
                let (ply, ms) = (key("ply")?, key("ms")?);
                let side = match value["side"].as_str() {
                    Some("red") => 0,
                    Some("blue") => 1,
                    _ => return Err("a `move` event without `side` red or blue".to_owned()),
                };
                if ply == 0 {
                    return Err("a `move` event at ply 0".to_owned());
                }
                let game = pending
                    .get_mut(&game)
                    .ok_or(format!("a move of game {game}, which has not started"))?;
                game.moves.push((ply, side, ms));
            }
            "game-finished" => {
                let game = key("game")?;
                let Some(finished) = pending.remove(&game) else {
                    return Err(format!("game {game} finished without having started"));
                };
                self.finish(finished);
            }
            _ => {}
        }
        Ok(())
    }

    /// Adds a finished game's moves to its two engines.
    fn finish(&mut self, game: Pending) {
        self.games += 1;
        let mut totals = [0u64; 2];
        for name in &game.names {
            self.engines.entry(name.clone()).or_default().games += 1;
        }
        for (ply, side, ms) in game.moves {
            totals[side] += ms;
            let engine = self.engines.get_mut(&game.names[side]).expect("entered above");
            if ply <= 2 {
                engine.setups.push(ms);
            } else {
                // Plies 3 and 4 are each side's first regular move.
                let k = usize::try_from((ply - 3) / 2).unwrap_or(usize::MAX);
                if k >= engine.by_move.len() {
                    engine.by_move.resize_with(k + 1, Vec::new);
                }
                engine.by_move[k].push(ms);
            }
        }
        for (side, name) in game.names.iter().enumerate() {
            self.engines
                .get_mut(name)
                .expect("entered above")
                .totals
                .push(totals[side]);
        }
    }
}

/// Reads the event logs of runs: each path is a run directory (its
/// `events.jsonl`) or an event log itself.
///
/// # Errors
/// When a log cannot be opened or read.
pub fn read_clock_use(paths: &[impl AsRef<Path>]) -> Result<ClockUse, FileError> {
    let mut clock = ClockUse::default();
    for path in paths {
        let path = path.as_ref();
        if path.is_dir() {
            clock.read(&path.join(crate::EVENTS_FILE))?;
        } else {
            clock.read(path)?;
        }
    }
    Ok(clock)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn medians_of_odd_even_and_no_counts() {
        assert_eq!(median(&[]), None);
        assert_eq!(median(&[7]), Some(7));
        assert_eq!(median(&[9, 1, 5]), Some(5));
        assert_eq!(median(&[4, 1, 3, 2]), Some(2));
        assert_eq!(median(&[3, 5]), Some(4));
        assert_eq!(median(&[u64::MAX, u64::MAX]), Some(u64::MAX));
    }

    fn log(lines: &[&str]) -> ClockUse {
        let dir = std::env::temp_dir().join(format!("clock-use-{}-{}", std::process::id(), lines.len()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("events.jsonl");
        std::fs::write(&path, lines.join("\n")).unwrap();
        let clock = read_clock_use(&[&dir]).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        clock
    }

    fn mv(game: u64, ply: u64, side: &str, ms: u64) -> String {
        format!(r#"{{"event":"move","game":{game},"ply":{ply},"side":"{side}","move":"x","ms":{ms},"time":1}}"#)
    }

    #[test]
    fn a_replayed_game_counts_once_an_unfinished_one_not_and_damage_is_reported() {
        let started = |g: u64, red: &str, blue: &str| {
            format!(
                r#"{{"event":"game-started","game":{g},"pair":0,"round":0,"red":"{red}","blue":"{blue}","time":1}}"#
            )
        };
        let finished = |g: u64| format!(r#"{{"event":"game-finished","game":{g},"time":1}}"#);
        let lines = [
            started(0, "a", "b"),
            mv(0, 1, "red", 50),
            mv(0, 2, "blue", 0),
            mv(0, 3, "red", 999), // an attempt the run was killed in
            started(0, "a", "b"),
            mv(0, 1, "red", 40),
            mv(0, 2, "blue", 0),
            mv(0, 3, "red", 100),
            mv(0, 4, "blue", 30),
            mv(0, 5, "red", 60),
            mv(0, 6, "blue", 20),
            mv(0, 7, "red", 20),
            finished(0),
            started(1, "b", "a"),
            mv(1, 3, "red", 10),
            mv(1, 4, "blue", 80),
            finished(1),
            started(2, "a", "b"),
            mv(2, 3, "red", 5000), // never finished
            r#"{"event":"move","game":2,"ply":4}"#.to_owned(),
            mv(7, 3, "red", 1),
            r#"{"event":"move","ga"#.to_owned(), // a torn last line
        ];
        let refs: Vec<&str> = lines.iter().map(String::as_str).collect();
        let clock = log(&refs);
        assert_eq!((clock.games, clock.unfinished), (2, 1));
        assert_eq!(clock.skipped.len(), 3, "{:?}", clock.skipped);
        assert!(clock.skipped[0].ends_with(":20: a `move` event without a numeric `ms`"));
        assert!(clock.skipped[1].ends_with(":21: a move of game 7, which has not started"));
        assert!(clock.skipped[2].contains(":22: not a JSON object"));

        let a = &clock.engines["a"];
        assert_eq!(a.games, 2);
        assert_eq!(a.setups, vec![40]);
        assert_eq!(a.by_move, vec![vec![100, 80], vec![60], vec![20]]);
        assert_eq!(a.totals, vec![220, 80]);
        assert_eq!(
            a.bands(2),
            vec![
                Band {
                    first: 1,
                    last: 2,
                    moves: 3,
                    median_ms: 80
                },
                Band {
                    first: 3,
                    last: 3,
                    moves: 1,
                    median_ms: 20
                },
            ]
        );
        assert_eq!(a.median_total(), 150);
        let b = &clock.engines["b"];
        assert_eq!((b.games, b.totals.clone(), b.median_setup()), (2, vec![50, 10], 0));
        assert_eq!(b.by_move, vec![vec![30, 10], vec![20]]);
    }
}
