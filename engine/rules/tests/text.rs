//! Reading and writing text: moves, setups and position strings, with the
//! errors a user sees for each kind of mistake.

use leaper_rules::{
    Color, FenError, GameMove, IllegalMove, Move, MoveError, MoveText, ParseMoveError, Position, PositionError, Role,
    Setup, SetupCase, SetupError, Square,
};

fn sq(name: &str) -> Square {
    Square::parse(name.as_bytes()).unwrap()
}

fn after(moves: &str) -> Position {
    let mut pos = Position::new();
    for m in moves.split_whitespace() {
        let mv = pos.parse_move(m, SetupCase::Strict).unwrap();
        pos.play_game_move(&mv);
    }
    pos
}

#[test]
fn move_shapes_are_read_before_legality() {
    assert_eq!(
        MoveText::parse("b5d3"),
        Ok(MoveText::Jump {
            from: sq("b5"),
            to: sq("d3")
        })
    );
    let drop = MoveText::parse("Df8").unwrap();
    assert_eq!(MoveText::parse("D@f8"), Ok(drop));
    assert!(matches!(MoveText::parse("ac3"), Ok(MoveText::Drop { to, .. }) if to == sq("c3")));
    assert_eq!(MoveText::parse(""), Err(ParseMoveError::Empty));
    assert!(matches!(
        MoveText::parse("b9d3"),
        Err(ParseMoveError::BadSquare { field: "from", .. })
    ));
    assert!(matches!(
        MoveText::parse("b5d0"),
        Err(ParseMoveError::BadSquare { field: "to", .. })
    ));
    assert!(matches!(
        MoveText::parse("Xf8"),
        Err(ParseMoveError::BadPiece { letter: 'X', .. })
    ));
    assert!(matches!(MoveText::parse("b5-d3"), Err(ParseMoveError::BadShape(_))));
    assert!(matches!(MoveText::parse("AAAA"), Err(ParseMoveError::BadShape(_))));
}

#[test]
fn syntax_errors_and_illegal_moves_are_different_errors() {
    let pos = after("AWAAAAAADFFDDDAN addadffdnaaaaawa");
    assert!(matches!(
        pos.parse_move("b5d9", SetupCase::Strict),
        Err(MoveError::Syntax(_))
    ));
    assert_eq!(
        pos.parse_move("c1e1", SetupCase::Strict),
        Err(MoveError::Illegal(IllegalMove::NoPiece(sq("c1"))))
    );
    assert_eq!(
        pos.parse_move("a1b1", SetupCase::Strict),
        Err(MoveError::Illegal(IllegalMove::Unreachable {
            role: Role::Alfil,
            from: sq("a1"),
            to: sq("b1")
        }))
    );
    assert_eq!(
        pos.parse_move("a2b2", SetupCase::Strict),
        Err(MoveError::Illegal(IllegalMove::OwnPiece(sq("b2"))))
    );
    assert!(matches!(
        pos.parse_move("g1e1", SetupCase::Strict),
        Err(MoveError::Illegal(IllegalMove::NotYours { owner: Color::Blue, .. }))
    ));
    assert_eq!(
        pos.parse_move("Ad4", SetupCase::Strict),
        Err(MoveError::Illegal(IllegalMove::NotInHand {
            color: Color::Red,
            role: Role::Alfil
        }))
    );
    assert!(matches!(
        pos.parse_move("ad4", SetupCase::Strict),
        Err(MoveError::Illegal(IllegalMove::DropColor {
            expected: Color::Red,
            found: Color::Blue
        }))
    ));
    assert_eq!(
        pos.parse_move("AWAAAAAADFFDDDAN", SetupCase::Strict),
        Err(MoveError::Illegal(IllegalMove::SetupOver))
    );
    let message = pos.parse_move("a1b1", SetupCase::Strict).unwrap_err().to_string();
    assert_eq!(message, "a alfil on a1 cannot leap to b1");
}

