//! The search through its library API: it finds forced wazir captures,
//! honours every limit and the stop flag, is deterministic at a fixed
//! depth, and always answers with a legal move (setups included).

use leaper::search::{Clock, Limits, ScoreReport, Searcher, Signals, win_at};
use leaper::{GameMove, Move, MoveList, Position, SetupCase};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::sync::Arc;
use std::time::{Duration, Instant};

fn play(moves: &str) -> Position {
    let mut pos = Position::new();
    for text in moves.split_whitespace() {
        let mv = pos.parse_move(text, SetupCase::Lenient).unwrap();
        pos.play_game_move(&mv);
    }
    pos
}

fn depth(d: u32) -> Limits {
    Limits {
        depth: Some(d),
        ..Limits::default()
    }
}

fn searcher() -> Searcher {
    Searcher::new(8).unwrap()
}

/// A random position reached by `plies` random moves after random setups.
fn random_position(rng: &mut StdRng, plies: usize) -> Position {
    let mut pos = Position::from_setups(&leaper::Setup::random(rng), &leaper::Setup::random(rng));
    for _ in 0..plies {
        if pos.outcome().is_some() {
            break;
        }
        let mut list = MoveList::new();
        pos.legal_moves(&mut list);
        let mv = list.as_slice()[rng.random_range(0..list.len())];
        let next = pos.after(mv);
        if next.terminal().is_some() {
            break;
        }
        pos = next;
    }
    pos
}

#[test]
fn captures_are_exactly_the_legal_moves_onto_enemy_pieces() {
    let mut rng = StdRng::seed_from_u64(3);
    for _ in 0..300 {
        let plies = rng.random_range(0..60);
        let pos = random_position(&mut rng, plies);
        let (mut all, mut caps) = (MoveList::new(), MoveList::new());
        pos.legal_moves(&mut all);
        pos.captures(&mut caps);
        let expected: Vec<Move> = all
            .iter()
            .copied()
            .filter(|m| matches!(m, Move::Jump { to, .. } if pos.pieces_of(!pos.turn()).contains(*to)))
            .collect();
        assert_eq!(caps.as_slice(), expected.as_slice(), "{pos:?}");
    }
}

#[test]
fn an_attacked_wazir_is_captured_at_once() {
    // Red's knight on c3 attacks Blue's wazir on d5.
    let pos = Position::from_fen("AAAAAAAA/DDDDFF1W/2N5/4w3/8/8/aaaaaaaa/ddddff1n - r 10").unwrap();
    let result = searcher().search(&pos, &depth(5), &Signals::default(), &mut ());
    assert_eq!(result.best.map(|m| m.to_text(pos.turn())).as_deref(), Some("c3d5"));
    assert_eq!(result.score, win_at(1));
    assert_eq!(ScoreReport::from_score(result.score), ScoreReport::Mate(1));
}

#[test]
fn a_forced_capture_in_two_is_found_and_reported_as_mate_2() {
    // Blue's wazir on h8 can only flee to g8 and h7, which Red's dabbabas on
    // g6 and f7 cover; an alfil dropped on f6 attacks h8 and nothing can
    // take it, so the wazir falls on Red's next move.
    let fen = "W7/8/8/8/8/6D1/5D2/7w Aaaaaaaaaaaaaaaaddddddffffnn r 40";
    let pos = Position::from_fen(fen).unwrap();
    let result = searcher().search(&pos, &depth(4), &Signals::default(), &mut ());
    assert_eq!(result.best.map(|m| m.to_text(pos.turn())).as_deref(), Some("Af6"));
    assert_eq!(result.score, win_at(3));
    assert_eq!(ScoreReport::from_score(result.score), ScoreReport::Mate(2));
    // Blue, to move after the drop, sees its wazir fall.
    let after = pos.after(Move::Drop {
        role: leaper::Role::Alfil,
        to: leaper::Square::parse(b"f6").unwrap(),
    });
    let result = searcher().search(&after, &depth(4), &Signals::default(), &mut ());
    assert_eq!(ScoreReport::from_score(result.score), ScoreReport::Mate(-1));
}

#[test]
fn a_fixed_depth_search_is_deterministic() {
    let pos = play("AWNAADADAFFAADDA aaaaaffdaddadnwa b5d3 g4e6 a3c4");
    let a = searcher().search(&pos, &depth(6), &Signals::default(), &mut ());
    let b = searcher().search(&pos, &depth(6), &Signals::default(), &mut ());
    assert_eq!((a.nodes, a.best, a.score), (b.nodes, b.best, b.score));
    assert_eq!(a.depth, 6);
    assert!(a.nodes > 1000, "{}", a.nodes);
}

