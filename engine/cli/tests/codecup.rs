//! CodeCup mode as a real process against a scripted referee: the engine
//! plays whole games as Red and as Blue against a random mover, every
//! answer is checked with the rules, the game ends with `Quit` (or end of
//! input) and the engine exits with status 0 within its time budget.

mod process;

use leaper::{GameMove, MoveList, Position, SetupCase};
use process::Engine;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::time::{Duration, Instant};

/// A random legal move of `pos` (a random setup in the setup phase).
fn random_move(pos: &Position, rng: &mut StdRng) -> GameMove {
    if pos.is_setup_phase() {
        return GameMove::Setup(leaper::Setup::random(rng));
    }
    let mut list = MoveList::new();
    pos.legal_moves(&mut list);
    GameMove::Move(list.as_slice()[rng.random_range(0..list.len())])
}

/// Referees one game: the engine (started with `args`, whole-game budget
/// `budget`) plays Red if `engine_red`, else Blue; ends with `Quit` if
/// `quit`, else with end of input. Returns the final position.
fn referee(args: &[&str], budget: Duration, engine_red: bool, seed: u64, quit: bool) -> Position {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut engine = Engine::start(args);
    let mut pos = Position::new();
    let started = Instant::now();
    let mut thinking = Duration::ZERO;
    if engine_red {
        engine.send("Start");
    }
    loop {
        if pos.turn() == leaper::Color::Red && !engine_red || pos.turn() == leaper::Color::Blue && engine_red {
            let mv = random_move(&pos, &mut rng);
            engine.send(&mv.to_text(pos.turn()));
            pos.play_game_move(&mv);
            if pos.outcome().is_some() {
                break;
            }
        }
        let asked = Instant::now();
        let answer = engine.line();
        thinking += asked.elapsed();
        let mv = pos
            .parse_move(&answer, SetupCase::Strict)
            .unwrap_or_else(|e| panic!("illegal answer `{answer}` at ply {}: {e}\n{pos:?}", pos.ply()));
        pos.play_game_move(&mv);
        if pos.outcome().is_some() {
            break;
        }
    }
    if quit {
        engine.send("Quit");
    } else {
        engine.close_input();
    }
    let status = engine.wait();
    assert!(status.success(), "exit status {status:?}");
    // No stray output after the last move.
    assert_eq!(engine.try_line(Duration::from_millis(10)), None);
    eprintln!(
        "game of {} plies in {:?}, engine thinking {thinking:?}",
        pos.ply(),
        started.elapsed()
    );
    // The engine's own clock plus the pipes: far from a time loss.
    assert!(
        thinking < budget + Duration::from_millis(1_500),
        "thinking took {thinking:?}"
    );
    pos
}

#[test]
fn codecup_mode_plays_red_to_the_end() {
    let end = referee(&["codecup", "--time-ms", "3000"], Duration::from_secs(3), true, 1, true);
    assert!(end.outcome().is_some());
}

#[test]
fn codecup_mode_plays_blue_to_the_end() {
    let end = referee(
        &["codecup", "--time-ms", "3000"],
        Duration::from_secs(3),
        false,
        2,
        true,
    );
    assert!(end.outcome().is_some());
}

#[test]
fn without_arguments_the_first_line_chooses_codecup() {
    // `Start` makes the engine Red, a setup makes it Blue; end of input
    // ends the game as `Quit` does. The default budget is the CodeCup's 30 s,
    // and the random opponent loses long before that is spent.
    referee(&[], Duration::from_secs(30), true, 3, false);
    referee(&[], Duration::from_secs(30), false, 4, false);
}

#[test]
fn bad_referee_lines_are_skipped() {
    let mut engine = Engine::start(&["codecup", "--time-ms", "2000"]);
    engine.send("Start");
    let setup = engine.line();
    let mut pos = Position::new();
    let mv = pos.parse_move(&setup, SetupCase::Strict).unwrap();
    pos.play_game_move(&mv);
    // Garbage and an illegal setup are ignored; the real reply is answered.
    engine.send("hello");
    engine.send("");
    engine.send("AAAAAAAAAAAAAAAA");
    engine.send("b5d3");
    engine.send("aaaaaffdaddadnwa");
    let answer = engine.line();
    pos.play_game_move(&pos.parse_move("aaaaaffdaddadnwa", SetupCase::Strict).unwrap());
    assert!(pos.parse_move(&answer, SetupCase::Strict).is_ok(), "{answer}");
    engine.send("Quit");
    assert!(engine.wait().success());
}
