//! `arena serve` end to end: a real `arena match` of the mock engine is
//! played into a scratch directory, the real server is started on it on
//! loopback, and Debian's chromium, driven headless through chromedriver
//! (the W3C WebDriver protocol, spoken with the `ureq` client), looks at
//! the pages: the runs page shows the run's figures as `summary.json` has
//! them, the game viewer shows the rules crate's position at the ply it
//! was stepped to, and paths outside the runs are refused. Screenshots go
//! to `target/screenshots/`.
//!
//! Without chromium and chromedriver (`.ci/install-browser` installs them)
//! the browser test prints a note and passes, unless
//! `LEAPER_REQUIRE_BROWSER=1` (CI) makes it fail.

mod common;

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use base64::Engine as _;
use common::*;
use leaper::{Color, Position, Role, SetupCase, Square};
use results::GameRecord;
use serde_json::{Value, json};

const LIMIT: Duration = Duration::from_secs(60);
/// Debian's browser and driver, where `.ci/install-browser` puts them;
/// `LEAPER_CHROMIUM` and `LEAPER_CHROMEDRIVER` name others.
const CHROMIUM: &str = "/usr/bin/chromium";
const CHROMEDRIVER: &str = "/usr/bin/chromedriver";

fn program(var: &str, default: &str) -> String {
    std::env::var(var).unwrap_or_else(|_| default.to_owned())
}

/// GETs `url`: status and body.
fn get(agent: &ureq::Agent, url: &str) -> (u16, String) {
    let mut response = agent.get(url).call().unwrap_or_else(|e| panic!("GET {url}: {e}"));
    let status = response.status().as_u16();
    let body = response.body_mut().read_to_string().unwrap_or_default();
    (status, body)
}

