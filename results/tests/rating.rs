//! Rating tables: with two players the maximum-likelihood rating is the
//! trinomial's Elo and its interval nearly the trinomial's; with more, the
//! ratings reproduce the Elo differences the games were made from, shift
//! with the anchor, stay finite for perfect scores, and refuse an unknown
//! anchor or a player linked to nobody.

use results::{Crosstable, RatingError, Tally, Trinomial, elo_from_score, rating_table, score_from_elo};

#[track_caller]
fn close(what: &str, got: f64, expected: f64, tolerance: f64) {
    assert!(
        (got - expected).abs() <= tolerance,
        "{what}: got {got}, expected {expected} (tolerance {tolerance})"
    );
}

#[test]
fn two_players_reproduce_the_trinomial_estimate() {
    let tally = Trinomial::new(130, 250, 100);
    let mut table = Crosstable::new();
    table.add("new", "old", tally);
    let ratings = rating_table(&table, "old").unwrap();
    assert_eq!(ratings.anchor, "old");
    let new = &ratings.ratings[0];
    let old = &ratings.ratings[1];
    assert_eq!(new.player, "new");
    assert_eq!(old.elo, 0.0);
    assert_eq!(old.elo_ci95, 0.0);
    let e = tally.estimates();
    close("Elo", new.elo, e.elo, 1e-6);
    // The table's interval is the delta method's, the trinomial's is the
    // transformed score interval: equal to first order.
    close("interval", new.elo_ci95, e.elo_ci95, 0.01 * e.elo_ci95);
    assert_eq!(new.tally, tally);
    assert_eq!(old.tally, tally.reversed());
    close("score", new.score, e.score, 1e-12);
}

/// Games between three players whose true ratings are 200, 100 and 0:
/// each pairing's score is the model's to within rounding.
#[test]
fn three_players_recover_their_elo_differences() {
    let truth = [("a", 200.0), ("b", 100.0), ("c", 0.0)];
    let games = 100_000.0;
    let draws = 0.3;
    let mut table = Crosstable::new();
    for (i, &(p, rp)) in truth.iter().enumerate() {
        for &(q, rq) in &truth[i + 1..] {
            let s = score_from_elo(rp - rq);
            #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
            let count = |x: f64| (x * games).round() as u64;
            table.add(
                p,
                q,
                Trinomial::new(count(s - draws / 2.0), count(draws), count(1.0 - s - draws / 2.0)),
            );
        }
    }
    let anchored_c = rating_table(&table, "c").unwrap();
    let names: Vec<&str> = anchored_c.ratings.iter().map(|r| r.player.as_str()).collect();
    assert_eq!(names, ["a", "b", "c"]);
    close("a", anchored_c.ratings[0].elo, 200.0, 0.01);
    close("b", anchored_c.ratings[1].elo, 100.0, 0.01);
    assert!(anchored_c.ratings[0].elo_ci95 > 0.0);

    // Another anchor shifts every rating by the same amount.
    let anchored_b = rating_table(&table, "b").unwrap();
    for r in &anchored_b.ratings {
        let same = anchored_c.ratings.iter().find(|x| x.player == r.player).unwrap();
        close(&r.player, r.elo, same.elo - anchored_c.ratings[1].elo, 1e-6);
    }
    let a = &anchored_c.ratings[0];
    let b = &anchored_c.ratings[1];
    assert!(b.elo_ci95 > 0.0 && a.elo_ci95 > 0.0);
}

#[test]
fn a_gauntlet_rates_every_opponent_against_the_anchor() {
    // "main" plays everybody; the others never meet.
    let mut table = Crosstable::new();
    table.add("main", "x", Trinomial::new(60, 20, 20));
    table.add("main", "y", Trinomial::new(20, 20, 60));
    table.add("main", "z", Trinomial::new(30, 40, 30));
    let t = rating_table(&table, "main").unwrap();
    let elo = |name: &str| t.ratings.iter().find(|r| r.player == name).unwrap().elo;
    close("x", elo("x"), -elo_from_score(0.7), 1e-6);
    close("y", elo("y"), -elo_from_score(0.3), 1e-6);
    close("z", elo("z"), 0.0, 1e-6);
    assert_eq!(t.ratings.len(), 4);
}

#[test]
fn perfect_scores_give_finite_ratings() {
    let mut table = Crosstable::new();
    table.add("strong", "weak", Trinomial::new(50, 0, 0));
    table.add("weak", "weaker", Trinomial::new(0, 10, 0));
    let t = rating_table(&table, "weak").unwrap();
    for r in &t.ratings {
        assert!(r.elo.is_finite() && r.elo_ci95.is_finite(), "{r:?}");
    }
    assert!(t.ratings[0].elo > 1000.0);
}

#[test]
fn bad_anchors_and_disconnected_players_are_refused() {
    let mut table = Crosstable::new();
    table.add("a", "b", Trinomial::new(1, 1, 1));
    table.add("c", "d", Trinomial::new(1, 1, 1));
    assert_eq!(
        rating_table(&table, "nobody"),
        Err(RatingError::UnknownAnchor("nobody".to_owned()))
    );
    assert_eq!(
        rating_table(&table, "a"),
        Err(RatingError::Disconnected { player: "c".to_owned() })
    );
    // Self-play and empty tallies add nothing.
    table.add("a", "a", Trinomial::new(5, 0, 0));
    table.add("a", "e", Trinomial::default());
    assert_eq!(table.players(), ["a", "b", "c", "d"]);
}

#[test]
fn crosstables_merge_and_read_from_both_sides() {
    let mut one = Crosstable::new();
    one.add("a", "b", Trinomial::new(3, 2, 1));
    let mut two = Crosstable::new();
    two.add("b", "a", Trinomial::new(1, 1, 1));
    two.add("b", "c", Trinomial::new(0, 1, 0));
    one.merge(&two);
    assert_eq!(one.between("a", "b"), Trinomial::new(4, 3, 2));
    assert_eq!(one.between("b", "a"), Trinomial::new(2, 3, 4));
    assert_eq!(one.total("b"), Trinomial::new(2, 4, 4));
    assert_eq!(one.between("a", "c"), Trinomial::default());
}