#[test]
fn node_and_depth_limits_hold() {
    let pos = play("AWNAADADAFFAADDA aaaaaffdaddadnwa");
    let mut iterations = Vec::new();
    let result = searcher().search(
        &pos,
        &depth(3),
        &Signals::default(),
        &mut |it: &leaper::search::Iteration| iterations.push(it.depth),
    );
    assert_eq!(iterations, [1, 2, 3]);
    assert_eq!(result.depth, 3);
    let limits = Limits {
        nodes: Some(5_000),
        ..Limits::default()
    };
    let result = searcher().search(&pos, &limits, &Signals::default(), &mut ());
    assert!(result.nodes <= 5_001, "{}", result.nodes);
    assert!(result.best.is_some());
}

#[test]
fn time_limits_hold() {
    let pos = play("AWNAADADAFFAADDA aaaaaffdaddadnwa b5d3 g4e6");
    for limits in [
        Limits {
            movetime: Some(Duration::from_millis(100)),
            ..Limits::default()
        },
        Limits {
            clock: Some(Clock {
                time: Duration::from_millis(2_000),
                inc: Duration::ZERO,
                movestogo: None,
            }),
            ..Limits::default()
        },
    ] {
        let start = Instant::now();
        let result = searcher().search(&pos, &limits, &Signals::default(), &mut ());
        let took = start.elapsed();
        assert!(result.best.is_some());
        assert!(took < Duration::from_millis(400), "{limits:?} took {took:?}");
    }
}

#[test]
fn the_stop_flag_ends_an_infinite_search_with_a_move() {
    let pos = play("AWNAADADAFFAADDA aaaaaffdaddadnwa b5d3 g4e6");
    let signals = Arc::new(Signals::default());
    let stopper = {
        let signals = Arc::clone(&signals);
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(150));
            signals.stop.store(true, std::sync::atomic::Ordering::Relaxed);
            Instant::now()
        })
    };
    let limits = Limits {
        infinite: true,
        ..Limits::default()
    };
    let result = searcher().search(&pos, &limits, &signals, &mut ());
    let stopped_at = stopper.join().unwrap();
    assert!(stopped_at.elapsed() < Duration::from_millis(100));
    let best = result.best.unwrap();
    let GameMove::Move(mv) = best else { panic!("{best:?}") };
    assert!(pos.check(&GameMove::Move(mv)).is_ok());
}

#[test]
fn every_answer_is_legal_from_setup_to_the_end_of_a_game() {
    let mut rng = StdRng::seed_from_u64(11);
    let mut s = searcher();
    for game in 0..3u64 {
        s.set_seed(game);
        let mut pos = Position::new();
        while pos.outcome().is_none() {
            let limits = Limits {
                nodes: Some(rng.random_range(200..3_000)),
                ..Limits::default()
            };
            let result = s.search(&pos, &limits, &Signals::default(), &mut ());
            let mv = result.best.unwrap_or_else(|| panic!("no move in {pos:?}"));
            pos.play_checked(&mv).unwrap_or_else(|e| panic!("{e} in {pos:?}"));
        }
        let result = s.search(&pos, &depth(3), &Signals::default(), &mut ());
        assert_eq!(result.best, None);
    }
}

#[test]
fn setups_are_chosen_quickly_and_sensibly() {
    let mut s = searcher();
    let start = Instant::now();
    let red = s.search(&Position::new(), &depth(1), &Signals::default(), &mut ());
    let Some(GameMove::Setup(red)) = red.best else { panic!() };
    let mut pos = Position::new();
    pos.play_setup(&red);
    let blue = s.search(&pos, &depth(1), &Signals::default(), &mut ());
    let Some(GameMove::Setup(blue)) = blue.best else {
        panic!()
    };
    assert!(start.elapsed() < Duration::from_secs(2), "{:?}", start.elapsed());
    for (setup, color) in [(red, leaper::Color::Red), (blue, leaper::Color::Blue)] {
        let w = setup.roles().iter().position(|&r| r == leaper::Role::Wazir).unwrap();
        let col = leaper::Setup::square(color, w).col();
        assert!(col <= 1 || col >= 6, "{}", setup.to_text(color));
    }
}

