//! Text summaries in the style of fastchess, which people who test chess
//! engines read at a glance: Elo and nElo with intervals, LOS, draw ratio,
//! the pentanomial, the LLR with its bounds, and for more than two engines
//! a rating table. Returned as strings; the binary prints them.

use std::fmt::Write;

use results::Tally;

use crate::score::{Standings, Summary};

const RULE: &str = "--------------------------------------------------";

/// The fastchess-style block for the first engine's results.
#[must_use]
pub fn standings_text(standings: &Standings, title: &str) -> String {
    let mut out = String::new();
    let e = &standings.estimates;
    let t = standings.main.trinomial;
    let p = standings.main.pentanomial;
    let games = t.games();
    #[allow(clippy::cast_precision_loss)]
    let points = t.wins as f64 + t.draws as f64 / 2.0;
    #[allow(clippy::cast_precision_loss)]
    let percent = if games == 0 { 0.0 } else { 100.0 * points / games as f64 };
    let pairs_ratio = {
        let good = p.ww + p.wd;
        let bad = p.ll + p.ld;
        #[allow(clippy::cast_precision_loss)]
        if bad == 0 {
            if good == 0 { 0.0 } else { f64::INFINITY }
        } else {
            good as f64 / bad as f64
        }
    };
    let _ = writeln!(out, "{RULE}");
    let _ = writeln!(out, "Results of {title}:");
    let _ = writeln!(
        out,
        "Elo: {:.2} +/- {:.2}, nElo: {:.2} +/- {:.2}",
        e.elo, e.elo_ci95, e.nelo, e.nelo_ci95
    );
    let _ = writeln!(
        out,
        "LOS: {:.2} %, DrawRatio: {:.2} %, PairsRatio: {:.2}",
        100.0 * e.los,
        100.0 * e.draw_ratio,
        pairs_ratio
    );
    let _ = writeln!(
        out,
        "Games: {games}, Wins: {}, Losses: {}, Draws: {}, Points: {points:.1} ({percent:.2} %)",
        t.wins, t.losses, t.draws
    );
    let _ = writeln!(out, "Ptnml(0-2): [{}, {}, {}, {}, {}]", p.ll, p.ld, p.dd, p.wd, p.ww);
    if let Some((config, status)) = &standings.sprt {
        let _ = writeln!(
            out,
            "LLR: {:.2} ({:.2}, {:.2}) [{:.2}, {:.2}] {}",
            status.llr,
            status.lower_bound,
            status.upper_bound,
            config.elo0,
            config.elo1,
            config.model.name()
        );
    }
    let forfeits: Vec<String> = standings
        .failures
        .iter()
        .filter(|(_, kinds)| !kinds.is_empty())
        .map(|(engine, kinds)| {
            let list: Vec<String> = kinds.iter().map(|(k, n)| format!("{k} {n}")).collect();
            format!("{engine}: {}", list.join(", "))
        })
        .collect();
    if !forfeits.is_empty() {
        let _ = writeln!(out, "Forfeits: {}", forfeits.join("; "));
    }
    let _ = write!(out, "{RULE}");
    out
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
