//! `leaper-data train`: fits the NNUE (leaper-nnue's trainer core) to
//! self-play data files and exports the integer network the engine loads
//! with `EvalFile` (or embeds); `leaper-data loss` scores model files on
//! the games a training run held out, at any lambda, so that models
//! trained with different targets compare on one. This is the layer that
//! reads the records, prints the per-epoch losses and writes the files;
//! the training itself lives in `leaper_nnue::train`.
//!
//! A run with `--checkpoint DIR` writes `DIR/checkpoint.bin` after every
//! epoch (atomically); `--resume` continues from it with the same data and
//! seed, and ends with the same network as an uninterrupted run.
//!
//! Two defaults answer the small data we have (see engine/train/README.md
//! for the measurements): `--factorise squares` trains factor rows shared
//! by the wazir buckets, and `--export best` writes the epoch with the
//! lowest validation loss, since the network overfits after one or two.
//!
//! `--model nnue --init FILE.linear` starts the network from a linear
//! model: its psq (linear skip) weights are the model's weights, its
//! output bias the model's bias and its output weights zero, so that at
//! epoch 0 it predicts exactly what the linear model does and training
//! learns a correction. `--model nnue --init FILE.nnue` starts from a
//! network (e.g. the embedded one) and trains on: each session's new data
//! adds to what the earlier ones taught. `--psq-lr` steps the linear part more finely than
//! the rest, and `--weight-decay` pulls the dense part toward zero, i.e.
//! the network toward its linear part.

use anyhow::{Context, bail};
use leaper_nnue::train::{
    Factors, LinearModel, Model, Sample, TrainConfig, Trainer, integer_mean_loss, samples_from, split_by_game,
};
use leaper_nnue::{EvalModel, FloatNetwork, L1, LinearNet};
use rand::SeedableRng;
use rand::rngs::StdRng;
use std::path::PathBuf;
use std::time::Instant;

/// Which model `train` fits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ModelKind {
    /// The network (`Eval nnue`), written as a `LEAPNNUE` file.
    Nnue,
    /// The linear model over the same features (`Eval linear`), written
    /// as a `LEAPLINR` file.
    Linear,
}

/// The factor rows trained beside the features' own (folded into them at
/// export; the file does not change).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum FactorChoice {
    /// None.
    Off,
    /// Each feature's kind and square in any wazir bucket.
    Squares,
    /// That, and its kind and place relative to the own wazir.
    All,
}

impl From<FactorChoice> for Factors {
    fn from(choice: FactorChoice) -> Factors {
        match choice {
            FactorChoice::Off => Factors::None,
            FactorChoice::Squares => Factors::Squares,
            FactorChoice::All => Factors::SquaresAndOffsets,
        }
    }
}

/// Which epoch's model `train` writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ExportChoice {
    /// The one with the lowest validation loss of this run (early
    /// stopping: on small data the network overfits after an epoch or
    /// two, while the step size schedule wants more).
    Best,
    /// The last.
    Last,
}