#[test]
fn a_move_into_a_position_of_the_game_history_scores_as_a_draw() {
    let pos = play("AWNAADADAFFAADDA aaaaaffdaddadnwa b5d3 g4e6");
    let params = leaper::search::Params {
        optimism: 3000,
        ..leaper::search::Params::default()
    };
    let first = searcher().search_with(&pos, &depth(4), &params, &Signals::default(), &mut ());
    let Some(GameMove::Move(best)) = first.best else {
        panic!()
    };
    assert!(first.score > -params.optimism, "{}", first.score);
    // The position after `best` is made to have occurred before (Blue to
    // move in both): it now scores as a draw the engine dislikes, so
    // another move is better.
    let limits = Limits {
        history: vec![pos.after(best).hash()],
        ..depth(4)
    };
    let again = searcher().search_with(&pos, &limits, &params, &Signals::default(), &mut ());
    assert_ne!(again.best, first.best);
    let mut off = params;
    off.repetition = false;
    let ignored = searcher().search_with(&pos, &limits, &off, &Signals::default(), &mut ());
    assert_eq!((ignored.best, ignored.score), (first.best, first.score));
}

#[test]
fn several_threads_share_the_table_and_answer_legally() {
    let pos = play("AWNAADADAFFAADDA aaaaaffdaddadnwa b5d3 g4e6 a3c4");
    let mut s = searcher();
    s.set_threads(3);
    let result = s.search(&pos, &depth(6), &Signals::default(), &mut ());
    assert_eq!(result.depth, 6);
    let best = result.best.unwrap();
    assert!(pos.check(&best).is_ok());
    // The helpers' nodes count too.
    let single = searcher().search(&pos, &depth(6), &Signals::default(), &mut ());
    assert!(result.nodes > single.nodes / 2, "{} vs {}", result.nodes, single.nodes);
}

/// Each switch turned from its default (off for most, on for the steps
/// not yet accepted) leaves a forced win found.
#[test]
fn every_feature_switch_turned_still_finds_the_forced_capture() {
    let fen = "W7/8/8/8/8/6D1/5D2/7w Aaaaaaaaaaaaaaaaddddddffffnn r 40";
    let pos = Position::from_fen(fen).unwrap();
    for switch in leaper::search::Params::SWITCHES {
        let mut params = leaper::search::Params::default();
        params.set_switch(switch.field, !switch.default).unwrap();
        let result = searcher().search_with(&pos, &depth(4), &params, &Signals::default(), &mut ());
        let state = if switch.default { "off" } else { "on" };
        assert_eq!(result.score, win_at(3), "{} {state}", switch.field);
    }
}

/// The steps that are off by default change the search when turned on
/// (so that an SPRT of the switch measures something) in the opening
/// position below or in the wazir chase of [`CHASE`] (a step that
/// concerns an attacked wazir may find none in the first), and each still
/// answers a legal move from both.
#[test]
fn the_steps_off_by_default_change_the_search_when_on() {
    let positions = [play("AWNAADADAFFAADDA aaaaaffdaddadnwa b5d3 g4e6 a3c4"), play(CHASE)];
    // LmrHistory at its least divisor, so that the short search's young
    // history moves some reduction (at the default 4096 it needs longer).
    let mut base = leaper::search::Params::default();
    base.set("LmrHistoryDivisor", 500).unwrap();
    let plain: Vec<_> = positions
        .iter()
        .map(|pos| searcher().search_with(pos, &depth(9), &base, &Signals::default(), &mut ()))
        .collect();
    let mut tried = 0;
    for switch in leaper::search::Params::SWITCHES.iter().filter(|s| !s.default) {
        let mut params = base;
        params.set_switch(switch.field, true).unwrap();
        let mut changed = false;
        for (pos, plain) in positions.iter().zip(&plain) {
            let result = searcher().search_with(pos, &depth(9), &params, &Signals::default(), &mut ());
            let best = result.best.unwrap_or_else(|| panic!("{} on: no move", switch.field));
            assert!(pos.check(&best).is_ok(), "{} on: {best:?}", switch.field);
            changed |= result.nodes != plain.nodes;
        }
        assert!(changed, "{} on visits the same nodes in both positions", switch.field);
        tried += 1;
    }
    assert!(tried >= 1, "no switch is off by default");
}