/// Starts `arena serve` on `dirs` on a free loopback port; returns the
/// process and the base URL it printed (`http://127.0.0.1:PORT/`).
fn start_server(dirs: &[&Path]) -> (Killed, String) {
    let mut child = Command::new(arena_bin())
        .arg("serve")
        .args(dirs)
        .args(["--addr", "127.0.0.1:0"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("arena serve starts");
    let stdout = child.stdout.take().expect("stdout");
    let mut reader = BufReader::new(stdout);
    let mut line = String::new();
    reader.read_line(&mut line).expect("first line");
    // Keep reading, so that the server never writes into a closed pipe.
    std::thread::spawn(move || std::io::copy(&mut reader, &mut std::io::sink()));
    let url = line
        .trim()
        .strip_prefix("serving on ")
        .unwrap_or_else(|| panic!("arena serve's first line: {line:?}"))
        .to_owned();
    assert!(url.starts_with("http://127.0.0.1:"), "{url}");
    (Killed(child), url)
}

/// Plays a short real match of the mock engine with an SPRT into `out`.
fn play_match(out: &Path, games: u64, extra: &[&str]) {
    let mut args = strings(&["match", "--games", &games.to_string(), "--sprt", "elo0=0", "elo1=40"]);
    args.extend(mock_engine("alpha", extra));
    args.extend(mock_engine("beta", &["args=--seed 7"]));
    args.extend(strings(&["--each", "depth=1", "--out", out.to_str().unwrap()]));
    run_ok(&args, LIMIT);
}

/// Plays a short tune of the mock engine's `Knob` into `out`.
fn tune_mock(out: &Path) {
    let params = out.with_extension("params");
    std::fs::create_dir_all(out.parent().unwrap()).unwrap();
    std::fs::write(&params, "Knob, int, 5, 0, 10, 1, 0.002\n").unwrap();
    let mut args = strings(&["tune", "--quiet", "--games", "8", "--pairs-per-trial", "1", "--params"]);
    args.push(params.to_str().unwrap().to_owned());
    args.extend(mock_engine("m", &["depth=1"]));
    args.extend(strings(&["--out", out.to_str().unwrap()]));
    run_ok(&args, LIMIT);
}

/// The numbers in `text`, in order.
fn numbers(text: &str) -> Vec<f64> {
    text.split(|c: char| !(c.is_ascii_digit() || c == '.' || c == '-'))
        .filter_map(|t| t.parse().ok())
        .collect()
}

fn close(a: f64, b: f64, what: &str) {
    assert!((a - b).abs() < 0.006, "{what}: page shows {a}, summary.json has {b}");
}

// ---- WebDriver ----

/// A headless chromium session through chromedriver.
struct Browser {
    agent: ureq::Agent,
    session: String,
    _driver: Killed,
}

impl Browser {
    /// Starts chromedriver and a session, or `None` (with a printed note)
    /// when the browser is not installed and not required.
    fn start() -> Option<Self> {
        let required = std::env::var("LEAPER_REQUIRE_BROWSER").is_ok_and(|v| v == "1");
        let chromium = program("LEAPER_CHROMIUM", CHROMIUM);
        let chromedriver = program("LEAPER_CHROMEDRIVER", CHROMEDRIVER);
        let missing: Vec<&str> = [chromium.as_str(), chromedriver.as_str()]
            .into_iter()
            .filter(|p| !Path::new(p).exists())
            .collect();
        if !missing.is_empty() {
            let note = format!(
                "{} missing: run .ci/install-browser (as root) to install Debian's chromium and chromium-driver",
                missing.join(" and ")
            );
            assert!(!required, "LEAPER_REQUIRE_BROWSER=1 but {note}");
            eprintln!("skipping the browser checks: {note}");
            return None;
        }
        let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let driver = Command::new(&chromedriver)
            .arg(format!("--port={port}"))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("chromedriver starts");
        let driver = Killed(driver);
        let agent = agent();
        let base = format!("http://127.0.0.1:{port}");
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            if let Ok(mut r) = agent.get(&format!("{base}/status")).call()
                && let Ok(v) = r.body_mut().read_json::<Value>()
                && v["value"]["ready"] == true
            {
                break;
            }
            assert!(Instant::now() < deadline, "chromedriver did not become ready in 20 s");
            std::thread::sleep(Duration::from_millis(100));
        }
        let capabilities = json!({"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": {
                "binary": chromium,
                "args": ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                         "--window-size=1100,1300"],
            },
        }}});
        let mut response = agent
            .post(&format!("{base}/session"))
            .send_json(&capabilities)
            .expect("new session");
        let value: Value = response.body_mut().read_json().expect("session JSON");
        let session = value["value"]["sessionId"]
            .as_str()
            .unwrap_or_else(|| panic!("no session: {value}"))
            .to_owned();
        Some(Self {
            agent,
            session: format!("{base}/session/{session}"),
            _driver: driver,
        })
    }

    /// One WebDriver command; its `value`. A WebDriver error fails the test.
    fn command(&self, method: &str, path: &str, body: &Value) -> Value {
        let url = format!("{}{path}", self.session);
        let result = match method {
            "GET" => self.agent.get(&url).call(),
            "DELETE" => self.agent.delete(&url).call(),
            _ => self.agent.post(&url).send_json(body),
        };
        let mut response = result.unwrap_or_else(|e| panic!("{method} {path}: {e}"));
        let status = response.status().as_u16();
        let value: Value = response.body_mut().read_json().expect("WebDriver answers JSON");
        assert!(status == 200, "{method} {path} {body}: {status} {value}");
        value["value"].clone()
    }

    fn goto(&self, url: &str) {
        self.command("POST", "/url", &json!({ "url": url }));
    }

    fn script(&self, script: &str) -> Value {
        self.command("POST", "/execute/sync", &json!({"script": script, "args": []}))
    }

    /// Waits until `condition` (a JavaScript expression) is true.
    fn wait_for(&self, condition: &str) {
        let deadline = Instant::now() + Duration::from_secs(15);
        while self.script(&format!("return !!({condition});")) != true {
            assert!(Instant::now() < deadline, "the page never got to: {condition}");
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    fn click(&self, css: &str) {
        let found = self.command("POST", "/element", &json!({"using": "css selector", "value": css}));
        let id = found
            .as_object()
            .and_then(|o| o.values().next())
            .and_then(Value::as_str)
            .unwrap_or_else(|| panic!("no element {css}: {found}"))
            .to_owned();
        self.command("POST", &format!("/element/{id}/click"), &json!({}));
    }

    /// Presses and releases a key (a WebDriver key code such as `\u{E014}`,
    /// the right arrow) as the keyboard would.
    fn press(&self, key: &str) {
        let actions = json!({"actions": [{"type": "key", "id": "keyboard", "actions": [
            {"type": "keyDown", "value": key}, {"type": "keyUp", "value": key}]}]});
        self.command("POST", "/actions", &actions);
    }

    fn window(&self, width: u32, height: u32) {
        self.command("POST", "/window/rect", &json!({"width": width, "height": height}));
    }

    fn screenshot(&self, name: &str) -> PathBuf {
        let data = self.command("GET", "/screenshot", &Value::Null);
        let png = base64::engine::general_purpose::STANDARD
            .decode(data.as_str().expect("base64 text"))
            .expect("base64");
        assert!(png.starts_with(b"\x89PNG"), "a PNG");
        let dir = screenshots();
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(name);
        std::fs::write(&path, png).unwrap();
        eprintln!("screenshot: {}", path.display());
        path
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = self.agent.delete(&self.session).call();
    }
}

/// `target/screenshots`.
fn screenshots() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR"))
        .parent()
        .expect("target/")
        .join("screenshots")
}