/// Arguments of `train`.
#[derive(Clone, Debug, clap::Args)]
pub struct TrainArgs {
    /// Data files written by `datagen`, comma-separated (a torn tail is
    /// dropped with a message).
    #[arg(long, value_name = "FILE[,FILE]", value_delimiter = ',', required = true)]
    pub data: Vec<PathBuf>,
    /// Where to write the integer network (or linear model).
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,
    /// The model to fit: the network or the linear model over its features.
    #[arg(long, value_enum, default_value_t = ModelKind::Nnue)]
    pub model: ModelKind,
    /// Passes over the training set (a resumed run counts those already done).
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u32).range(1..))]
    pub epochs: u32,
    /// Samples per minibatch.
    #[arg(long, default_value_t = 4096, value_parser = clap::value_parser!(u64).range(1..))]
    pub batch: u64,
    /// Adam's step size in the first epoch.
    #[arg(long, default_value_t = 1e-3)]
    pub lr: f32,
    /// The step size's factor per epoch (1: constant).
    #[arg(long, default_value_t = leaper_nnue::train::DEFAULT_LR_DECAY)]
    pub lr_decay: f32,
    /// Weight of the game's result in the target (0: the search score
    /// only, 1: the result only). 0.2 since lin9: at equal data it beat
    /// 0.5 by +20 Elo by SPRT, and 0.1 was no better (engine/train/README.md).
    #[arg(long, default_value_t = 0.2)]
    pub lambda: f32,
    /// Worker threads (default: all cores).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=256))]
    pub threads: Option<u64>,
    /// The share of positions held out for the validation loss, as whole
    /// games (a game's positions never straddle the split).
    #[arg(long, default_value_t = 0.05)]
    pub val_fraction: f32,
    /// Seeds the initial weights, the split and every epoch's order.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// A directory for the checkpoint written after every epoch.
    #[arg(long, value_name = "DIR")]
    pub checkpoint: Option<PathBuf>,
    /// Factor rows shared by the wazir buckets, trained with the features
    /// and folded into them at export.
    #[arg(long, value_enum, default_value_t = FactorChoice::Squares)]
    pub factorise: FactorChoice,
    /// Write the model of the epoch with the lowest validation loss (a
    /// resumed run counts the model it resumed from), or the last.
    #[arg(long, value_enum, default_value_t = ExportChoice::Best)]
    pub export: ExportChoice,
    /// Continue from the checkpoint in `--checkpoint DIR`.
    #[arg(long, requires = "checkpoint")]
    pub resume: bool,
    /// Start from this model file instead of zero weights: the new data
    /// refines what the model already knows. A linear model (`LEAPLINR`,
    /// e.g. `engine/data/leaper.linear`) starts either model; with `--model
    /// nnue` the network's psq weights and output bias start as the
    /// model's and its output weights at zero, so it starts as the linear
    /// model. A network (`LEAPNNUE`, e.g. `engine/data/leaper.nnue`)
    /// starts `--model nnue` as itself.
    #[arg(long, value_name = "FILE", conflicts_with = "resume")]
    pub init: Option<PathBuf>,
    /// The step size of the network's linear part (its psq weights and
    /// output bias) in the first epoch, decaying with `--lr-decay`
    /// (default: `--lr`). `--model nnue` only.
    #[arg(long, value_name = "LR")]
    pub psq_lr: Option<f32>,
    /// The step size of the network's accumulator (its feature weights
    /// but the psq column, and its bias) in the first epoch, decaying
    /// with `--lr-decay` (default: `--lr`). 0 keeps the accumulator of
    /// `--init` exactly, so that the dense layers fit the integer
    /// accumulator the engine computes. `--model nnue` only.
    #[arg(long, value_name = "LR")]
    pub accumulator_lr: Option<f32>,
    /// Decoupled weight decay of the network's feature (accumulator) and
    /// dense weights, per unit step size (AdamW): pulls the dense path
    /// toward zero, the network toward its linear part. `--model nnue`
    /// only.
    #[arg(long, default_value_t = 0.0)]
    pub weight_decay: f32,
}

impl TrainArgs {
    fn check(&self) -> anyhow::Result<()> {
        check_split(self.lambda, self.val_fraction)?;
        if !(self.lr > 0.0 && self.lr.is_finite()) {
            bail!("--lr {} must be a positive number", self.lr);
        }
        if !(self.lr_decay > 0.0 && self.lr_decay <= 1.0) {
            bail!("--lr-decay {} is outside (0, 1]", self.lr_decay);
        }
        if let Some(lr) = self.psq_lr
            && !(lr >= 0.0 && lr.is_finite())
        {
            bail!("--psq-lr {lr} must be a number >= 0");
        }
        if let Some(lr) = self.accumulator_lr
            && !(lr >= 0.0 && lr.is_finite())
        {
            bail!("--accumulator-lr {lr} must be a number >= 0");
        }
        if !(self.weight_decay >= 0.0 && self.weight_decay.is_finite()) {
            bail!("--weight-decay {} must be a number >= 0", self.weight_decay);
        }
        if self.model == ModelKind::Linear
            && (self.psq_lr.is_some() || self.accumulator_lr.is_some() || self.weight_decay != 0.0)
        {
            bail!("--psq-lr, --accumulator-lr and --weight-decay are the network's; they need --model nnue");
        }
        Ok(())
    }
}

