//! The game viewer's data: a game of `games.csv` replayed by the rules
//! crate, with the board and both hands after every ply, so the page draws
//! the rules' own positions and computes nothing of the game itself.

use leaper::{Color, GameMove, Position, Role, SetupCase, Square};
use results::GameRecord;
use serde_json::{Value, json};

/// The game as the viewer shows it: its players, result and termination,
/// its moves (`ply`, `side`, `text`, and `from`/`to` squares of regular
/// moves), and `positions[k]`, the position after `k` plies (`board`: 64
/// piece letters or empty strings, by square index `8 * row + column`;
/// `hands`: per side, the count of each droppable piece by upper-case
/// letter; `turn`). A move the rules refuse ends the replay there, with
/// `error` saying which and why.
#[must_use]
pub fn game_json(record: &GameRecord) -> Value {
    let mut position = Position::new();
    let mut positions = vec![position_json(&position)];
    let mut moves = Vec::new();
    let mut error = None;
    for (i, text) in record.moves.iter().enumerate() {
        let ply = i + 1;
        let side = position.turn();
        let mv = match position.parse_move(text, SetupCase::Lenient) {
            Ok(mv) => mv,
            Err(e) => {
                error = Some(format!("ply {ply}: move {text:?}: {e}"));
                break;
            }
        };
        let (from, to) = match mv {
            GameMove::Move(m) => (m.from().map(square_name), Some(square_name(m.to()))),
            GameMove::Setup(_) => (None, None),
        };
        position.play_game_move(&mv);
        moves.push(json!({"ply": ply, "side": side.name(), "text": text, "from": from, "to": to}));
        positions.push(position_json(&position));
    }
    json!({
        "game": record.game,
        "pair": record.pair,
        "red": record.red,
        "blue": record.blue,
        "result": record.result.as_str(),
        "termination": record.termination.as_str(),
        "plies": record.plies,
        "red_ms": record.red_ms,
        "blue_ms": record.blue_ms,
        "moves": moves,
        "positions": positions,
        "error": error,
    })
}

/// A square's name in the rules' notation (`b5`).
fn square_name(square: Square) -> String {
    square.to_string()
}

fn position_json(position: &Position) -> Value {
    let board: Vec<String> = Square::ALL
        .iter()
        .map(|&sq| {
            position
                .piece_at(sq)
                .map(|p| p.letter().to_string())
                .unwrap_or_default()
        })
        .collect();
    let hand = |color: Color| {
        let hand = position.hand(color);
        let counts: serde_json::Map<String, Value> = Role::DROPPABLE
            .iter()
            .map(|&r| (r.upper().to_string(), json!(hand.count(r))))
            .collect();
        Value::Object(counts)
    };
    json!({
        "ply": position.ply(),
        "board": board,
        "hands": {"red": hand(Color::Red), "blue": hand(Color::Blue)},
        "turn": position.turn().name(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use results::{GameResult, Termination};

    fn record(moves: &[&str]) -> GameRecord {
        GameRecord {
            game: 3,
            pair: 1,
            round: 0,
            red: "r".to_owned(),
            blue: "b".to_owned(),
            red_setup: moves[0].to_owned(),
            blue_setup: moves[1].to_owned(),
            result: GameResult::Draw,
            termination: Termination::PlyLimit,
            plies: u32::try_from(moves.len()).unwrap(),
            red_ms: 0,
            blue_ms: 0,
            moves: moves.iter().map(|m| (*m).to_owned()).collect(),
        }
    }

    #[test]
    fn every_ply_has_the_rules_position() {
        let game = game_json(&record(&["AAAAAAAAWNFFDDDD", "wnffddddaaaaaaaa", "b5d5"]));
        assert_eq!(game["error"], Value::Null);
        let positions = game["positions"].as_array().unwrap();
        assert_eq!(positions.len(), 4);
        let pieces = |k: usize| {
            positions[k]["board"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|p| p != &"")
                .count()
        };
        assert_eq!((pieces(0), pieces(1), pieces(2), pieces(3)), (0, 16, 32, 32));
        // b1 holds Red's wazir, g1 Blue's; b5's dabbaba moved to d5.
        assert_eq!(positions[1]["board"][8], "W");
        assert_eq!(positions[2]["board"][48], "w");
        assert_eq!(positions[3]["board"][8 + 4], "");
        assert_eq!(positions[3]["board"][3 * 8 + 4], "D");
        assert_eq!(positions[3]["turn"], "blue");
        assert_eq!(game["moves"][2]["from"], "b5");
        assert_eq!(game["moves"][2]["to"], "d5");
        assert_eq!(positions[3]["hands"]["red"]["A"], 0);
    }

    #[test]
    fn an_illegal_move_ends_the_replay_with_its_reason() {
        let game = game_json(&record(&["WNFFDDDDAAAAAAAA", "wnffddddaaaaaaaa", "b5b6"]));
        assert_eq!(game["positions"].as_array().unwrap().len(), 3);
        let error = game["error"].as_str().unwrap();
        assert!(error.starts_with("ply 3: move \"b5b6\""), "{error}");
    }
}
