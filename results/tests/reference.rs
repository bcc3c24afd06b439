//! Published values from fishtest and fastchess, pinned with explicit
//! tolerances, so the numbers this crate prints are the ones the chess
//! testing world computes for the same counts.
//!
//! Sources:
//! - the issue's values, which are fishtest's (`server/fishtest/stats/
//!   LLRcalc.py` and `stat_util.py`) for fishtest's own example counts;
//! - fastchess `app/tests/sprt_test.cpp` and `app/tests/elo_test.cpp`, given
//!   there to two decimals;
//! - further cases recomputed independently with fishtest's formulas
//!   (SciPy `brentq`, `norm`) for the counts in fishtest's `stat_util.py`
//!   self-test, to six decimals.

use results::{EloModel, Estimates, Pentanomial, Sprt, SprtConfig, Tally, Trinomial};

fn sprt(elo0: f64, elo1: f64, model: EloModel) -> Sprt {
    Sprt::new(SprtConfig {
        elo0,
        elo1,
        alpha: 0.05,
        beta: 0.05,
        model,
    })
    .expect("valid design")
}

#[track_caller]
fn close(what: &str, got: f64, expected: f64, tolerance: f64) {
    assert!(
        (got - expected).abs() <= tolerance,
        "{what}: got {got}, expected {expected} (tolerance {tolerance})"
    );
}

/// fastchess's 6-count constructor order is (LL, LD, WL, DD, WD, WW); a
/// win-loss pair and a draw-draw pair score the same, so they merge.
fn fastchess_penta(ll: u64, ld: u64, wl: u64, dd: u64, wd: u64, ww: u64) -> Pentanomial {
    Pentanomial::new(ll, ld, wl + dd, wd, ww)
}

const FISHTEST_PENTA: Pentanomial = Pentanomial {
    ll: 10789,
    ld: 19328,
    dd: 33806,
    wd: 19402,
    ww: 10543,
};

const FISHTEST_TRI: Trinomial = Trinomial {
    wins: 65388,
    draws: 56553,
    losses: 65804,
};

#[test]
fn issue_pentanomial_values() {
    let normalized = sprt(0.0, 5.0, EloModel::Normalized);
    let logistic = sprt(0.0, 5.0, EloModel::Logistic);
    close("normalized LLR", normalized.llr(&FISHTEST_PENTA), -26.838449, 1e-6);
    close("logistic LLR", logistic.llr(&FISHTEST_PENTA), -38.514408, 1e-6);
    let e = FISHTEST_PENTA.estimates();
    close("Elo", e.elo, -0.773577, 1e-6);
    close("Elo CI", e.elo_ci95, 1.277580, 1e-6);
    close("nElo", e.nelo, -0.951629, 1e-6);
    close("LOS", e.los, 0.117659, 1e-6);
    assert_eq!(e.games, 2 * 93868);
    assert_eq!(e.pairs, Some(93868));
}

#[test]
fn issue_trinomial_values() {
    let normalized = sprt(0.0, 5.0, EloModel::Normalized);
    let logistic = sprt(0.0, 5.0, EloModel::Logistic);
    close("normalized LLR", normalized.llr(&FISHTEST_TRI), -26.601470, 1e-6);
    close("logistic LLR", logistic.llr(&FISHTEST_TRI), -36.387524, 1e-6);
    let e = FISHTEST_TRI.estimates();
    close("Elo", e.elo, -0.769839, 1e-6);
    close("Elo CI", e.elo_ci95, 1.313743, 1e-6);
    close("LOS", e.los, 0.125376, 1e-6);
    assert_eq!(e.games, 187_745);
    assert_eq!(e.pairs, None);
}