// ---- the rules' view of a game ----

/// The board (square name to piece letter) and hands (side to role letter
/// to count) after `ply` plies of `record`, from the rules crate.
fn rules_position(record: &GameRecord, ply: usize) -> (BTreeMap<String, String>, Value) {
    let mut position = Position::new();
    for text in &record.moves[..ply] {
        let mv = position
            .parse_move(text, SetupCase::Lenient)
            .unwrap_or_else(|e| panic!("game {}: {text}: {e}", record.game));
        position.play_game_move(&mv);
    }
    let board = Square::ALL
        .iter()
        .map(|&sq| {
            let piece = position
                .piece_at(sq)
                .map(|p| p.letter().to_string())
                .unwrap_or_default();
            (sq.to_string(), piece)
        })
        .collect();
    let hand = |color: Color| {
        let held: serde_json::Map<String, Value> = Role::DROPPABLE
            .iter()
            .filter(|&&r| position.hand(color).count(r) > 0)
            .map(|&r| (r.upper().to_string(), json!(position.hand(color).count(r))))
            .collect();
        Value::Object(held)
    };
    (board, json!({"red": hand(Color::Red), "blue": hand(Color::Blue)}))
}

/// What the viewer shows: its ply, the board and the hands.
fn shown(browser: &Browser) -> (u64, BTreeMap<String, String>, Value) {
    let value = browser.script(
        "const board = {};
         for (const sq of document.querySelectorAll('#board .sq')) {
           const piece = sq.querySelector('.piece');
           board[sq.dataset.square] = piece ? piece.dataset.piece : '';
         }
         const hands = {};
         for (const side of ['red', 'blue']) {
           hands[side] = {};
           for (const h of document.querySelectorAll('#hand-' + side + ' .held'))
             hands[side][h.dataset.role] = Number(h.dataset.count);
         }
         return {ply: Number(document.body.dataset.ply), board, hands};",
    );
    let board = value["board"]
        .as_object()
        .expect("board")
        .iter()
        .map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_owned()))
        .collect();
    (value["ply"].as_u64().expect("ply"), board, value["hands"].clone())
}

fn assert_rules_position(browser: &Browser, record: &GameRecord, ply: usize) {
    let (shown_ply, board, hands) = shown(browser);
    assert_eq!(shown_ply, ply as u64, "the viewer's ply");
    let (want_board, want_hands) = rules_position(record, ply);
    assert_eq!(board.len(), 64, "64 squares shown");
    assert_eq!(board, want_board, "board of game {} at ply {ply}", record.game);
    assert_eq!(hands, want_hands, "hands of game {} at ply {ply}", record.game);
}

// ---- the tests ----

