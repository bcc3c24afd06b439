//! The CodeCup referee protocol (RULES.md): one line in, one line out. The
//! referee sends `Start`, the opponent's setup or move, or `Quit`; the
//! player answers with its setup or move. Also here: telling from the
//! first line which protocol an engine has been started under.

use std::fmt;
use std::str::FromStr;

use crate::error::{ParseError, Tokens, excerpt};
use leaper_rules::MoveText;

/// A line from the CodeCup referee to a player.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RefereeMessage {
    /// `Start`: you are Red, send your setup.
    Start,
    /// The opponent's setup or move; answer with yours.
    Move(MoveText),
    /// `Quit`: the game is over, exit at once. End of input means the same.
    Quit,
}

/// A line from a player to the CodeCup referee: its setup or move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PlayerMessage(pub MoveText);

/// Reads the single move token of a CodeCup line.
fn one_move(line: &str) -> Result<MoveText, ParseError> {
    let t = Tokens::new(line);
    let Some(token) = t.get(0) else {
        return Err(ParseError::Empty);
    };
    let mv = token.parse().map_err(|reason| ParseError::Move {
        index: 0,
        token: excerpt(token),
        reason,
    })?;
    t.expect_end(1)?;
    Ok(mv)
}

impl FromStr for RefereeMessage {
    type Err = ParseError;

    /// Parses `Start`, `Quit` (both case-sensitive) or one move token.
    ///
    /// # Errors
    /// [`ParseError::Empty`] for a blank line, [`ParseError::Move`] for a
    /// token that is not shaped like a move, [`ParseError::Unexpected`] for
    /// a second token.
    fn from_str(line: &str) -> Result<Self, Self::Err> {
        let t = Tokens::new(line);
        match t.get(0) {
            Some("Start") => t.expect_end(1).map(|()| RefereeMessage::Start),
            Some("Quit") => t.expect_end(1).map(|()| RefereeMessage::Quit),
            _ => one_move(line).map(RefereeMessage::Move),
        }
    }
}

impl FromStr for PlayerMessage {
    type Err = ParseError;

    /// Parses one move token.
    ///
    /// # Errors
    /// As for [`RefereeMessage`].
    fn from_str(line: &str) -> Result<Self, Self::Err> {
        one_move(line).map(PlayerMessage)
    }
}

impl fmt::Display for RefereeMessage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RefereeMessage::Start => f.write_str("Start"),
            RefereeMessage::Move(mv) => write!(f, "{mv}"),
            RefereeMessage::Quit => f.write_str("Quit"),
        }
    }
}

impl fmt::Display for PlayerMessage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// The protocol an engine speaks, as chosen by its first input line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Protocol {
    /// UCI with drops and setups (PROTOCOL.md).
    Uci,
    /// The CodeCup referee protocol (RULES.md).
    CodeCup,
}

impl Protocol {
    /// The protocol that the first line read selects: `uci` selects UCI;
    /// `Start` or a 16-letter setup selects CodeCup (a player is Red if it
    /// gets `Start`, Blue if it gets Red's setup). Anything else, a blank
    /// line included, selects neither and gives `None`: the caller decides
    /// (for example, keep reading, or fall back to UCI).
    pub fn detect(first_line: &str) -> Option<Protocol> {
        match first_line.parse::<RefereeMessage>() {
            Ok(RefereeMessage::Start | RefereeMessage::Move(MoveText::Setup(_))) => Some(Protocol::CodeCup),
            _ if first_line.parse::<crate::Command>() == Ok(crate::Command::Uci) => Some(Protocol::Uci),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn referee_lines_round_trip() {
        for line in [
            "Start",
            "Quit",
            "AWNAADADAFFAADDA",
            "aaaaaffdaddadnwa",
            "b5d3",
            "Df8",
            "ac3",
        ] {
            let message: RefereeMessage = line.parse().unwrap();
            assert_eq!(message.to_string(), line);
            let reply: PlayerMessage = line.parse().unwrap_or(PlayerMessage("a1a2".parse().unwrap()));
            assert_eq!(reply.to_string().parse::<PlayerMessage>(), Ok(reply));
        }
        assert_eq!("Start\r\n".parse(), Ok(RefereeMessage::Start));
        assert_eq!("D@f8".parse::<PlayerMessage>().unwrap().to_string(), "Df8");
    }

    #[test]
    fn bad_referee_lines_are_errors() {
        assert_eq!("".parse::<RefereeMessage>(), Err(ParseError::Empty));
        assert!(matches!(
            "start".parse::<RefereeMessage>(),
            Err(ParseError::Move { index: 0, .. })
        ));
        assert!(matches!(
            "Start now".parse::<RefereeMessage>(),
            Err(ParseError::Unexpected { index: 1, .. })
        ));
        assert!(matches!(
            "b5d3 b5d4".parse::<PlayerMessage>(),
            Err(ParseError::Unexpected { index: 1, .. })
        ));
        assert!("Start".parse::<PlayerMessage>().is_err());
    }

    #[test]
    fn the_first_line_picks_the_protocol() {
        assert_eq!(Protocol::detect("uci"), Some(Protocol::Uci));
        assert_eq!(Protocol::detect("uci\r"), Some(Protocol::Uci));
        assert_eq!(Protocol::detect("Start"), Some(Protocol::CodeCup));
        assert_eq!(Protocol::detect("AWNAADADAFFAADDA"), Some(Protocol::CodeCup));
        for other in ["", "isready", "b5d3", "Quit", "uci now", "UCI"] {
            assert_eq!(Protocol::detect(other), None, "{other}");
        }
    }
}
