//! Strength with real processes: `leaper uci` at a small fixed depth beats
//! a uniformly random mover in every one of 100 games, and scores at least
//! 95% in 100 games against itself searching one ply. Every game is seeded
//! (the random mover's choices and the engines' `Seed` option, which varies
//! their setups with the book off), so the results are the same on every
//! run; the margins measured are in `engine/README.md`.

mod process;

use leaper::{Color, GameMove, MoveList, Position, SetupCase};
use process::Engine;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// One side of a game.
enum Player {
    /// Uniformly random legal moves (random setups).
    Random(Box<StdRng>),
    /// `leaper uci` answering `go <go>`.
    Uci { engine: Engine, go: String },
}

impl Player {
    fn engine(go: &str) -> Player {
        let mut engine = Engine::start(&["uci"]);
        engine.send("uci");
        engine.until(|l| l == "uciok");
        // Without the book the setups follow `Seed`, so that each game
        // starts from its own pair of setups (the book's best Red setup and
        // its reply would make every game with the same colours the same).
        engine.send("setoption name OwnBook value false");
        Player::Uci {
            engine,
            go: go.to_string(),
        }
    }

    fn new_game(&mut self, seed: u64) {
        match self {
            Player::Random(rng) => **rng = StdRng::seed_from_u64(seed),
            Player::Uci { engine, .. } => {
                engine.send("ucinewgame");
                engine.send(&format!("setoption name Seed value {seed}"));
                engine.sync();
            }
        }
    }

    fn choose(&mut self, pos: &Position, moves: &[String]) -> GameMove {
        match self {
            Player::Random(rng) => {
                if pos.is_setup_phase() {
                    return GameMove::Setup(leaper::Setup::random(rng));
                }
                let mut list = MoveList::new();
                pos.legal_moves(&mut list);
                GameMove::Move(list.as_slice()[rng.random_range(0..list.len())])
            }
            Player::Uci { engine, go } => {
                engine.send(&format!("position startpos moves {}", moves.join(" ")));
                engine.send(&format!("go {go}"));
                let lines = engine.bestmove();
                let last = lines.last().cloned().unwrap_or_default();
                let text = last.split_whitespace().nth(1).unwrap_or_default().to_string();
                pos.parse_move(&text, SetupCase::Strict)
                    .unwrap_or_else(|e| panic!("illegal `{last}` at ply {}: {e}\n{pos:?}", pos.ply()))
            }
        }
    }
}

/// Plays one game; returns the winner (`None` for a draw).
fn play(red: &mut Player, blue: &mut Player) -> Option<Color> {
    let mut pos = Position::new();
    let mut moves = Vec::new();
    loop {
        if let Some(outcome) = pos.outcome() {
            return outcome.winner;
        }
        let player = if pos.turn() == Color::Red {
            &mut *red
        } else {
            &mut *blue
        };
        let mv = player.choose(&pos, &moves);
        moves.push(mv.to_text(pos.turn()));
        pos.play_game_move(&mv);
    }
}

/// Plays `games` games of `engine` against `other`, alternating colours;
/// returns (wins, draws, losses) of `engine`.
fn match_up(engine: &mut Player, other: &mut Player, games: u64, seed: u64) -> (u32, u32, u32) {
    let (mut wins, mut draws, mut losses) = (0, 0, 0);
    for game in 0..games {
        engine.new_game(seed + game);
        other.new_game(seed + 1000 + game);
        let engine_red = game % 2 == 0;
        let winner = if engine_red {
            play(engine, other)
        } else {
            play(other, engine)
        };
        let engine_color = if engine_red { Color::Red } else { Color::Blue };
        match winner {
            Some(c) if c == engine_color => wins += 1,
            Some(_) => losses += 1,
            None => draws += 1,
        }
    }
    (wins, draws, losses)
}

#[test]
fn beats_a_random_mover_in_all_of_100_games() {
    let mut engine = Player::engine("depth 2");
    let mut random = Player::Random(Box::new(StdRng::seed_from_u64(0)));
    let (wins, draws, losses) = match_up(&mut engine, &mut random, 100, 1);
    eprintln!("depth 2 against a random mover: +{wins} ={draws} -{losses}");
    assert_eq!((wins, draws, losses), (100, 0, 0));
}

#[test]
fn scores_at_least_95_percent_against_itself_at_depth_1() {
    let mut engine = Player::engine("depth 4");
    let mut shallow = Player::engine("depth 1");
    let (wins, draws, losses) = match_up(&mut engine, &mut shallow, 100, 7);
    let score = f64::from(wins) + f64::from(draws) / 2.0;
    eprintln!("depth 4 against depth 1: +{wins} ={draws} -{losses} ({score}%)");
    assert!(score >= 95.0, "+{wins} ={draws} -{losses}");
}