#[test]
fn the_pages_show_a_real_run_in_a_real_browser() {
    // A folder of two runs: a match with an SPRT and a short tune.
    let dir = scratch("serve-pages");
    let out = dir.join("runs").join("match");
    play_match(&out, 10, &[]);
    let tune = dir.join("runs").join("tune");
    tune_mock(&tune);
    let summary = summary(&out);
    let records = games(&out);
    let (_server, base) = start_server(&[&dir.join("runs")]);
    let http = agent();

    // Paths come from the runs given, never from the URL.
    std::fs::write(dir.join("secret.txt"), "not for the web").unwrap();
    for path in [
        "run/../../etc/passwd",
        "run/..%2F..%2Fetc%2Fpasswd",
        "run/%2e%2e/%2e%2e/etc/passwd",
        "api/run/0/..%2f..%2fsecret.txt",
        "api/run/0/../../secret.txt",
        "api/run/0/games.csv",
        "api/run/0/traces.svg",
        "assets/..%2f..%2fCargo.toml",
        "etc/passwd",
        "api/run/2",
        "api/run/0/game/99999",
        "run/0/game/-1",
    ] {
        let (status, body) = get(&http, &format!("{base}{path}"));
        assert_eq!(status, 404, "{path}: {body}");
        assert!(!body.contains("root:") && !body.contains("not for the web") && !body.contains("[package]"));
    }
    let posted = http.post(&format!("{base}api/runs")).send_empty().unwrap();
    assert_eq!(posted.status().as_u16(), 405);

    // The API's figures are summary.json's.
    let (status, body) = get(&http, &format!("{base}api/runs"));
    assert_eq!(status, 200);
    let runs: Value = serde_json::from_str(&body).unwrap();
    let run = &runs[0];
    assert_eq!(run["state"], "finished", "{run}");
    for key in [
        "games",
        "pairs",
        "wdl",
        "pentanomial",
        "elo",
        "nelo",
        "llr",
        "lower_bound",
        "decision",
    ] {
        assert_eq!(run["summary"][key], summary[key], "{key}");
    }

    // The tuning run: its figures from its games, its traces from its file.
    let tuned = &runs[1];
    assert_eq!(tuned["mode"], "tune", "{tuned}");
    assert_eq!(tuned["state"], "finished", "{tuned}");
    assert_eq!(tuned["summary"]["games"], 8);
    assert_eq!(tuned["summary"]["player"], "m-plus");
    let (status, traces) = get(&http, &format!("{base}api/run/1/traces.svg"));
    assert_eq!(status, 200);
    assert!(
        traces.starts_with("<svg") && traces.contains("Knob = "),
        "{}",
        &traces[..traces.len().min(200)]
    );
    let (status, llr) = get(&http, &format!("{base}api/run/1/llr.svg"));
    assert_eq!(status, 200);
    assert!(llr.contains("no SPRT"));

    let Some(browser) = Browser::start() else { return };

    // The runs page.
    browser.goto(&base);
    browser.wait_for("document.body.dataset.loaded && document.querySelector('#runs tbody tr')");
    let cells = browser.script(
        "const row = document.querySelector('#runs tbody tr[data-run=\"0\"]');
         const cells = {};
         for (const c of row.querySelectorAll('[data-key]')) cells[c.dataset.key] = c.textContent;
         return cells;",
    );
    assert_eq!(cells["name"].as_str().unwrap(), "match match", "{cells}");
    assert_eq!(cells["state"], "finished");
    assert_eq!(cells["engines"], "alpha vs beta");
    assert_eq!(cells["tc"], "depth=1");
    assert_eq!(cells["games"], "10 / 10");
    let wdl: Vec<u64> = summary["wdl"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap())
        .collect();
    assert_eq!(cells["wdl"], format!("{} / {} / {}", wdl[0], wdl[1], wdl[2]));
    let penta: Vec<String> = summary["pentanomial"]
        .as_array()
        .unwrap()
        .iter()
        .map(Value::to_string)
        .collect();
    assert_eq!(cells["pentanomial"], format!("[{}]", penta.join(", ")));
    let f = |key: &str| summary[key].as_f64().unwrap();
    let elo = numbers(cells["elo"].as_str().unwrap());
    close(elo[0], f("elo"), "Elo");
    close(elo[1], f("elo_ci95"), "Elo interval");
    let nelo = numbers(cells["nelo"].as_str().unwrap());
    close(nelo[0], f("nelo"), "nElo");
    close(nelo[1], f("nelo_ci95"), "nElo interval");
    let llr = numbers(cells["llr"].as_str().unwrap());
    close(llr[0], f("llr"), "LLR");
    close(llr[1], f("lower_bound"), "LLR lower bound");
    close(llr[2], f("upper_bound"), "LLR upper bound");
    let runs_png = browser.screenshot("serve-runs.png");

    // The run's page: figures, both charts drawn, every game listed.
    browser.goto(&format!("{base}run/0"));
    browser.wait_for(
        "document.body.dataset.loaded && ['llr', 'elo'].every(id => {
           const img = document.getElementById(id); return img.complete && img.naturalWidth > 0; })",
    );
    let listed = browser.script("return document.querySelectorAll('#games tbody tr').length;");
    assert_eq!(listed, records.len());
    let failures = browser.script("return document.querySelectorAll('#failures tbody tr').length;");
    assert_eq!(failures, 2, "a row per engine");
    browser.screenshot("serve-run.png");

    // The tuning run's page shows its parameter traces.
    browser.goto(&format!("{base}run/1"));
    browser.wait_for(
        "document.body.dataset.loaded && !document.getElementById('traces-figure').hidden
         && document.getElementById('traces').complete && document.getElementById('traces').naturalWidth > 0",
    );
    browser.screenshot("serve-tune.png");
    browser.goto(&format!("{base}run/0"));
    browser.wait_for("document.body.dataset.loaded && document.querySelector('#games tbody tr')");

    // The viewer of the longest game, reached from the run's page.
    let record = records.iter().max_by_key(|r| r.plies).unwrap().clone();
    assert!(record.plies >= 12, "a game long enough to step through: {record:?}");
    browser.click(&format!("#games tr[data-game=\"{}\"] a", record.game));
    browser.wait_for("document.body.dataset.loaded && document.body.dataset.ply === '0'");
    assert_rules_position(&browser, &record, 0);
    // Forward with the button through both setups, then with the arrow key.
    browser.click("#forward");
    browser.click("#forward");
    assert_rules_position(&browser, &record, 2);
    for _ in 0..8 {
        browser.press("\u{E014}");
    }
    assert_rules_position(&browser, &record, 10);
    // Back with the arrow key and the button.
    browser.press("\u{E012}");
    browser.press("\u{E012}");
    browser.click("#back");
    assert_rules_position(&browser, &record, 7);
    // A move of the list.
    let middle = (record.plies / 2) as usize;
    browser.click(&format!("#moves li[data-ply=\"{middle}\"]"));
    assert_rules_position(&browser, &record, middle);
    browser.screenshot("serve-game.png");
    let result = browser.script("return document.getElementById('result').textContent;");
    let result = result.as_str().unwrap();
    assert!(
        result.contains(record.result.as_str()) && result.contains(record.termination.as_str()),
        "{result}"
    );
    browser.press("\u{E010}"); // End
    assert_rules_position(&browser, &record, record.plies as usize);

    // On a phone-sized window the board still fits.
    browser.window(390, 844);
    let width =
        browser.script("return [document.getElementById('board').getBoundingClientRect().right, window.innerWidth];");
    assert!(
        width[0].as_f64().unwrap() <= width[1].as_f64().unwrap(),
        "board inside the screen: {width}"
    );
    browser.screenshot("serve-game-phone.png");
    browser.goto(&base);
    browser.wait_for("document.body.dataset.loaded");
    browser.screenshot("serve-runs-phone.png");
    assert!(runs_png.exists());
}