/// The target and split arguments `train` and `loss` share.
fn check_split(lambda: f32, val_fraction: f32) -> anyhow::Result<()> {
    if !(0.0..=1.0).contains(&lambda) {
        bail!("--lambda {lambda} is outside [0, 1]");
    }
    if !(0.0..1.0).contains(&val_fraction) {
        bail!("--val-fraction {val_fraction} is outside [0, 1)");
    }
    Ok(())
}

/// Runs `train`: reads the data, trains, prints each epoch, exports the
/// network to `args.out`.
///
/// # Errors
/// Bad arguments, unreadable or damaged data, no positions, a checkpoint
/// that does not fit, a file that cannot be written.
pub fn train(args: &TrainArgs) -> anyhow::Result<()> {
    args.check()?;
    let start = Instant::now();
    let (samples, read) = read_samples(&args.data, args.lambda)?;
    if samples.is_empty() {
        bail!("no positions to train on in {}", display_list(&args.data));
    }
    let checkpoint = args.checkpoint.as_ref().map(|dir| dir.join("checkpoint.bin"));
    if let Some(dir) = &args.checkpoint {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    }
    let config = TrainConfig {
        epochs: args.epochs,
        batch_size: args.batch as usize,
        learning_rate: args.lr,
        lr_decay: args.lr_decay,
        threads: args.threads.map_or_else(
            || std::thread::available_parallelism().map_or(1, |n| n.get()),
            |t| t as usize,
        ),
        validation_fraction: args.val_fraction,
        seed: args.seed,
        checkpoint: checkpoint.clone(),
        factors: args.factorise.into(),
        psq_learning_rate: args.psq_lr,
        accumulator_learning_rate: args.accumulator_lr,
        weight_decay: args.weight_decay,
        ..TrainConfig::default()
    };
    let setting = Setting {
        args,
        start,
        read,
        threads: config.threads,
        checkpoint,
    };
    match args.model {
        ModelKind::Nnue => {
            let mut rng = StdRng::seed_from_u64(args.seed);
            let model = match &args.init {
                Some(path) => match EvalModel::load(path)
                    .with_context(|| format!("cannot start from --init {}", path.display()))?
                {
                    EvalModel::Linear(linear) => {
                        println!(
                            "starting the network from the linear model {} (psq weights, output bias; output weights zero)",
                            path.display()
                        );
                        FloatNetwork::from_linear(&linear.to_model(), &mut rng)
                    }
                    EvalModel::Network(net) => {
                        println!("starting from the network {}", path.display());
                        let mut float = net.to_float();
                        let revived = float.revive_dead_columns(&mut rng);
                        if revived > 0 {
                            println!(
                                "{revived} of its {L1} accumulator columns are unused (a narrower network): given random feature weights, their output weights zero"
                            );
                        }
                        float
                    }
                },
                None => FloatNetwork::random(&mut rng),
            };
            fit(Trainer::new(model, samples, config), &setting, |m, path, held| {
                let net = m.quantize();
                net.save(path)?;
                Ok(integer_mean_loss(&net, held))
            })
        }
        ModelKind::Linear => {
            let start = match &args.init {
                Some(path) => {
                    let model = load_linear(path)?;
                    println!("starting from the linear model {}", path.display());
                    model
                }
                None => LinearModel::default(),
            };
            fit(Trainer::new(start, samples, config), &setting, |m, path, held| {
                let net = LinearNet::from_model(m);
                net.save(path)?;
                Ok(integer_mean_loss(&net, held))
            })
        }
    }
}

