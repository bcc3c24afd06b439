//! Text summaries in the style of fastchess, which people who test chess
//! engines read at a glance: Elo and nElo with intervals, LOS, draw ratio,
//! the pentanomial, the LLR with its bounds, and for more than two engines
//! a rating table. One renderer, [`results_text`], draws both of the
//! arena's blocks: a run's (points, pairs ratio, forfeits) and `arena
//! stats`' (score, pair count, the SPRT's verdict). Returned as strings;
//! the binary prints them.

use std::collections::BTreeMap;
use std::fmt::Write;

use results::{Decision, Estimates, Pentanomial, SprtConfig, SprtStatus, Tally, Trinomial};

use crate::score::{Standings, Summary, ViolationCount};

const RULE: &str = "--------------------------------------------------";

/// Which of the two blocks [`results_text`] draws.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    /// A run's summary: points, the pairs ratio, forfeits.
    Run,
    /// `arena stats`: the score, the number of pairs, the SPRT's verdict.
    Stats,
}

/// What a fastchess-style block shows.
#[derive(Clone, Copy, Debug)]
pub struct ResultsBlock<'a> {
    /// Who played, e.g. `new vs old (tc=10+0.1, concurrency 2)`.
    pub title: &'a str,
    /// The estimates.
    pub estimates: &'a Estimates,
    /// The games, when known (counts of pairs alone have none).
    pub trinomial: Option<Trinomial>,
    /// The pairs, when known.
    pub pentanomial: Option<Pentanomial>,
    /// The SPRT's design and state.
    pub sprt: Option<(SprtConfig, SprtStatus)>,
    /// Forfeits per engine and termination.
    pub failures: Option<&'a BTreeMap<String, BTreeMap<String, u64>>>,
    /// Protocol violations and dropped output lines per engine.
    pub violations: Option<&'a BTreeMap<String, ViolationCount>>,
    /// Which block.
    pub layout: Layout,
}

/// The fastchess-style block, between two rules, without a final line end.
#[must_use]
pub fn results_text(block: &ResultsBlock<'_>) -> String {
    let run = block.layout == Layout::Run;
    let e = block.estimates;
    let mut out = String::new();
    // Writing to a String cannot fail.
    let _ = writeln!(out, "{RULE}");
    let _ = writeln!(out, "Results of {}:", block.title);
    let _ = writeln!(
        out,
        "Elo: {:.2} +/- {:.2}, nElo: {:.2} +/- {:.2}",
        e.elo, e.elo_ci95, e.nelo, e.nelo_ci95
    );
    let _ = write!(
        out,
        "LOS: {:.2} %, DrawRatio: {:.2} %, ",
        100.0 * e.los,
        100.0 * e.draw_ratio
    );
    let _ = if run {
        writeln!(
            out,
            "PairsRatio: {:.2}",
            pairs_ratio(block.pentanomial.unwrap_or_default())
        )
    } else {
        writeln!(out, "Score: {:.2} %", 100.0 * e.score)
    };
    match block.trinomial {
        Some(t) => {
            let games = t.games();
            let _ = write!(
                out,
                "Games: {games}, Wins: {}, Losses: {}, Draws: {}",
                t.wins, t.losses, t.draws
            );
            if run {
                #[allow(clippy::cast_precision_loss)]
                let points = t.wins as f64 + t.draws as f64 / 2.0;
                #[allow(clippy::cast_precision_loss)]
                let percent = if games == 0 { 0.0 } else { 100.0 * points / games as f64 };
                let _ = write!(out, ", Points: {points:.1} ({percent:.2} %)");
            }
            out.push('\n');
        }
        None => {
            let _ = writeln!(out, "Games: {}", e.games);
        }
    }
    if let Some(p) = block.pentanomial {
        let _ = write!(out, "Ptnml(0-2): [{}, {}, {}, {}, {}]", p.ll, p.ld, p.dd, p.wd, p.ww);
        if !run {
            let _ = write!(out, ", Pairs: {}", p.pairs());
        }
        out.push('\n');
    }
    if let Some((config, status)) = &block.sprt {
        let _ = write!(
            out,
            "LLR: {:.2} ({:.2}, {:.2}) [{:.2}, {:.2}] {}",
            status.llr,
            status.lower_bound,
            status.upper_bound,
            config.elo0,
            config.elo1,
            config.model.name()
        );
        if !run {
            let verdict = match status.decision {
                Decision::Continue => "continue",
                Decision::AcceptH0 => "H0 accepted",
                Decision::AcceptH1 => "H1 accepted",
            };
            let _ = write!(out, ": {verdict}");
        }
        out.push('\n');
    }
    let forfeits: Vec<String> = block
        .failures
        .into_iter()
        .flatten()
        .filter(|(_, kinds)| !kinds.is_empty())
        .map(|(engine, kinds)| {
            let list: Vec<String> = kinds.iter().map(|(k, n)| format!("{k} {n}")).collect();
            format!("{engine}: {}", list.join(", "))
        })
        .collect();
    if !forfeits.is_empty() {
        let _ = writeln!(out, "Forfeits: {}", forfeits.join("; "));
    }
    let violations: Vec<String> = block
        .violations
        .into_iter()
        .flatten()
        .filter(|(_, v)| v.violations > 0 || v.dropped_lines > 0)
        .map(|(engine, v)| {
            format!(
                "{engine}: {} violations, {} dropped lines",
                v.violations, v.dropped_lines
            )
        })
        .collect();
    if !violations.is_empty() {
        let _ = writeln!(out, "Protocol: {}", violations.join("; "));
    }
    let _ = write!(out, "{RULE}");
    out
}