#[test]
fn a_run_in_progress_shows_as_running_and_grows() {
    let dir = scratch("serve-live");
    let out = dir.join("live");
    let mut args = strings(&["match", "--games", "8"]);
    args.extend(mock_engine("slow", &["args=--delay-ms 5"]));
    args.extend(mock_engine("quick", &[]));
    args.extend(strings(&["--each", "depth=1", "--out", out.to_str().unwrap()]));
    let arena = spawn_arena(&args);
    let deadline = Instant::now() + LIMIT;
    while !out.join("config.json").exists() {
        assert!(Instant::now() < deadline, "the run never wrote config.json");
        std::thread::sleep(Duration::from_millis(10));
    }
    // The folder is served, not the run: a run started there later joins.
    let (_server, base) = start_server(&[&dir]);
    let http = agent();
    let look = || -> Value {
        let (status, body) = get(&http, &format!("{base}api/runs"));
        assert_eq!(status, 200, "{body}");
        serde_json::from_str::<Value>(&body).unwrap()[0].clone()
    };
    let first = look();
    assert_eq!(first["state"], "running", "{first}");
    let mut seen_games = vec![first["summary"]["games"].as_u64().unwrap()];
    // Look again while it plays, so the rows are read in several parts.
    while seen_games.last() < Some(&4) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(100));
        seen_games.push(look()["summary"]["games"].as_u64().unwrap());
    }
    let output = wait_bounded(arena, LIMIT, "the live match");
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let last = look();
    seen_games.push(last["summary"]["games"].as_u64().unwrap());
    assert_eq!(last["state"], "finished", "{last}");
    assert_eq!(seen_games.last(), Some(&8), "{seen_games:?}");
    assert!(seen_games[0] < 8, "the first look came before the end: {seen_games:?}");
    assert!(seen_games.windows(2).all(|w| w[0] <= w[1]), "{seen_games:?}");
    assert_eq!(last["summary"]["wdl"], summary(&out)["wdl"]);
    // The rows were read in several looks; each game is still found whole.
    for record in games(&out) {
        let (status, body) = get(&http, &format!("{base}api/run/0/game/{}", record.game));
        assert_eq!(status, 200, "{body}");
        let game: Value = serde_json::from_str(&body).unwrap();
        let moves: Vec<&str> = game["moves"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["text"].as_str().unwrap())
            .collect();
        assert_eq!(moves, record.moves, "game {}", record.game);
        assert_eq!(game["error"], Value::Null);
    }
    // A second run in the folder is listed after the first, which keeps
    // its number.
    play_match(&dir.join("later"), 4, &[]);
    let (_, body) = get(&http, &format!("{base}api/runs"));
    let runs: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(runs.as_array().unwrap().len(), 2, "{runs}");
    assert_eq!(runs[0]["name"], "live");
    assert_eq!(runs[1]["name"], "later");
    assert_eq!(runs[1]["summary"]["games"], 4);
    assert_eq!(get(&http, &format!("{base}run/1")).0, 200);
}

