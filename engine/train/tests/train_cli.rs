//! `leaper-data train` through the real binary: a small data file made by
//! `datagen`, a few epochs whose validation loss falls, an exported network
//! that loads, a resumed run from the checkpoint, the best epoch's network
//! written with factors folded, and bad input refused with the file or
//! argument named.

use leaper_nnue::QuantNetwork;
use std::path::Path;
use std::process::{Command, Output};

const BIN: &str = env!("CARGO_BIN_EXE_leaper-data");

fn run(args: &[&str]) -> Output {
    Command::new(BIN).args(args).output().expect("leaper-data runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The validation losses printed, epoch 0 (before training) first.
fn validation_losses(stdout: &str) -> Vec<(u32, f32)> {
    stdout
        .lines()
        .filter_map(|line| {
            let rest = line.strip_prefix("epoch ")?;
            let (epoch, rest) = rest.split_once(':')?;
            let value = rest.split("validation ").nth(1)?.split([',', ' ']).next()?;
            Some((epoch.parse().ok()?, value.parse().ok()?))
        })
        .collect()
}

/// `train` on `data` into `out` with the settings the small tests share:
/// minibatches of 32, step size `lr`, the search scores only (lambda 0:
/// a few dozen games' results are too few to generalise from, their
/// search scores are not), a fifth of the games held out, two threads;
/// then `extra`.
fn train_args(data: &Path, out: &Path, lr: &str, extra: &[&str]) -> Vec<String> {
    let (data, out) = (data.display().to_string(), out.display().to_string());
    let mut args: Vec<String> = [
        "train",
        "--data",
        &data,
        "--out",
        &out,
        "--batch",
        "32",
        "--lr",
        lr,
        "--lambda",
        "0",
        "--val-fraction",
        "0.2",
        "--threads",
        "2",
    ]
    .map(String::from)
    .to_vec();
    args.extend(extra.iter().map(|a| (*a).to_owned()));
    args
}

/// Runs `leaper-data` with owned arguments.
fn run_owned(args: &[String]) -> Output {
    run(&args.iter().map(String::as_str).collect::<Vec<_>>())
}

fn make_data(path: &Path) {
    let out = run(&[
        "datagen",
        "--output",
        path.to_str().unwrap(),
        "--positions",
        "2000",
        "--move-nodes",
        "200",
        "--score-nodes",
        "400",
        "--hash-mb",
        "2",
        "--seed",
        "3",
        // The linear model, not the default (the embedded network, which
        // each round of training replaces): a new network must not change
        // these tests' data, and thresholds tuned to it.
        "--eval",
        "linear",
        "--quiet",
    ]);
    assert!(out.status.success(), "datagen: {}", text(&out.stderr));
}

#[test]
fn training_lowers_the_validation_loss_exports_a_network_and_resumes() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data.bin");
    make_data(&data);
    let net = dir.path().join("net.nnue");
    let ckpt = dir.path().join("ckpt");
    let (data_s, net_s, ckpt_s) = (data.to_str().unwrap(), net.to_str().unwrap(), ckpt.to_str().unwrap());
    let common = [
        "train",
        "--data",
        data_s,
        "--out",
        net_s,
        "--batch",
        "32",
        "--lr",
        "0.002",
        "--threads",
        "2",
        "--val-fraction",
        "0.2",
        // Validation is on whole games the model never saw: 32 games'
        // results are too few to generalise from, their search scores
        // (functions of the position) are not.
        "--lambda",
        "0",
        "--checkpoint",
        ckpt_s,
        // The network of the last epoch, so the fifth changes it.
        "--export",
        "last",
    ];
    let out = run(&[&common[..], &["--epochs", "4"]].concat());
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{}", text(&out.stderr));
    eprintln!("{stdout}");
    let losses = validation_losses(&stdout);
    assert_eq!(
        losses.iter().map(|l| l.0).collect::<Vec<_>>(),
        [0, 1, 2, 3, 4],
        "{stdout}"
    );
    let (first, last) = (losses[0].1, losses[4].1);
    assert!(last < first - 0.01, "validation loss {first} -> {last}\n{stdout}");
    assert!(stdout.contains("samples/s"), "{stdout}");
    let loaded = QuantNetwork::load(&net).expect("the exported network loads");
    assert!(ckpt.join("checkpoint.bin").exists());
    loss_scores_the_held_out_games(data_s, net_s, &stdout);

    // One more epoch from the checkpoint: it starts after epoch 4 and its
    // first validation loss is the one the first run ended with.
    let out = run(&[&common[..], &["--epochs", "5", "--resume"]].concat());
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{}", text(&out.stderr));
    assert!(stdout.contains("after epoch 4"), "{stdout}");
    let resumed = validation_losses(&stdout);
    assert_eq!(resumed.iter().map(|l| l.0).collect::<Vec<_>>(), [0, 5], "{stdout}");
    assert!((resumed[0].1 - last).abs() < 1e-4, "{} vs {last}", resumed[0].1);
    let again = QuantNetwork::load(&net).expect("the resumed export loads");
    assert_ne!(again.to_bytes(), loaded.to_bytes(), "a fifth epoch changes the network");
}

/// `loss` on the data and network of a training run (`--val-fraction 0.2`,
/// `--lambda 0`): on the games the run held out it gives the loss the run
/// printed for the written integer network, to the printed digit; another
/// lambda gives another loss, `--all` scores every position, and a
/// model file that does not load is named.
fn loss_scores_the_held_out_games(data: &str, net: &str, train_stdout: &str) {
    let written = train_stdout
        .lines()
        .find_map(|l| l.strip_prefix("the written (integer) model: validation "))
        .unwrap_or_else(|| panic!("no written loss in {train_stdout}"));
    let loss_of = |extra: &[&str]| {
        let out = run(&[
            &["loss", "--net", net, "--data", data, "--val-fraction", "0.2"][..],
            extra,
        ]
        .concat());
        let stdout = text(&out.stdout);
        assert!(out.status.success(), "{stdout}\n{}", text(&out.stderr));
        let loss = stdout
            .lines()
            .find_map(|l| l.strip_prefix(&format!("{net}: loss ")))
            .unwrap_or_else(|| panic!("no loss line in {stdout}"))
            .to_owned();
        let count: usize = stdout
            .lines()
            .find_map(|l| l.split_once(" positions of ").map(|(n, _)| n.parse().ok()))
            .flatten()
            .unwrap_or_else(|| panic!("no count in {stdout}"));
        (loss, count)
    };
    let (held_out, held) = loss_of(&["--lambda", "0"]);
    assert_eq!(
        held_out, written,
        "loss on the held-out games against train's own figure"
    );
    let (other_lambda, _) = loss_of(&["--lambda", "0.5"]);
    assert_ne!(other_lambda, written);
    let (_, all) = loss_of(&["--lambda", "0", "--all"]);
    let total: usize = train_stdout
        .lines()
        .find_map(|l| {
            l.split_once(" positions (")
                .map(|(head, _)| head.rsplit(' ').next()?.parse().ok())
        })
        .flatten()
        .unwrap_or_else(|| panic!("no position count in {train_stdout}"));
    assert_eq!(all, total);
    assert!(held > 0 && held < all, "{held} of {all}");

    let out = run(&["loss", "--net", &format!("{net}.missing"), "--data", data]);
    assert!(!out.status.success());
    let stderr = text(&out.stderr);
    assert!(stderr.contains(".missing"), "{stderr}");
    // The OS's reason is said once, not once by the error and again by
    // its source.
    assert_eq!(stderr.matches("os error").count(), 1, "{stderr}");
}

#[test]
fn bad_input_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("nope.bin");
    let net = dir.path().join("net.nnue");
    let out = run(&[
        "train",
        "--data",
        missing.to_str().unwrap(),
        "--out",
        net.to_str().unwrap(),
    ]);
    assert!(!out.status.success());
    assert!(text(&out.stderr).contains("nope.bin"), "{}", text(&out.stderr));

    let junk = dir.path().join("junk.bin");
    std::fs::write(&junk, b"not a data file at all, not at all").unwrap();
    let out = run(&[
        "train",
        "--data",
        junk.to_str().unwrap(),
        "--out",
        net.to_str().unwrap(),
    ]);
    assert!(!out.status.success());
    assert!(text(&out.stderr).contains("junk.bin"), "{}", text(&out.stderr));

    let out = run(&[
        "train",
        "--data",
        junk.to_str().unwrap(),
        "--out",
        net.to_str().unwrap(),
        "--lambda",
        "2",
    ]);
    assert!(!out.status.success());
    assert!(text(&out.stderr).contains("--lambda"), "{}", text(&out.stderr));
    assert!(!net.exists());
}

