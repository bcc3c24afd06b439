//! The built-in setup book through the real engine: as Red it plays the
//! book's best setup (or one of the `BookVariety` best), as Blue it answers
//! a known Red setup, or its mirror, from the book at once, and a Red setup
//! the book does not know within its time budget; `OwnBook false` leaves
//! the choice to the sampled search.

mod process;

use leaper::book::builtin;
use leaper::{Color, Setup};
use process::Engine;
use std::time::{Duration, Instant};

fn engine() -> Engine {
    let mut engine = Engine::start(&["uci"]);
    engine.send("uci");
    engine.until(|l| l == "uciok");
    engine
}

/// Sends `go` and returns the best move's text and how long it took.
fn best(engine: &mut Engine, go: &str) -> (String, Duration) {
    let start = Instant::now();
    engine.send(go);
    let lines = engine.bestmove();
    let last = lines.last().expect("a bestmove line");
    let mv = last.split_whitespace().nth(1).expect("bestmove <move>").to_string();
    (mv, start.elapsed())
}

#[test]
fn red_plays_the_books_best_setup_and_blue_answers_from_the_book() {
    let book = builtin();
    let (top, _) = book.red_choices()[0];
    let mut e = engine();
    e.send("position startpos");
    let (red, _) = best(&mut e, "go wtime 30000 btime 30000");
    assert_eq!(red, top.to_text(Color::Red));

    let entry = book.entries()[3];
    e.send(&format!("position startpos moves {}", entry.red.to_text(Color::Red)));
    let (blue, took) = best(&mut e, "go wtime 30000 btime 30000");
    let expected = book.best_reply(&entry.red).expect("known setup");
    assert_eq!(blue, expected.blue.to_text(Color::Blue));
    assert!(
        took < Duration::from_secs(2),
        "a book answer is immediate, took {took:?}"
    );

    // The mirrored Red setup gets the mirrored reply.
    e.send(&format!(
        "position startpos moves {}",
        entry.red.mirror().to_text(Color::Red)
    ));
    let (blue, _) = best(&mut e, "go wtime 30000 btime 30000");
    assert_eq!(blue, expected.blue.mirror().to_text(Color::Blue));
}

#[test]
fn a_novel_red_setup_is_answered_legally_within_the_budget() {
    let book = builtin();
    // A Red setup that is in neither the book nor its mirror.
    let novel = Setup::all()
        .find(|s| book.replies(s).is_empty())
        .expect("a setup outside the book");
    let mut e = engine();
    e.send(&format!("position startpos moves {}", novel.to_text(Color::Red)));
    let (blue, took) = best(&mut e, "go wtime 1000 btime 1000");
    let (setup, color) = Setup::parse(&blue).expect("a setup");
    assert_eq!(color, Color::Blue);
    assert!(
        book.blue_candidates().contains(&setup),
        "searched among the book's replies"
    );
    assert!(took < Duration::from_millis(1000), "took {took:?} of a 1000 ms clock");
}

#[test]
fn book_variety_and_own_book_change_the_choice() {
    let book = builtin();
    let top: Vec<Setup> = book.red_choices().iter().take(5).map(|c| c.0).collect();
    let mut seen = std::collections::HashSet::new();
    for seed in 1..=12 {
        let mut e = engine();
        e.send("setoption name BookVariety value 5");
        e.send(&format!("setoption name Seed value {seed}"));
        e.send("position startpos");
        let (red, _) = best(&mut e, "go wtime 30000 btime 30000");
        let (setup, _) = Setup::parse(&red).unwrap();
        assert!(top.contains(&setup), "{red} is not among the 5 best");
        seen.insert(setup);
    }
    assert!(seen.len() > 1, "variety 5 over 12 seeds chose only {seen:?}");

    let mut e = engine();
    e.send("setoption name OwnBook value false");
    e.send("position startpos");
    let (red, _) = best(&mut e, "go wtime 30000 btime 30000");
    let (setup, _) = Setup::parse(&red).unwrap();
    assert!(
        book.replies(&setup).is_empty(),
        "without the book the sampled search chose {red}"
    );
}
