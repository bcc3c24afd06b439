//! Property tests: every generated message formats to a line that parses
//! back to the same message; formatting yields one line whatever the
//! fields hold; parsing never panics on arbitrary text or bytes.

use leaper_rules::{MoveText, Piece, Position, SetupLetters, Square, random_game_positions};
use proptest::collection::vec;
use proptest::prelude::*;
use protocol::{
    BestMove, Bound, Command, EngineMessage, Id, Info, OptionKind, PlayerMessage, RefereeMessage, Score, ScoreValue,
    SearchLimits, SetOption, SpsaParam, StartPosition, UciOption,
};
use rand::SeedableRng;
use rand::rngs::StdRng;

fn square() -> impl Strategy<Value = Square> {
    (0u8..64).prop_map(|i| Square::new(i).unwrap())
}

fn move_token() -> impl Strategy<Value = MoveText> {
    let letter = prop::sample::select(b"AaDdFfNnWw".to_vec());
    let setup_letter = prop::sample::select(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz".to_vec());
    prop_oneof![
        prop::array::uniform16(setup_letter).prop_map(|l| MoveText::Setup(SetupLetters::new(l).unwrap())),
        (letter, square()).prop_map(|(p, to)| MoveText::Drop {
            piece: Piece::from_letter(char::from(p)).unwrap(),
            to
        }),
        (square(), square()).prop_map(|(from, to)| MoveText::Jump { from, to }),
    ]
}

fn moves(max: usize) -> impl Strategy<Value = Vec<MoveText>> {
    vec(move_token(), 0..=max)
}

/// Words joined by single spaces, none equal to `reserved`.
fn words(min: usize, max: usize, reserved: &'static str) -> impl Strategy<Value = String> {
    vec(
        "[!-~é€]{1,8}".prop_filter("reserved word", move |w| w != reserved),
        min..=max,
    )
    .prop_map(|w| w.join(" "))
}

/// Rest-of-line text: no CR/LF, no ASCII whitespace at either end, inner
/// runs of spaces and tabs kept.
fn line_text() -> impl Strategy<Value = String> {
    "([!-~é€]([ \t!-~é€]{0,30}[!-~é€])?)?"
}

/// A position of a random game (ply 2 on) or the empty start.
fn position() -> impl Strategy<Value = Position> {
    (any::<u64>(), any::<prop::sample::Index>()).prop_map(|(seed, index)| {
        let mut positions = random_game_positions(&mut StdRng::seed_from_u64(seed), 1, 0.5);
        positions.push(Position::new());
        let i = index.index(positions.len());
        positions.swap_remove(i)
    })
}

fn search_limits() -> impl Strategy<Value = SearchLimits> {
    let o64 = || proptest::option::of(any::<u64>());
    let o32 = || proptest::option::of(any::<u32>());
    (
        (o64(), o64(), o64(), o64(), o32(), o64()),
        (o32(), o64(), o32(), any::<bool>(), any::<bool>(), moves(4)),
    )
        .prop_map(
            |((wtime, btime, winc, binc, movestogo, movetime), (depth, nodes, mate, infinite, ponder, searchmoves))| {
                SearchLimits {
                    wtime,
                    btime,
                    winc,
                    binc,
                    movestogo,
                    movetime,
                    depth,
                    nodes,
                    mate,
                    infinite,
                    ponder,
                    searchmoves,
                }
            },
        )
}

fn command() -> impl Strategy<Value = Command> {
    let start = prop_oneof![
        Just(StartPosition::StartPos),
        position().prop_map(|pos| StartPosition::Fen(Box::new(pos)))
    ];
    prop_oneof![
        Just(Command::Uci),
        any::<bool>().prop_map(Command::Debug),
        Just(Command::IsReady),
        (words(1, 4, "value"), proptest::option::of(words(0, 4, "")))
            .prop_map(|(name, value)| Command::SetOption(SetOption { name, value })),
        Just(Command::UciNewGame),
        (start, moves(8)).prop_map(|(start, moves)| Command::Position { start, moves }),
        search_limits().prop_map(Command::Go),
        any::<u32>().prop_map(Command::Perft),
        Just(Command::Stop),
        Just(Command::PonderHit),
        Just(Command::Quit),
        Just(Command::Display),
        Just(Command::Spsa),
    ]
}

fn option_kind() -> impl Strategy<Value = OptionKind> {
    prop_oneof![
        any::<bool>().prop_map(|default| OptionKind::Check { default }),
        (any::<i64>(), any::<i64>(), any::<i64>()).prop_map(|(a, b, c)| {
            let mut v = [a, b, c];
            v.sort();
            OptionKind::Spin {
                min: v[0],
                default: v[1],
                max: v[2],
            }
        }),
        (vec(words(1, 3, "var"), 1..5), any::<prop::sample::Index>()).prop_map(|(vars, pick)| OptionKind::Combo {
            default: pick.get(&vars).clone(),
            vars
        }),
        Just(OptionKind::Button),
        words(0, 5, "<empty>").prop_map(|default| OptionKind::String { default }),
    ]
}

fn score() -> impl Strategy<Value = Score> {
    let value = prop_oneof![
        any::<i32>().prop_map(ScoreValue::Cp),
        any::<i32>().prop_map(ScoreValue::Mate)
    ];
    let bound = proptest::option::of(prop_oneof![Just(Bound::Lower), Just(Bound::Upper)]);
    (value, bound).prop_map(|(value, bound)| Score { value, bound })
}

fn info() -> impl Strategy<Value = Info> {
    let o64 = || proptest::option::of(any::<u64>());
    let o32 = || proptest::option::of(any::<u32>());
    (
        (o32(), o32(), o32(), proptest::option::of(score()), o64(), o64()),
        (
            proptest::option::of(0u32..=1000),
            o64(),
            proptest::option::of(move_token()),
            o32(),
            moves(10),
            proptest::option::of(line_text()),
        ),
    )
        .prop_map(
            |(
                (depth, seldepth, multipv, score, nodes, nps),
                (hashfull, time, currmove, currmovenumber, pv, string),
            )| {
                Info {
                    depth,
                    seldepth,
                    multipv,
                    score,
                    nodes,
                    nps,
                    hashfull,
                    time,
                    currmove,
                    currmovenumber,
                    pv,
                    string,
                }
            },
        )
}

fn finite() -> impl Strategy<Value = f64> {
    prop_oneof![
        prop::num::f64::NORMAL | prop::num::f64::SUBNORMAL | prop::num::f64::ZERO,
        (0u32..100_000).prop_map(|n| f64::from(n) / 1000.0),
    ]
}

fn engine_message() -> impl Strategy<Value = EngineMessage> {
    let text = || line_text().prop_filter("id text is required", |t| !t.is_empty());
    prop_oneof![
        prop_oneof![text().prop_map(Id::Name), text().prop_map(Id::Author)].prop_map(EngineMessage::Id),
        (words(1, 4, "type"), option_kind()).prop_map(|(name, kind)| EngineMessage::Option(UciOption { name, kind })),
        Just(EngineMessage::UciOk),
        Just(EngineMessage::ReadyOk),
        info().prop_map(EngineMessage::Info),
        proptest::option::of((move_token(), proptest::option::of(move_token())))
            .prop_map(|b| EngineMessage::BestMove(b.map(|(best, ponder)| BestMove { best, ponder }))),
        (move_token(), any::<u64>()).prop_map(|(mv, nodes)| EngineMessage::PerftMove { mv, nodes }),
        any::<u64>().prop_map(EngineMessage::PerftTotal),
        (
            "[A-Za-z_][A-Za-z0-9_]{0,15}",
            any::<i64>(),
            any::<i64>(),
            any::<i64>(),
            finite(),
            finite()
        )
            .prop_map(|(name, a, b, c, c_end, r_end)| {
                let mut v = [a, b, c];
                v.sort();
                EngineMessage::Spsa(SpsaParam {
                    name,
                    value: v[1],
                    min: v[0],
                    max: v[2],
                    c_end,
                    r_end,
                })
            }),
    ]
}

fn referee_message() -> impl Strategy<Value = RefereeMessage> {
    prop_oneof![
        Just(RefereeMessage::Start),
        Just(RefereeMessage::Quit),
        move_token().prop_map(RefereeMessage::Move),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn commands_round_trip(c in command()) {
        let line = c.to_string();
        prop_assert_eq!(line.parse::<Command>(), Ok(c), "{}", line);
        let again = line.parse::<Command>().unwrap().to_string();
        prop_assert_eq!(again, line);
    }

    #[test]
    fn engine_messages_round_trip(m in engine_message()) {
        let line = m.to_string();
        prop_assert_eq!(line.parse::<EngineMessage>(), Ok(m), "{}", line);
        let again = line.parse::<EngineMessage>().unwrap().to_string();
        prop_assert_eq!(again, line);
    }

    #[test]
    fn codecup_messages_round_trip(m in referee_message(), mv in move_token()) {
        prop_assert_eq!(m.to_string().parse::<RefereeMessage>(), Ok(m));
        let reply = PlayerMessage(mv);
        prop_assert_eq!(reply.to_string().parse::<PlayerMessage>(), Ok(reply));
    }

    #[test]
    fn moves_and_fens_round_trip(mv in move_token(), pos in position()) {
        prop_assert_eq!(mv.to_string().parse::<MoveText>(), Ok(mv));
        prop_assert_eq!(Position::from_fen(&pos.to_fen()), Ok(pos));
    }

    /// Whatever a caller puts into text fields, a message is one line.
    #[test]
    fn formatting_always_gives_one_line(text in "\\PC*|[\\s\\S]*", other in "[\\s\\S]*") {
        let messages = [
            EngineMessage::Id(Id::Name(text.clone())),
            EngineMessage::Info(Info::string(text.clone())),
            EngineMessage::Info(Info::error(&text)),
            EngineMessage::Option(UciOption::string(text.clone(), other.clone())),
            EngineMessage::Option(UciOption::combo(text.clone(), other.clone(), vec![other.clone()])),
        ];
        for m in messages {
            let line = m.to_string();
            prop_assert!(!line.contains(['\n', '\r']), "{:?}", line);
        }
        let set = Command::SetOption(SetOption::new(&text, Some(&other)));
        prop_assert!(!set.to_string().contains(['\n', '\r']));
    }

    #[test]
    fn parsing_arbitrary_text_never_panics(line in "[\\s\\S]{0,200}") {
        parse_everything(&line);
    }

    #[test]
    fn parsing_arbitrary_bytes_never_panics(bytes in vec(any::<u8>(), 0..200)) {
        parse_everything(&String::from_utf8_lossy(&bytes));
    }
}

fn parse_everything(line: &str) {
    if let Ok(c) = line.parse::<Command>() {
        assert_eq!(c.to_string().parse::<Command>(), Ok(c));
    }
    if let Ok(m) = line.parse::<EngineMessage>() {
        assert_eq!(m.to_string().parse::<EngineMessage>(), Ok(m));
    }
    let _ = line.parse::<RefereeMessage>();
    let _ = line.parse::<PlayerMessage>();
    let _ = line.parse::<MoveText>();
    let _ = Position::from_fen(line);
    let _ = line.parse::<Square>();
}