#[test]
fn bounds_and_decisions_follow_wald() {
    let s = sprt(0.0, 5.0, EloModel::Normalized);
    close("lower", s.lower_bound(), (0.05f64 / 0.95).ln(), 1e-15);
    close("upper", s.upper_bound(), (0.95f64 / 0.05).ln(), 1e-15);
    close("lower", s.lower_bound(), -2.944439, 1e-6);
    let status = s.status(&FISHTEST_PENTA);
    assert_eq!(status.decision, results::Decision::AcceptH0);
    let asymmetric = Sprt::new(SprtConfig {
        alpha: 0.01,
        beta: 0.1,
        ..SprtConfig::default()
    })
    .unwrap();
    close("lower", asymmetric.lower_bound(), (0.1f64 / 0.99).ln(), 1e-15);
    close("upper", asymmetric.upper_bound(), (0.9f64 / 0.01).ln(), 1e-15);
}

/// fishtest's `stat_util.py` self-test runs these counts with elo0 = -3,
/// elo1 = 1; the values were recomputed with fishtest's formulas.
#[test]
fn fishtest_self_test_counts() {
    let normalized = sprt(-3.0, 1.0, EloModel::Normalized);
    let logistic = sprt(-3.0, 1.0, EloModel::Logistic);
    close("penta norm", normalized.llr(&FISHTEST_PENTA), 0.300870, 1e-6);
    close("penta logi", logistic.llr(&FISHTEST_PENTA), 2.131068, 1e-6);
    close("tri norm", normalized.llr(&FISHTEST_TRI), 0.491712, 1e-6);
    close("tri logi", logistic.llr(&FISHTEST_TRI), 2.049043, 1e-6);

    let penta = Pentanomial::new(1187, 7410, 13475, 7378, 1164);
    close("penta norm", normalized.llr(&penta), 0.600266, 1e-6);
    close("penta logi", logistic.llr(&penta), 2.861527, 1e-6);
    let e = penta.estimates();
    close("Elo", e.elo, -0.442608, 1e-6);
    close("Elo CI", e.elo_ci95, 1.729859, 1e-6);
    close("LOS", e.los, 0.308014, 1e-6);
    close("nElo", e.nelo, -0.704141, 1e-6);
    close("nElo CI", e.nelo_ci95, 2.751993, 1e-6);

    let tri = Trinomial::new(13543, 34333, 13624);
    close("tri norm", normalized.llr(&tri), 0.634792, 1e-6);
    close("tri logi", logistic.llr(&tri), 2.502100, 1e-6);
    let e = tri.estimates();
    close("Elo", e.elo, -0.457598, 1e-6);
    close("Elo CI", e.elo_ci95, 1.825038, 1e-6);
    close("LOS", e.los, 0.311560, 1e-6);
    close("nElo", e.nelo, -0.688497, 1e-6);
    close("nElo CI", e.nelo_ci95, 2.745901, 1e-6);

    // The low-draw-rate pentanomial of the same self-test, with its
    // logistic bounds and their normalized equivalents.
    let penta = Pentanomial::new(39, 2226, 31451, 2412, 40);
    close(
        "logistic [0.2, 0.9]",
        sprt(0.2, 0.9, EloModel::Logistic).llr(&penta),
        2.162543,
        1e-6,
    );
    close(
        "normalized [0.764, 3.439]",
        sprt(0.764, 3.439, EloModel::Normalized).llr(&penta),
        2.162941,
        1e-6,
    );
    let e = penta.estimates();
    close("Elo", e.elo, 0.902981, 1e-6);
    close("Elo CI", e.elo_ci95, 0.662531, 1e-6);
    close("LOS", e.los, 0.996222, 1e-6);
    close("nElo", e.nelo, 3.450800, 1e-6);
    close("nElo CI", e.nelo_ci95, 2.531892, 1e-6);
}

/// The pentanomial of fishtest's `tests/test_stats_sprt.py` (a strongly
/// passing test), LLR for normalized [0, 2] recomputed with fishtest's
/// formulas.
#[test]
fn fishtest_strong_pass() {
    let penta = Pentanomial::new(1, 60, 500, 1200, 600);
    close(
        "normalized",
        sprt(0.0, 2.0, EloModel::Normalized).llr(&penta),
        13.441405,
        1e-6,
    );
    close(
        "logistic",
        sprt(0.0, 2.0, EloModel::Logistic).llr(&penta),
        13.530569,
        1e-6,
    );
    let e = penta.estimates();
    close("Elo", e.elo, 188.599380, 1e-6);
    close("Elo CI", e.elo_ci95, 7.017943, 1e-6);
    close("nElo", e.nelo, 321.874008, 1e-6);
}

