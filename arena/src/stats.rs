//! The `arena stats` subcommand: Elo, nElo, LOS and the SPRT state for a
//! tally given on the command line (`--penta`, `--wdl`) or read from game
//! record files (`--from`), printed in fastchess's layout or as one JSON
//! object. All the statistics come from the `results` crate; this module
//! only gathers the input and prints.

use std::path::PathBuf;
use std::str::FromStr;

use anyhow::{Context, bail};
use arena::{Layout, ResultsBlock, results_text};
use clap::{ArgGroup, Args};
use results::{EloModel, MatchTally, Pentanomial, RecordSet, Sprt, SprtConfig, Tally, Trinomial, read_record_files};
use serde::Serialize;

/// Arguments of `arena stats`.
#[derive(Debug, Args)]
#[command(group(ArgGroup::new("input").required(true).args(["penta", "wdl", "from"])))]
pub struct StatsArgs {
    /// Pentanomial counts of game pairs, from two losses to two wins (a pair
    /// with a win and a loss counts as DD).
    #[arg(long, value_name = "LL,LD,DD,WD,WW")]
    pub penta: Option<PentaCounts>,

    /// Wins, draws and losses of single games.
    #[arg(long, value_name = "W,D,L")]
    pub wdl: Option<WdlCounts>,

    /// Game record files to read; their games are merged. Damaged rows are
    /// skipped and reported on stderr. Pairs are formed by the `pair` column
    /// and count only when both games are present.
    #[arg(long, value_name = "GAMES.CSV", num_args = 1..)]
    pub from: Vec<PathBuf>,

    /// With --from: the player whose results are counted [default: Red in
    /// the game with the lowest id, i.e. the run's first engine].
    #[arg(long, value_name = "NAME", conflicts_with_all = ["penta", "wdl"])]
    pub player: Option<String>,

    /// H0 of the SPRT: the Elo difference is ELO0.
    #[arg(long, value_name = "ELO0", default_value_t = 0.0, allow_negative_numbers = true)]
    pub elo0: f64,

    /// H1 of the SPRT: the Elo difference is ELO1 (above ELO0).
    #[arg(long, value_name = "ELO1", default_value_t = 5.0, allow_negative_numbers = true)]
    pub elo1: f64,

    /// The SPRT's false-positive rate.
    #[arg(long, value_name = "A", default_value_t = 0.05)]
    pub alpha: f64,

    /// The SPRT's false-negative rate.
    #[arg(long, value_name = "B", default_value_t = 0.05)]
    pub beta: f64,

    /// The Elo scale of ELO0 and ELO1.
    #[arg(long, default_value = "normalized", value_parser = model_parser())]
    pub model: EloModel,

    /// Print one JSON object instead of the text report.
    #[arg(long)]
    pub json: bool,
}

/// `--model`: the names of [`arena::ELO_MODELS`], listed in the help.
fn model_parser() -> impl clap::builder::TypedValueParser<Value = EloModel> {
    use clap::builder::TypedValueParser as _;
    clap::builder::PossibleValuesParser::new(arena::ELO_MODELS.map(EloModel::name))
        .try_map(|name: String| arena::parse_elo_model(&name))
}

/// Parses exactly `N` comma-separated counts.
fn parse_counts<const N: usize>(text: &str, shape: &str) -> Result<[u64; N], String> {
    let parts: Vec<&str> = text.split(',').map(str::trim).collect();
    if parts.len() != N {
        return Err(format!(
            "expected {N} comma-separated counts ({shape}), got {}",
            parts.len()
        ));
    }
    let mut counts = [0; N];
    for (slot, part) in counts.iter_mut().zip(&parts) {
        *slot = part.parse().map_err(|_| format!("{part:?} is not a count ({shape})"))?;
    }
    Ok(counts)
}

/// `--penta LL,LD,DD,WD,WW`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PentaCounts(pub Pentanomial);

impl FromStr for PentaCounts {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let [ll, ld, dd, wd, ww] = parse_counts(s, "LL,LD,DD,WD,WW")?;
        Ok(Self(Pentanomial::new(ll, ld, dd, wd, ww)))
    }
}

/// `--wdl W,D,L`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WdlCounts(pub Trinomial);

impl FromStr for WdlCounts {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let [w, d, l] = parse_counts(s, "W,D,L")?;
        Ok(Self(Trinomial::new(w, d, l)))
    }
}

/// The keys `arena stats --json` prints, and nothing else.
#[derive(Debug, Serialize)]
struct JsonReport {
    games: u64,
    pairs: Option<u64>,
    elo: f64,
    elo_ci95: f64,
    nelo: f64,
    nelo_ci95: f64,
    los: f64,
    llr: f64,
    lower_bound: f64,
    upper_bound: f64,
    decision: &'static str,
}

/// What the report is about, beyond the numbers.
struct Input {
    /// "new vs old", or a description of the counts.
    title: String,
    trinomial: Option<Trinomial>,
    pentanomial: Option<Pentanomial>,
    /// Lines for stderr: damaged rows, left-out games.
    warnings: Vec<String>,
}