#[test]
fn the_linear_model_trains_through_the_same_command_and_exports_its_file() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data.bin");
    make_data(&data);
    let out_path = dir.path().join("model.linear");
    // The linear model's training arguments; `--init FILE` may follow.
    let linear = |out: &Path, epochs: &str| train_args(&data, out, "0.01", &["--model", "linear", "--epochs", epochs]);
    let out = run_owned(&linear(&out_path, "4"));
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{}", text(&out.stderr));
    assert!(stdout.contains("linear model"), "{stdout}");
    let losses = validation_losses(&stdout);
    assert_eq!(losses.len(), 5, "{stdout}");
    // The file holds the best epoch's model, so the best epoch is what must
    // beat the untrained one (on 402 validation positions the last epoch
    // can drift back up by a few thousandths).
    let best = losses[1..].iter().map(|l| l.1).fold(f32::INFINITY, f32::min);
    assert!(best < losses[0].1 - 0.01, "{stdout}");
    let model = leaper_nnue::LinearNet::load(&out_path).expect("the exported linear model loads");
    assert!(
        model.bias() != 0 || (0..6360).any(|f| model.weight(f) != 0),
        "an untrained model"
    );
    // It is no network file.
    assert!(QuantNetwork::load(&out_path).is_err());

    // A run started from it (`--init`) begins where the first ended: its
    // epoch 0 is the written model's loss on the same held-out games (up
    // to the integer rounding of the file), well below a cold start's.
    let warm_path = dir.path().join("warm.linear");
    let mut warm_args = linear(&warm_path, "1");
    warm_args.extend(["--init".to_owned(), out_path.display().to_string()]);
    let out = run_owned(&warm_args);
    let warm = text(&out.stdout);
    assert!(out.status.success(), "{warm}\n{}", text(&out.stderr));
    assert!(warm.contains("starting from the linear model"), "{warm}");
    let best = losses.iter().map(|l| l.1).fold(f32::INFINITY, f32::min);
    let warm_losses = validation_losses(&warm);
    assert!(
        (warm_losses[0].1 - best).abs() < 2e-3,
        "warm start {warm} against the best {best}"
    );
    assert!(warm_losses[0].1 < losses[0].1 - 0.01, "{warm}");
    // A file that is not a linear model is named.
    let not_linear = dir.path().join("not.linear");
    std::fs::write(&not_linear, b"garbage").unwrap();
    let last = warm_args.len() - 1;
    warm_args[last] = not_linear.display().to_string();
    let out = run_owned(&warm_args);
    assert!(!out.status.success());
    assert!(text(&out.stderr).contains("not.linear"), "{}", text(&out.stderr));
    // The network's options are refused for the linear model.
    warm_args[last] = out_path.display().to_string();
    let mut refused = warm_args.clone();
    refused.extend(["--weight-decay".to_owned(), "0.1".to_owned()]);
    let out = run_owned(&refused);
    assert!(!out.status.success());
    assert!(text(&out.stderr).contains("--model nnue"), "{}", text(&out.stderr));

    // The network started from the same linear model (`--model nnue
    // --init`): at epoch 0 it predicts what the linear model does, so its
    // validation loss is the linear model's to the printed digit; training
    // goes on from there and writes a network file.
    let net_path = dir.path().join("from-linear.nnue");
    let mut net_args = train_args(
        &data,
        &net_path,
        "0.003",
        &["--epochs", "2", "--psq-lr", "0.0005", "--weight-decay", "0.01"],
    );
    net_args.extend(["--init".to_owned(), out_path.display().to_string()]);
    let out = run_owned(&net_args);
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{}", text(&out.stderr));
    assert!(
        stdout.contains("starting the network from the linear model"),
        "{stdout}"
    );
    assert!(
        stdout.contains("psq lr 0.0005, accumulator lr 0.003, weight decay 0.01"),
        "{stdout}"
    );
    let net_losses = validation_losses(&stdout);
    assert_eq!(net_losses.len(), 3, "{stdout}");
    assert_eq!(
        format!("{:.5}", net_losses[0].1),
        format!("{:.5}", warm_losses[0].1),
        "network {stdout}\nlinear {warm}"
    );
    QuantNetwork::load(&net_path).expect("the network loads");
    // The written file's own loss is reported, near the float model's.
    let written = stdout
        .lines()
        .find_map(|l| l.strip_prefix("the written (integer) model: validation "))
        .and_then(|v| v.trim().parse::<f32>().ok())
        .unwrap_or_else(|| panic!("no integer loss in {stdout}"));
    let best = net_losses.iter().map(|l| l.1).fold(f32::INFINITY, f32::min);
    assert!((written - best).abs() < 2e-3, "{stdout}");

    // A network goes on from a network file (`--init FILE.nnue`): its
    // epoch 0 is the written network's loss, not the linear model's.
    let again_path = dir.path().join("again.nnue");
    let mut again_args = train_args(&data, &again_path, "0.001", &["--epochs", "1"]);
    again_args.extend(["--init".to_owned(), net_path.display().to_string()]);
    let out = run_owned(&again_args);
    let again = text(&out.stdout);
    assert!(out.status.success(), "{again}\n{}", text(&out.stderr));
    assert!(again.contains("starting from the network"), "{again}");
    let again_losses = validation_losses(&again);
    assert!((again_losses[0].1 - written).abs() < 2e-4, "{again}\nwritten {written}");
    // The linear model cannot start from a network file: refused, named.
    warm_args[last] = net_path.display().to_string();
    let out = run_owned(&warm_args);
    assert!(!out.status.success());
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("from-linear.nnue") && stderr.contains("network file"),
        "{stderr}"
    );
}