#[test]
fn setups_are_checked_with_precise_errors() {
    let start = Position::new();
    assert!(matches!(
        start.parse_move("AWAAAAAADFFDDDAA", SetupCase::Strict),
        Err(MoveError::Setup(SetupError::WrongCount {
            role: Role::Alfil,
            expected: 8,
            found: 9
        }))
    ));
    assert_eq!(
        start.parse_move("awaaaaaadffdddan", SetupCase::Strict),
        Err(MoveError::Illegal(IllegalMove::SetupColor {
            expected: Color::Red,
            found: Color::Blue
        }))
    );
    // Records: the side to move decides the colour.
    let lenient = start.parse_move("awaaaaaadffdddan", SetupCase::Lenient).unwrap();
    let mut pos = start.clone();
    pos.play_game_move(&lenient);
    assert_eq!(pos.piece_at(sq("a2")).map(|p| p.color), Some(Color::Red));
    assert!(matches!(
        start.parse_move("b1c3", SetupCase::Strict),
        Err(MoveError::Illegal(IllegalMove::SetupDue(Color::Red)))
    ));
    let (setup, color) = Setup::parse("AWAAAAAADFFDDDAN").unwrap();
    assert_eq!(color, Color::Red);
    assert_eq!(setup.to_text(Color::Blue), "awaaaaaadffdddan");
    assert_eq!(setup.mirror().to_string(), "AAAAAAWANADDDFFD");
}

#[test]
fn a_formation_for_the_other_side_mirrors_across_the_middle() {
    let (red, _) = Setup::parse("AWAAAAAADFFDDDAN").unwrap();
    let pos = Position::from_setups(&red, &red.for_other_side());
    for sq in Square::ALL {
        let across = Square::from_coords(7 - sq.row() as i32, sq.col() as i32).unwrap();
        match (pos.piece_at(sq), pos.piece_at(across)) {
            (Some(a), Some(b)) => {
                assert_eq!(a.role, b.role, "{sq} and {across}");
                assert_ne!(a.color, b.color);
            }
            (None, None) => {}
            other => panic!("{sq}/{across}: {other:?}"),
        }
    }
}

#[test]
fn setups_fill_the_home_rows_in_board_order() {
    let pos = after("AWAAAAAADFFDDDAN addadffdnaaaaawa");
    assert_eq!(pos.to_fen(), "AWAAAAAA/DFFDDDAN/8/8/8/8/addadffd/naaaaawa - r 2");
    assert_eq!(pos.wazir(Color::Red), Some(sq("a2")));
    assert_eq!(pos.wazir(Color::Blue), Some(sq("h7")));
}

#[test]
fn the_protocol_example_position_round_trips() {
    let fen = "1W1A1D1D/AaFA1DDA/2A1A1A1/6A1/3a1a1d/2d2n2/a1a1N1f1/add2w1a AFf r 26";
    let pos = Position::from_fen(fen).unwrap();
    assert_eq!(pos.to_fen(), fen);
    assert_eq!(pos.turn(), Color::Red);
    assert_eq!(pos.ply(), 26);
    assert_eq!(pos.hand(Color::Red).count(Role::Alfil), 1);
    assert_eq!(pos.hand(Color::Blue).count(Role::Ferz), 1);
    assert_eq!(
        pos.parse_move("Ac1", SetupCase::Strict),
        Ok(GameMove::Move(Move::Drop {
            role: Role::Alfil,
            to: sq("c1")
        }))
    );
    // Unsorted hands are read, and written sorted.
    let unsorted = Position::from_fen("1W1A1D1D/AaFA1DDA/2A1A1A1/6A1/3a1a1d/2d2n2/a1a1N1f1/add2w1a fFA r 26").unwrap();
    assert_eq!(unsorted, pos);
    assert_eq!(Position::from_fen("8/8/8/8/8/8/8/8 - r 0").unwrap(), Position::new());
}