/// Reads the data files into samples at `lambda`, printing each file's
/// count (and a warning for a torn tail); also returns how many records
/// were read (samples drop the unfinished games' positions). Game numbers
/// count within a file's run, so the file tells runs apart.
fn read_samples(data: &[PathBuf], lambda: f32) -> anyhow::Result<(Vec<Sample>, usize)> {
    let mut records = Vec::new();
    for (file, path) in data.iter().enumerate() {
        let mut samples = crate::data::samples(path)?;
        let before = records.len();
        for sample in samples.by_ref() {
            let s = sample?;
            let game = ((file as u64) << 32) | u64::from(s.game);
            records.push((s.position, s.score, s.result.as_f32(), game));
        }
        if let Some(torn) = samples.torn_tail() {
            eprintln!("warning: {torn}; dropped");
        }
        println!("{}: {} positions", path.display(), records.len() - before);
    }
    let read = records.len();
    Ok((samples_from(records, lambda), read))
}

/// Arguments of `loss`.
#[derive(Clone, Debug, clap::Args)]
pub struct LossArgs {
    /// Model files to score, comma-separated: networks (`LEAPNNUE`) or
    /// linear models (`LEAPLINR`), as the engine evaluates them.
    #[arg(long, value_name = "FILE[,FILE]", value_delimiter = ',', required = true)]
    pub net: Vec<PathBuf>,
    /// Data files written by `datagen`, comma-separated, in the order a
    /// training run was given them (it numbers the games).
    #[arg(long, value_name = "FILE[,FILE]", value_delimiter = ',', required = true)]
    pub data: Vec<PathBuf>,
    /// Weight of the game's result in the target, as in `train`. Networks
    /// trained at different lambdas compare at one lambda here.
    #[arg(long, default_value_t = 0.2)]
    pub lambda: f32,
    /// The held-out share, as in `train`: with `train`'s `--val-fraction`
    /// and `--seed` on the same files the positions scored are exactly the
    /// games that training held out.
    #[arg(long, default_value_t = 0.05)]
    pub val_fraction: f32,
    /// Seeds the split, as in `train`.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Score every position, not only the held-out games (for data no
    /// model was trained on).
    #[arg(long)]
    pub all: bool,
}

/// Runs `loss`: each model's mean loss (binary cross-entropy against
/// `(1 - lambda) sigmoid(score) + lambda result`) over the held-out games
/// of the data (or all of it), computed by the integer model as the
/// engine runs it. Prints one line per model.
///
/// # Errors
/// Bad arguments, unreadable or damaged data, no positions to score, a
/// model file that does not load (named).
pub fn loss(args: &LossArgs) -> anyhow::Result<()> {
    check_split(args.lambda, args.val_fraction)?;
    let models = args
        .net
        .iter()
        .map(|path| EvalModel::load(path).with_context(|| format!("cannot load the model {}", path.display())))
        .collect::<anyhow::Result<Vec<_>>>()?;
    let (samples, _) = read_samples(&args.data, args.lambda)?;
    let (scored, what) = if args.all {
        (samples, "all the games")
    } else {
        (
            split_by_game(samples, args.val_fraction, args.seed).0,
            "the held-out games",
        )
    };
    if scored.is_empty() {
        bail!("no positions to score in {}", display_list(&args.data));
    }
    println!("{} positions of {what}, lambda {}", scored.len(), args.lambda);
    for (path, model) in args.net.iter().zip(&models) {
        let loss = match model {
            EvalModel::Network(net) => integer_mean_loss(net.as_ref(), &scored),
            EvalModel::Linear(net) => integer_mean_loss(net, &scored),
        };
        println!("{}: loss {loss:.5}", path.display());
    }
    Ok(())
}

/// The float model of a linear model file, for `--init` of `--model
/// linear` (a network file is refused: the linear model is not a part of
/// it that training could keep apart).
fn load_linear(path: &std::path::Path) -> anyhow::Result<LinearModel> {
    match EvalModel::load(path).with_context(|| format!("cannot start from --init {}", path.display()))? {
        EvalModel::Linear(net) => Ok(net.to_model()),
        EvalModel::Network(_) => bail!(
            "cannot start from --init {}: a network file; --model linear starts from a linear model file",
            path.display()
        ),
    }
}

