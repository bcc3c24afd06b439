//! Keeps the example session in README.md true: every line the
//! engine sends there is canonical, every GUI line parses (or fails with
//! the error the engine is shown answering).

use protocol::{Command, EngineMessage, Info};

#[test]
fn the_readme_session_is_canonical() {
    let readme = include_str!("../README.md");
    let session = readme
        .split("### Example session\n```\n")
        .nth(1)
        .and_then(|s| s.split("```").next())
        .expect("README.md has an example session");
    let mut last_error = None;
    let mut checked = 0;
    for line in session.lines() {
        if let Some(command) = line.strip_prefix("> ") {
            last_error = command.parse::<Command>().err().map(Info::error);
            checked += 1;
        } else if let Some(reply) = line.strip_prefix("< ") {
            if reply == "..." {
                continue;
            }
            let message: EngineMessage = reply.parse().unwrap_or_else(|e| panic!("{reply}: {e}"));
            assert_eq!(message.to_string(), reply);
            if let EngineMessage::Info(info) = &message
                && info.error_text().is_some()
            {
                assert_eq!(
                    last_error.as_ref(),
                    Some(info),
                    "the error shown is the one the parser gives"
                );
            }
            checked += 1;
        }
    }
    assert!(checked > 20);
}