/// Pairs won over pairs lost (pairs with a win and a draw count as won).
fn pairs_ratio(p: Pentanomial) -> f64 {
    let good = p.ww + p.wd;
    let bad = p.ll + p.ld;
    #[allow(clippy::cast_precision_loss)]
    if bad == 0 {
        if good == 0 { 0.0 } else { f64::INFINITY }
    } else {
        good as f64 / bad as f64
    }
}

/// The run's block for the first engine's results.
#[must_use]
pub fn standings_text(standings: &Standings, title: &str) -> String {
    results_text(&ResultsBlock {
        title,
        estimates: &standings.estimates,
        trinomial: Some(standings.main.trinomial),
        pentanomial: Some(standings.main.pentanomial),
        sprt: standings.sprt,
        failures: Some(&standings.failures),
        violations: Some(&standings.violations),
        layout: Layout::Run,
    })
}

/// The one-line result of the first pairing:
/// `A vs B: Elo +x ± y  nElo +x ± y  W D L`.
#[must_use]
pub fn score_line(standings: &Standings) -> String {
    let e = &standings.estimates;
    let t = &standings.main.trinomial;
    format!(
        "{} vs {}: Elo {:+.1} ± {:.1}  nElo {:+.1} ± {:.1}  W{} D{} L{}",
        standings.main.first, standings.main.second, e.elo, e.elo_ci95, e.nelo, e.nelo_ci95, t.wins, t.draws, t.losses
    )
}

/// The rating table of every engine, strongest first.
#[must_use]
pub fn players_text(summary: &Summary) -> String {
    let mut rows = summary.players.clone();
    rows.sort_by(|a, b| b.elo.total_cmp(&a.elo));
    let width = rows.iter().map(|r| r.name.len()).max().unwrap_or(4).max(4);
    let mut out = String::new();
    let _ = writeln!(
        out,
        "Rank {:<width$} {:>8} {:>7} {:>6} {:>6} {:>6} {:>6} {:>7}",
        "Name", "Elo", "+/-", "Games", "Wins", "Draws", "Losses", "Score"
    );
    for (i, r) in rows.iter().enumerate() {
        let _ = writeln!(
            out,
            "{:>4} {:<width$} {:>8.1} {:>7.1} {:>6} {:>6} {:>6} {:>6} {:>6.1}%",
            i + 1,
            r.name,
            r.elo,
            r.elo_ci95,
            r.games,
            r.wins,
            r.draws,
            r.losses,
            100.0 * r.score
        );
    }
    out.truncate(out.trim_end().len());
    out
}