/// A run interrupted with Ctrl-C (its log ends `run-finished` with reason
/// `stopped`, or without an end if the exit came first) is listed as
/// stopped and not finished, with the games it played.
#[test]
fn an_interrupted_run_shows_as_stopped_with_the_games_it_played() {
    let dir = scratch("serve-stopped");
    let out = dir.join("interrupted");
    let output = interrupt_after_first_game(&out, LIMIT);
    assert_eq!(output.status.code(), Some(130));
    let log = out.join("events.jsonl");
    // The run's last event is written only if the runner reaches it before
    // the signal handler's exit (arena/README.md); either way the run
    // shows as stopped.
    let log = std::fs::read_to_string(&log).unwrap();
    let last: Value = serde_json::from_str(log.lines().last().unwrap()).unwrap();
    if last["event"] == "run-finished" {
        assert_eq!(last["reason"], "stopped", "{last}");
    }

    let (_server, base) = start_server(&[&out]);
    let (status, body) = get(&agent(), &format!("{base}api/runs"));
    assert_eq!(status, 200, "{body}");
    let run = serde_json::from_str::<Value>(&body).unwrap()[0].clone();
    assert_eq!(run["state"], "stopped", "{run}");
    assert_eq!(run["summary"]["finished"], false, "{run}");
    let played = games(&out).len() as u64;
    assert!((1..5000).contains(&played), "{played} games");
    assert_eq!(run["summary"]["games"], played, "{run}");
}

#[test]
fn bad_directories_and_addresses_are_refused_by_name() {
    let dir = scratch("serve-bad");
    let empty = dir.join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    let missing = dir.join("missing");
    for (path, says) in [(&empty, "not a run directory"), (&missing, "No such file")] {
        let out = run_arena(
            &strings(&["serve", path.to_str().unwrap(), "--addr", "127.0.0.1:0"]),
            LIMIT,
        );
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success());
        assert!(
            stderr.contains(path.to_str().unwrap()) && stderr.contains(says),
            "{stderr}"
        );
    }
    // An address in use, and one that is no address.
    let run = dir.join("run");
    play_match(&run, 2, &[]);
    let taken = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = taken.local_addr().unwrap().to_string();
    let out = run_arena(&strings(&["serve", run.to_str().unwrap(), "--addr", &addr]), LIMIT);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(stderr.contains(&format!("cannot listen on {addr}")), "{stderr}");
    let out = run_arena(
        &strings(&["serve", run.to_str().unwrap(), "--addr", "localhost"]),
        LIMIT,
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(stderr.contains("--addr") && stderr.contains("localhost"), "{stderr}");
    // A damaged row is reported on the runs page, naming the file.
    let mut csv = std::fs::read_to_string(run.join("games.csv")).unwrap();
    csv.push_str("9,4,0,alpha,beta,,,2-0,ply-limit,0,0,0,\n");
    std::fs::write(run.join("games.csv"), csv).unwrap();
    let (_server, base) = start_server(&[&run]);
    let (status, body) = get(&agent(), &format!("{base}api/runs"));
    assert_eq!(status, 200);
    let error = serde_json::from_str::<Value>(&body).unwrap()[0]["error"].clone();
    let error = error.as_str().unwrap_or_else(|| panic!("no error in {body}"));
    assert!(error.contains("games.csv") && error.contains("2-0"), "{error}");
    // Each argument has its help.
    let help = run_ok(&strings(&["serve", "--help"]), LIMIT);
    let help = String::from_utf8_lossy(&help.stdout);
    for text in [
        "[DIR]...",
        "--db <URL>",
        "--addr <ADDR>",
        "127.0.0.1:8080",
        "folders whose subdirectories are runs",
    ] {
        assert!(help.contains(text), "{text} missing from:\n{help}");
    }
}