/// fastchess `sprt_test.cpp`: values to two decimals, so a tolerance of half
/// a unit in the last place. Trinomials there are (wins, losses, draws).
#[test]
fn fastchess_sprt_values() {
    let tol = 0.005;
    let cases_tri = [
        ((36433, 36027, 68692), 0.0, 2.0, EloModel::Normalized, 0.92),
        ((10871, 10650, 20431), -1.75, 0.25, EloModel::Normalized, 2.30),
        ((21404, 21184, 40708), 0.5, 2.5, EloModel::Logistic, -1.57),
        ((57433, 57030, 106593), 0.0, 2.0, EloModel::Logistic, -2.59),
    ];
    for ((wins, losses, draws), elo0, elo1, model, expected) in cases_tri {
        let tally = Trinomial::new(wins, draws, losses);
        close(
            &format!("{tally:?} {model:?}"),
            sprt(elo0, elo1, model).llr(&tally),
            expected,
            tol,
        );
    }
    let cases_penta = [
        (
            fastchess_penta(365, 16618, 36029, 200, 16974, 390),
            0.0,
            2.0,
            EloModel::Normalized,
            2.25,
        ),
        (
            fastchess_penta(127, 4883, 10311, 401, 5150, 104),
            -1.75,
            0.25,
            EloModel::Normalized,
            3.01,
        ),
        (
            fastchess_penta(223, 9863, 20279, 1000, 10037, 246),
            0.5,
            2.5,
            EloModel::Logistic,
            -3.07,
        ),
        (
            fastchess_penta(871, 26175, 55003, 980, 26678, 821),
            0.0,
            2.0,
            EloModel::Logistic,
            -4.98,
        ),
    ];
    for (tally, elo0, elo1, model, expected) in cases_penta {
        close(
            &format!("{tally:?} {model:?}"),
            sprt(elo0, elo1, model).llr(&tally),
            expected,
            tol,
        );
    }
}

/// fastchess also tests two degenerate inputs (all draws; all pairs won)
/// and expects +2.97 and +2.94. Those are not maximum-likelihood ratios:
/// with every game drawn the data satisfy H0 (score exactly 1/2) exactly,
/// so the MLE under H0 is the data itself and the ratio cannot be positive.
/// fishtest's converged values are pinned instead.
#[test]
fn degenerate_inputs_follow_fishtest_not_fastchess() {
    let all_draws = Trinomial::new(0, 16700, 0);
    let llr = sprt(0.0, 5.0, EloModel::Normalized).llr(&all_draws);
    close("all draws", llr, -3.450540, 1e-6);
    assert!(llr <= 0.0);
    close(
        "all draws logistic",
        sprt(0.0, 5.0, EloModel::Logistic).llr(&all_draws),
        -242.048907,
        1e-5,
    );
    let all_won = Pentanomial::new(0, 0, 0, 0, 104);
    close(
        "all pairs won",
        sprt(0.0, 5.0, EloModel::Normalized).llr(&all_won),
        2.094955,
        1e-6,
    );
    let all_wins = Trinomial::new(100, 0, 0);
    close(
        "all wins",
        sprt(0.0, 5.0, EloModel::Normalized).llr(&all_wins),
        1.428704,
        1e-6,
    );
}