/// A position string and a test of the error it must give.
type FenCase = (&'static str, fn(&FenError) -> bool);

#[test]
fn bad_position_strings_name_the_field_at_fault() {
    let cases: &[FenCase] = &[
        ("", |e| matches!(e, FenError::MissingField("board"))),
        ("8/8/8/8/8/8/8/8 - r", |e| matches!(e, FenError::MissingField("ply"))),
        ("8/8/8/8/8/8/8/8 - r 0 x", |e| matches!(e, FenError::ExtraField(_))),
        ("8/8/8/8/8/8/8 - r 0", |e| matches!(e, FenError::RowCount(7))),
        ("8/8/8/8/8/8/8/7 - r 0", |e| {
            matches!(e, FenError::RowLength { row: 'h', squares: 7 })
        }),
        ("8/8/8/8/8/8/8/9 - r 0", |e| {
            matches!(e, FenError::BadBoardChar { row: 'h', ch: '9' })
        }),
        ("8/8/8/8/8/8/8/8 W r 0", |e| matches!(e, FenError::BadHandChar('W'))),
        ("8/8/8/8/8/8/8/8 - x 0", |e| matches!(e, FenError::BadSide(_))),
        ("8/8/8/8/8/8/8/8 - r 103", |e| matches!(e, FenError::BadPly(_))),
        ("8/8/8/8/8/8/8/8 - b 0", |e| {
            matches!(e, FenError::Position(PositionError::SideMismatch { ply: 0, .. }))
        }),
        ("8/8/8/8/8/8/8/8 A r 0", |e| {
            matches!(e, FenError::Position(PositionError::Material(_)))
        }),
        // 17 wazirs.
        ("WWWWWWWW/WWWWWWWW/W7/8/8/8/8/8 - r 10", |e| {
            matches!(e, FenError::Position(PositionError::Material(_)))
        }),
        // Both wazirs gone.
        ("AAAAAAAA/DDDDFFN1/8/8/8/8/aaaaaaaa/ddddffn1 - r 10", |e| {
            matches!(e, FenError::Position(PositionError::Material(_)))
        }),
    ];
    for (text, expected) in cases {
        match Position::from_fen(text) {
            Err(e) => assert!(expected(&e), "'{text}' gave {e:?}"),
            Ok(pos) => panic!("'{text}' was accepted as {pos:?}"),
        }
    }
    let message = Position::from_fen("8/8/8/8/8/8/8/9 - r 0").unwrap_err().to_string();
    assert!(message.contains("row h") && message.contains("'9'"), "{message}");
}

#[test]
fn move_texts_round_trip_and_keep_what_was_written() {
    let setup: MoveText = "AWNAADADAFFAADDA".parse().unwrap();
    assert!(matches!(setup, MoveText::Setup(l) if l.as_str() == "AWNAADADAFFAADDA"));
    // Mixed case and wrong counts have the shape of a setup; the position
    // rejects them in its own words.
    assert!("aaaaaffdaddAdnwa".parse::<MoveText>().is_ok());
    assert!(matches!(
        after("").parse_move("zzzzzzzzzzzzzzzz", SetupCase::Strict),
        Err(MoveError::Setup(SetupError::WrongLetter { index: 0, .. }))
    ));
    assert_eq!("D@f8".parse::<MoveText>().unwrap().to_string(), "Df8");
    for text in ["b5d3", "Df8", "ac3", "Wa1", "aaaaaffdaddadnwa"] {
        assert_eq!(text.parse::<MoveText>().unwrap().to_string(), text);
    }
    for bad in [
        "b5",
        "b5d3x",
        "AWNAADADAFFAADD1",
        "é5d",
        "ééé",
        "0000",
        "(none)",
        "1@f8",
        "D9f",
    ] {
        assert!(
            matches!(bad.parse::<MoveText>(), Err(ParseMoveError::BadShape(_))),
            "{bad}"
        );
    }
    // What a position plays, written for its mover, reads back as the same move.
    let pos = after("AWAAAAAADFFDDDAN addadffdnaaaaawa");
    let line = [
        GameMove::Setup(Setup::first()),
        GameMove::Move(Move::Drop {
            role: Role::Ferz,
            to: sq("c3"),
        }),
    ];
    let texts = MoveText::line(&line, Color::Blue);
    assert_eq!(texts[0].to_string(), "aaaaaaaaddddffnw");
    assert_eq!(texts[1].to_string(), "Fc3");
    assert!(pos.move_from_text(texts[1], SetupCase::Strict).is_err());
    assert_eq!(size_of::<MoveText>(), 17);
}

#[test]
fn positions_from_parts_are_checked() {
    let pos = Position::from_fen("1W1A1D1D/AaFA1DDA/2A1A1A1/6A1/3a1a1d/2d2n2/a1a1N1f1/add2w1a AFf r 26").unwrap();
    let board = Square::ALL.map(|s| pos.piece_at(s));
    let hands = [*pos.hand(Color::Red), *pos.hand(Color::Blue)];
    assert_eq!(Position::from_parts(board, hands, Color::Red, 26), Ok(pos.clone()));
    assert_eq!(
        Position::from_parts(board, hands, Color::Blue, 26),
        Err(PositionError::SideMismatch {
            ply: 26,
            side: Color::Blue
        })
    );
    assert_eq!(
        Position::from_parts(board, hands, Color::Red, 104),
        Err(PositionError::Ply(104))
    );
    let mut missing = board;
    missing[sq("a4").index()] = None;
    assert!(matches!(
        Position::from_parts(missing, hands, Color::Red, 26),
        Err(PositionError::Material(_))
    ));
}