/// Reading the table's lines ahead is a hint to the processor: the same
/// search with it and without it visits the same nodes and answers the
/// same.
#[test]
fn prefetching_changes_no_result() {
    let pos = play("AWNAADADAFFAADDA aaaaaffdaddadnwa b5d3 g4e6 a3c4");
    let on = leaper::search::Params::default();
    assert!(on.prefetch);
    let mut off = on;
    off.prefetch = false;
    let with = searcher().search_with(&pos, &depth(9), &on, &Signals::default(), &mut ());
    let without = searcher().search_with(&pos, &depth(9), &off, &Signals::default(), &mut ());
    assert!(with.nodes > 10_000, "{}", with.nodes);
    assert_eq!(
        (with.best, with.score, with.nodes, with.depth),
        (without.best, without.score, without.nodes, without.depth)
    );
}

/// The evaluation is a value each searcher owns: two searchers in one
/// process, on two threads at once, search with two evaluations, and each
/// finds what it finds alone.
#[test]
fn two_searchers_in_one_process_use_two_evaluations() {
    use leaper::eval::{Eval, EvalKind};
    let pos = play("AWNAADADAFFAADDA aaaaaffdaddadnwa b5d3 g4e6");
    let alone = |kind: EvalKind| {
        let mut s = Searcher::with_evaluator(Eval::new(kind), 8).unwrap();
        s.search(&pos, &depth(4), &Signals::default(), &mut ())
    };
    let (material, psq) = (alone(EvalKind::Material), alone(EvalKind::Psq));
    assert_ne!(
        (material.score, material.nodes),
        (psq.score, psq.nodes),
        "material and psq should judge this position differently"
    );
    let (together_material, together_psq) = std::thread::scope(|scope| {
        let a = scope.spawn(|| alone(EvalKind::Material));
        let b = scope.spawn(|| alone(EvalKind::Psq));
        (a.join().unwrap(), b.join().unwrap())
    });
    assert_eq!(
        (together_material.score, together_material.nodes),
        (material.score, material.nodes)
    );
    assert_eq!((together_psq.score, together_psq.nodes), (psq.score, psq.nodes));
    // Changing one searcher's evaluator leaves the other's alone.
    let mut a = Searcher::with_evaluator(Eval::new(EvalKind::Material), 8).unwrap();
    let mut b = Searcher::with_evaluator(Eval::new(EvalKind::Material), 8).unwrap();
    b.set_evaluator(Eval::new(EvalKind::Psq));
    assert_eq!(a.evaluator().kind(), EvalKind::Material);
    assert_eq!(
        a.search(&pos, &depth(4), &Signals::default(), &mut ()).score,
        material.score
    );
    assert_eq!(b.search(&pos, &depth(4), &Signals::default(), &mut ()).score, psq.score);
}

/// A tournament game at ply 41, Red to move: Blue's wazir is chased by
/// checks it can only step away from, to a forced loss.
const CHASE: &str = "AWNDADAADFFAAADA aaddaadnaffaadwa b5d3 g8e7 d3f1 e7d5 a3b5 d5b4 a2a3 ac1 b2c1 h8f6 \
     f1h3 h7h8 a6c6 g1e3 c1d2 e3c1 d2c1 g4e4 Ae5 g3e3 e5g7 e3c3 a5c3 g5e3 c1d2 b4d5 Dd6 \
     h2g3 b7d7 e3c1 a3a2 d5b4 a2b2 f6d4 d6d4 b4d3 b2a2 c1e3";

/// With `SingleReplyExtension`, a wazir that can only step away from each
/// check is followed to the end of the chase: in [`CHASE`] the depth-6
/// search then sees Red's forced win, which the same depth without it
/// reads as a large advantage only.
#[test]
fn the_single_reply_extension_sees_a_chased_wazir_fall() {
    let pos = play(CHASE);
    let off = leaper::search::Params::default();
    assert!(!off.single_reply_extension);
    let on = leaper::search::Params {
        single_reply_extension: true,
        ..off
    };
    let plain = searcher().search_with(&pos, &depth(6), &off, &Signals::default(), &mut ());
    let extended = searcher().search_with(&pos, &depth(6), &on, &Signals::default(), &mut ());
    let is_win = |score: i32| matches!(ScoreReport::from_score(score), ScoreReport::Mate(n) if n > 0);
    assert!(is_win(extended.score), "with the extension: {}", extended.score);
    assert!(!is_win(plain.score), "without it: {}", plain.score);
    let best = extended.best.expect("a move");
    assert!(pos.check(&best).is_ok(), "{best:?}");
}