/// Runs `arena stats`: prints the report on stdout, warnings on stderr.
///
/// # Errors
/// An invalid SPRT design, an unreadable record file, or files without a
/// game of the chosen player.
pub fn run(args: &StatsArgs) -> anyhow::Result<()> {
    let sprt = Sprt::new(SprtConfig {
        elo0: args.elo0,
        elo1: args.elo1,
        alpha: args.alpha,
        beta: args.beta,
        model: args.model,
    })
    .context("invalid SPRT design")?;
    let input = gather(args)?;
    for warning in &input.warnings {
        eprintln!("warning: {warning}");
    }
    // Paired games are what the statistics should see when there are any.
    let (estimates, status) = match (input.pentanomial, input.trinomial) {
        (Some(p), _) if p.pairs() > 0 => (p.estimates(), sprt.status(&p)),
        (_, Some(t)) => (t.estimates(), sprt.status(&t)),
        (Some(p), None) => (p.estimates(), sprt.status(&p)),
        (None, None) => unreachable!("clap requires one input"),
    };
    if args.json {
        let report = JsonReport {
            games: input.trinomial.map_or(estimates.games, |t| t.games()),
            pairs: input.pentanomial.map(|p| p.pairs()),
            elo: estimates.elo,
            elo_ci95: estimates.elo_ci95,
            nelo: estimates.nelo,
            nelo_ci95: estimates.nelo_ci95,
            los: estimates.los,
            llr: status.llr,
            lower_bound: status.lower_bound,
            upper_bound: status.upper_bound,
            decision: status.decision.name(),
        };
        println!("{}", serde_json::to_string(&report)?);
    } else {
        println!(
            "{}",
            results_text(&ResultsBlock {
                title: &input.title,
                estimates: &estimates,
                trinomial: input.trinomial,
                pentanomial: input.pentanomial,
                sprt: Some((sprt.config(), status)),
                failures: None,
                violations: None,
                layout: Layout::Stats,
            })
        );
    }
    Ok(())
}

fn gather(args: &StatsArgs) -> anyhow::Result<Input> {
    if let Some(PentaCounts(p)) = args.penta {
        return Ok(Input {
            title: "pentanomial counts".to_owned(),
            trinomial: None,
            pentanomial: Some(p),
            warnings: Vec::new(),
        });
    }
    if let Some(WdlCounts(t)) = args.wdl {
        return Ok(Input {
            title: "game counts".to_owned(),
            trinomial: Some(t),
            pentanomial: None,
            warnings: Vec::new(),
        });
    }
    let set = read_record_files(&args.from)?;
    let mut warnings: Vec<String> = set.damaged().map(|d| format!("{d} (row skipped)")).collect();
    let player = match (&args.player, first_engine(&set)) {
        (Some(name), _) => name.clone(),
        (None, Some(first)) => first.to_owned(),
        (None, None) => bail!("no complete game in {}", list_paths(&args.from)),
    };
    let tally: MatchTally = set.match_tally(&player);
    if tally.trinomial.games() == 0 {
        bail!(
            "{player} played no game in {} (players: {})",
            list_paths(&args.from),
            set.players().join(", ")
        );
    }
    if tally.unpaired_games > 0 {
        warnings.push(format!(
            "{} of {player}'s games have no complete pair and are left out of the pentanomial",
            tally.unpaired_games
        ));
    }
    if tally.other_games > 0 {
        warnings.push(format!("{} games without {player} are left out", tally.other_games));
    }
    Ok(Input {
        title: format!("{player} vs {}", tally.opponents.join(", ")),
        trinomial: Some(tally.trinomial),
        pentanomial: Some(tally.pentanomial),
        warnings,
    })
}

/// The run's first engine: Red in the game with the lowest id (game 0 of
/// an arena run gives Red to its first engine). Rows are in the order
/// games finished, which a resumed run shuffles, so the first row will not
/// do.
fn first_engine(set: &RecordSet) -> Option<&str> {
    set.records().min_by_key(|r| r.game).map(|r| r.red.as_str())
}

fn list_paths(paths: &[PathBuf]) -> String {
    paths
        .iter()
        .map(|p| p.display().to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_parse_strictly() {
        assert_eq!(
            "1,2, 3,4,5".parse::<PentaCounts>(),
            Ok(PentaCounts(Pentanomial::new(1, 2, 3, 4, 5)))
        );
        assert!("1,2,3,4".parse::<PentaCounts>().is_err());
        assert!("1,2,x,4,5".parse::<PentaCounts>().is_err());
        assert!("-1,2,3,4,5".parse::<PentaCounts>().is_err());
        assert_eq!("7,8,9".parse::<WdlCounts>(), Ok(WdlCounts(Trinomial::new(7, 8, 9))));
        assert!("7,8".parse::<WdlCounts>().is_err());
    }
}
