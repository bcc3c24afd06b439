//! The example session of `engine/README.md` stays true to the
//! protocol: every line sent parses as a command (or, if it shows a
//! mistake, is answered with an error) and every line received parses as
//! an engine message (`...` elides lines).

use protocol::{Command, EngineMessage};
use std::path::Path;

#[test]
fn the_example_session_parses() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md");
    let text = std::fs::read_to_string(&path).unwrap();
    let session = text
        .split("### Example session")
        .nth(1)
        .and_then(|rest| rest.split("```").nth(1))
        .expect("an example session in a code block");
    let lines: Vec<&str> = session.lines().filter(|l| !l.is_empty()).collect();
    for (i, line) in lines.iter().enumerate() {
        if let Some(sent) = line.strip_prefix("> ") {
            let answered_with_error = lines.get(i + 1).is_some_and(|l| l.starts_with("< info string error: "));
            assert!(sent.parse::<Command>().is_ok() || answered_with_error, "sent: {sent}");
        } else if let Some(received) = line.strip_prefix("< ") {
            assert!(
                received == "..." || received.parse::<EngineMessage>().is_ok(),
                "received: {received}"
            );
        } else {
            panic!("line `{line}` is neither sent (`> `) nor received (`< `)");
        }
    }
    assert!(lines.len() > 20);
}