/// fastchess `elo_test.cpp`: Elo, its error, nElo, its error and LOS, to two
/// decimals (LOS in percent). Trinomials there are (wins, losses, draws).
#[test]
fn fastchess_elo_values() {
    struct Case {
        tally: Estimates,
        elo: Option<(f64, f64)>,
        nelo: (f64, f64),
        los_percent: Option<f64>,
    }
    let cases = [
        Case {
            tally: Trinomial::new(76, 123, 89).estimates(),
            elo: None,
            nelo: (-20.76, 40.13),
            los_percent: Some(15.53),
        },
        Case {
            tally: Trinomial::new(136, 111, 96).estimates(),
            elo: Some((40.70, 30.43)),
            nelo: (49.77, 36.77),
            los_percent: Some(99.60),
        },
        Case {
            tally: Trinomial::new(34, 0, 356).estimates(),
            elo: None,
            nelo: (-508.44, 34.48),
            los_percent: None,
        },
        Case {
            tally: fastchess_penta(34, 54, 31, 32, 64, 75).estimates(),
            elo: Some((55.58, 27.65)),
            nelo: (57.94, 28.28),
            los_percent: Some(100.00),
        },
        Case {
            tally: fastchess_penta(332, 433, 457, 41, 333, 334).estimates(),
            elo: Some((-8.64, 10.33)),
            nelo: (-9.17, 10.96),
            los_percent: Some(5.05),
        },
        Case {
            tally: fastchess_penta(7895, 8757, 5485, 200, 568, 9999).estimates(),
            elo: Some((-21.04, 2.95)),
            nelo: (-19.01, 2.65),
            los_percent: None,
        },
    ];
    for case in cases {
        let e = case.tally;
        // Half a unit in the second decimal; fastchess itself checks to 1%
        // relative, and writes -508.44 for a value of -508.4333.
        let tol = |expected: f64| 0.005 + 2e-5 * expected.abs();
        if let Some((elo, error)) = case.elo {
            close("Elo", e.elo, elo, tol(elo));
            close("Elo error", e.elo_ci95, error, tol(error));
        }
        close("nElo", e.nelo, case.nelo.0, tol(case.nelo.0));
        close("nElo error", e.nelo_ci95, case.nelo.1, tol(case.nelo.1));
        if let Some(los) = case.los_percent {
            close("LOS %", e.los * 100.0, los, tol(los));
        }
    }
}

#[test]
fn empty_tallies_give_neutral_finite_estimates() {
    for e in [Trinomial::default().estimates(), Pentanomial::default().estimates()] {
        assert_eq!(e.games, 0);
        close("score", e.score, 0.5, 1e-12);
        close("Elo", e.elo, 0.0, 1e-9);
        close("nElo", e.nelo, 0.0, 1e-9);
        close("LOS", e.los, 0.5, 1e-12);
        assert_eq!(e.draw_ratio, 0.0);
        // fishtest: the interval is the whole clamped scale.
        close("Elo CI", e.elo_ci95, 1199.826195, 1e-6);
    }
    let s = sprt(0.0, 5.0, EloModel::Normalized);
    assert!(s.llr(&Trinomial::default()).abs() < 1e-5);
    assert!(s.llr(&Pentanomial::default()).abs() < 1e-5);
}

#[test]
fn draw_ratio_and_score() {
    let e = Trinomial::new(30, 50, 20).estimates();
    close("draw ratio", e.draw_ratio, 0.5, 1e-15);
    close("score", e.score, 0.55, 1e-15);
    let e = Pentanomial::new(1, 2, 4, 2, 1).estimates();
    close("draw ratio", e.draw_ratio, 0.4, 1e-15);
    close("score", e.score, 0.5, 1e-15);
}

#[test]
fn designs_are_validated() {
    use results::SprtError;
    let base = SprtConfig::default();
    let bad = |c: SprtConfig| Sprt::new(c).unwrap_err();
    assert!(matches!(
        bad(SprtConfig {
            elo0: 5.0,
            elo1: 5.0,
            ..base
        }),
        SprtError::EloOrder { .. }
    ));
    assert_eq!(bad(SprtConfig { elo1: f64::NAN, ..base }), SprtError::NonFiniteElo);
    assert!(matches!(
        bad(SprtConfig { alpha: 0.0, ..base }),
        SprtError::ErrorRate { .. }
    ));
    assert!(matches!(
        bad(SprtConfig { beta: 1.0, ..base }),
        SprtError::ErrorRate { .. }
    ));
    assert_eq!(
        bad(SprtConfig {
            alpha: 0.5,
            beta: 0.5,
            ..base
        }),
        SprtError::ErrorRateSum
    );
}