/// `--export best` (the default) writes the network of the epoch with the
/// lowest validation loss: byte for byte what a run stopped at that epoch
/// writes; with `--factorise all` too (the factor rows folded away).
#[test]
fn the_best_epoch_is_written_with_its_factors_folded() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data.bin");
    make_data(&data);
    let best = dir.path().join("best.nnue");
    let stopped = dir.path().join("stopped.nnue");
    let args = |out: &Path, epochs: &str, export: &str| {
        train_args(
            &data,
            out,
            "0.003",
            &[
                "--epochs",
                epochs,
                "--export",
                export,
                "--factorise",
                "all",
                "--lr-decay",
                "1",
            ],
        )
    };
    let owned = args(&best, "6", "best");
    let out = run_owned(&owned);
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{}", text(&out.stderr));
    assert!(stdout.contains("factors squares+offsets"), "{stdout}");
    let losses = validation_losses(&stdout);
    assert_eq!(losses.len(), 7, "{stdout}");
    let (epoch, loss) = losses[1..]
        .iter()
        .fold(losses[0], |b, &l| if l.1 < b.1 { l } else { b });
    assert!(epoch >= 1, "no epoch improved on the random network\n{stdout}");
    let line = format!("(the best model: epoch {epoch}, validation {loss:.5})");
    assert!(stdout.contains(&line), "expected {line}\n{stdout}");

    let owned = args(&stopped, &epoch.to_string(), "last");
    let out = run_owned(&owned);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let (a, b) = (
        QuantNetwork::load(&best).expect("loads"),
        QuantNetwork::load(&stopped).expect("loads"),
    );
    assert_eq!(
        a.to_bytes(),
        b.to_bytes(),
        "the best epoch's network differs from a run stopped there"
    );
}