/// What [`fit`] needs besides the trainer.
struct Setting<'a> {
    args: &'a TrainArgs,
    start: Instant,
    read: usize,
    threads: usize,
    checkpoint: Option<PathBuf>,
}

/// Trains either model the same way: resume, report, run, export.
/// `export` writes a model's integer form and returns its loss on the
/// held-out samples it is given.
fn fit<M: Model>(
    mut trainer: Trainer<M>,
    setting: &Setting<'_>,
    export: impl Fn(&M, &std::path::Path, &[Sample]) -> Result<f32, leaper_nnue::NetFileError>,
) -> anyhow::Result<()> {
    let Setting {
        args,
        start,
        read,
        threads,
        checkpoint,
    } = setting;
    let total = trainer.training().len() + trainer.validation().len();
    if args.resume {
        let path = checkpoint.as_ref().expect("clap requires --checkpoint with --resume");
        trainer
            .resume(path)
            .with_context(|| format!("cannot resume from {}", path.display()))?;
        println!("resumed from {} after epoch {}", path.display(), trainer.epoch);
    }
    let held = trainer.validation().len();
    let network_settings = match args.model {
        ModelKind::Nnue => format!(
            ", psq lr {}, accumulator lr {}, weight decay {}",
            args.psq_lr.unwrap_or(args.lr),
            args.accumulator_lr.unwrap_or(args.lr),
            args.weight_decay
        ),
        ModelKind::Linear => String::new(),
    };
    println!(
        "{} model, factors {}; {} positions ({} finished games skipped): {} training, {} validation (whole games); lambda {}, lr {} x {} per epoch{network_settings}, batch {}, {} threads; read in {:.1} s",
        M::KIND,
        Factors::from(args.factorise).name(),
        total,
        read - total,
        total - held,
        held,
        args.lambda,
        args.lr,
        args.lr_decay,
        args.batch,
        threads,
        start.elapsed().as_secs_f64()
    );
    let start_loss = trainer.validation_loss();
    println!("epoch 0: validation {start_loss:.5}");
    // The best model so far (with its epoch and loss) when the best is to
    // be written; the model is folded only when it improves.
    let mut best = (args.export == ExportChoice::Best).then(|| (trainer.model(), trainer.epoch, start_loss));
    while trainer.epoch < args.epochs {
        let r = trainer.train_epoch();
        println!(
            "epoch {}: lr {:.2e} train {:.5} validation {:.5}, {:.0} samples/s, {:.0} s",
            r.epoch,
            r.learning_rate,
            r.train_loss,
            r.validation_loss,
            r.samples_per_second,
            start.elapsed().as_secs_f64()
        );
        if let Some(path) = checkpoint {
            trainer.save_checkpoint(path).context("cannot write the checkpoint")?;
        }
        if let Some(b) = best.as_mut()
            && r.validation_loss < b.2
        {
            *b = (trainer.model(), r.epoch, r.validation_loss);
        }
    }
    let (model, epoch, loss) = match best {
        Some(b) => b,
        None => {
            let loss = trainer.validation_loss();
            (trainer.model(), trainer.epoch, loss)
        }
    };
    let integer_loss = export(&model, &args.out, trainer.validation())
        .with_context(|| format!("cannot write the model to {}", args.out.display()))?;
    println!(
        "wrote {} (the {} model: epoch {epoch}, validation {loss:.5}) after {} epochs in {:.1} s",
        args.out.display(),
        match args.export {
            ExportChoice::Best => "best",
            ExportChoice::Last => "last",
        },
        trainer.epoch,
        start.elapsed().as_secs_f64()
    );
    println!("the written (integer) model: validation {integer_loss:.5}");
    Ok(())
}

fn display_list(paths: &[PathBuf]) -> String {
    paths
        .iter()
        .map(|p| p.display().to_string())
        .collect::<Vec<_>>()
        .join(", ")
}
