//! Games folded from the referee's logs on a real node (anvil), and the fold's
//! divergence checks against events the rules refute.

use alloy_primitives::{Address, B256, Bytes, U256, aliases::U24};
use alloy_sol_types::SolEvent;
use chessref_client::{GameLog, Games, LogPlace, Phase, RefereeLog, game_log};
use chessref_core::{Move, RawMove, State};
use chessref_evm::{
    Chain, EndReason, EndResult, GameSetup, Referee, RpcChain, anvil::Anvil,
    bindings::ChessReferee as R,
};

fn packed(uci: &str) -> u32 {
    RawMove::from(Move::from_uci(uci).unwrap()).packed()
}

/// Plays on anvil: game 1 fool's mate, game 2 a draw offer in a running game,
/// game 3 cancelled. Returns the referee and the two players.
fn play(anvil: &Anvil) -> (Referee<RpcChain>, Address, Address) {
    let chain = RpcChain::connect(anvil.url()).expect("connect to anvil");
    let mut referee = Referee::deploy(chain).expect("deploy");
    let (white, black) = {
        let accounts = referee.chain().accounts();
        (accounts[1], accounts[2])
    };
    let stake = U256::from(10u64.pow(15));
    let setup = GameSetup::eth(black, stake);
    let created = referee.create_game(white, &setup).expect("create 1");
    let joined = referee.join_game(black, created.id, stake).expect("join 1");
    let mut position = chessref_evm::Position {
        state: created.state,
        history: created.history,
        clock: joined.clock,
    };
    for (i, uci) in ["f2f3", "e7e5", "g2g4", "d8h4"].iter().enumerate() {
        let mover = if i % 2 == 0 { white } else { black };
        let moved = referee
            .play_move(mover, created.id, &position, packed(uci))
            .expect("move");
        position = moved.position;
    }
    let second = referee.create_game(white, &setup).expect("create 2");
    let joined = referee.join_game(black, second.id, stake).expect("join 2");
    let start = chessref_evm::Position {
        state: second.state,
        history: second.history,
        clock: joined.clock,
    };
    let moved = referee
        .play_move(white, second.id, &start, packed("e2e4"))
        .expect("e4");
    referee
        .offer_draw(white, second.id, &moved.position)
        .expect("offer");
    let third = referee.create_game(white, &setup).expect("create 3");
    referee.cancel_game(white, third.id).expect("cancel");
    let mut open = GameSetup::eth(Address::ZERO, stake);
    open.creator_white = false;
    referee
        .create_channel_game(white, &open, 600)
        .expect("create 4: an open channel game, creator black");
    (referee, white, black)
}

fn read_logs(referee: &mut Referee<RpcChain>, topic1: Option<B256>) -> Vec<RefereeLog> {
    let address = referee.address();
    let chain = referee.chain();
    let head = chain.head().expect("head");
    chain
        .logs(address, 0, head, topic1)
        .expect("logs")
        .iter()
        .map(|(place, log)| RefereeLog::decode(*place, log).expect("a referee event"))
        .collect()
}

#[test]
fn games_fold_from_the_nodes_logs_and_match_the_chain() {
    let anvil = Anvil::spawn().expect("anvil (the npm-installed node) must be available");
    let (mut referee, white, black) = play(&anvil);
    let logs = read_logs(&mut referee, None);
    let mut games = Games::new();
    for log in &logs {
        games.apply(log).expect("chain-ordered logs of known games");
    }
    assert_eq!(games.len(), 4);
    for game in games.iter() {
        assert!(
            game.divergences.is_empty(),
            "game {}: {:?}",
            game.id,
            game.divergences
        );
    }
    let channel = games.get(U256::from(4)).unwrap();
    assert!(channel.is_channel() && channel.response_window == 600);
    assert_eq!(channel.phase, Phase::Open);
    assert!(!games.get(U256::from(1)).unwrap().is_channel());

    let mate = games.get(U256::from(1)).unwrap();
    assert_eq!(mate.phase, Phase::Ended);
    assert_eq!((mate.white, mate.black), (Some(white), Some(black)));
    let sans: Vec<_> = mate.moves.iter().map(|m| m.san.clone().unwrap()).collect();
    assert_eq!(sans, ["f3", "e5", "g4", "Qh4#"]);
    let ucis: Vec<_> = mate.moves.iter().map(|m| m.uci.as_str()).collect();
    assert_eq!(ucis, ["f2f3", "e7e5", "g2g4", "d8h4"]);
    let ending = mate.ending.unwrap();
    assert_eq!(
        (ending.result, ending.reason),
        (EndResult::BlackWins, EndReason::Checkmate)
    );
    assert!(mate.divergences.is_empty(), "{:?}", mate.divergences);
    assert_eq!(mate.mover(), None, "nobody moves in an ended game");

    let running = games.get(U256::from(2)).unwrap();
    assert_eq!(running.phase, Phase::Running);
    assert_eq!(running.draw_offer, Some(white));
    assert_eq!(running.mover(), Some(black));
    assert_eq!(running.ply(), 1);
    let stored = referee.commitment_of(U256::from(2)).expect("commitmentOf");
    assert_eq!(
        running.position.unwrap().commitment(),
        stored,
        "the folded position (with the offer's clock) is the one the referee stores"
    );
    assert!(running.divergences.is_empty(), "{:?}", running.divergences);

    assert_eq!(games.get(U256::from(3)).unwrap().phase, Phase::Cancelled);

    // One game's logs by its indexed id: the same game.
    let only = read_logs(&mut referee, Some(B256::from(U256::from(1))));
    assert!(only.iter().all(|l| l.game_id() == Some(U256::from(1))));
    assert_eq!(game_log::fold_game(&only).as_ref(), Some(mate));
    let json = serde_json::to_value(mate).unwrap();
    assert_eq!(json["moves"][3]["san"], "Qh4#");
    assert_eq!(json["ending"]["reason"]["name"], "checkmate");
}

fn place(n: u64) -> LogPlace {
    LogPlace {
        block_number: n,
        ..LogPlace::default()
    }
}

/// A running game from the start, folded from hand-made events.
fn started() -> (GameLog, B256, U256) {
    let start = State::initial();
    let history = chessref_core::chain::of_start(&start);
    let created = R::GameCreated {
        gameId: U256::from(7),
        creator: Address::repeat_byte(1),
        opponent: Address::ZERO,
        creatorWhite: true,
        token: Address::ZERO,
        stake: U256::ZERO,
        initialTime: 600,
        increment: 0,
        firstMoveWindow: 300,
        terms: B256::ZERO,
        state: Bytes::copy_from_slice(start.as_bytes()),
        history,
        responseWindow: 0,
    };
    let mut game = GameLog::created(&created, place(1));
    assert_eq!(
        game.divergences.iter().map(|d| d.what).collect::<Vec<_>>(),
        ["terms"],
        "a terms hash that is not the hash of the event's terms"
    );
    game.divergences.clear();
    // Clock word with ply 0: what a join reports (its time fields do not matter here).
    let clock = U256::from(1u64) << 200usize;
    let joined = R::GameJoined {
        gameId: U256::from(7),
        white: Address::repeat_byte(1),
        black: Address::repeat_byte(2),
        clock,
    };
    game.apply(&RefereeLog {
        place: place(2),
        event: R::ChessRefereeEvents::GameJoined(joined),
    });
    assert!(game.divergences.is_empty(), "{:?}", game.divergences);
    (game, history, clock)
}

/// The `MovePlayed` the real referee would emit for `uci` from the start.
fn honest_move(uci: &str, history: B256, clock: U256) -> R::MovePlayed {
    let next = State::initial().play(Move::from_uci(uci).unwrap()).unwrap();
    R::MovePlayed {
        gameId: U256::from(7),
        r#move: U24::from(packed(uci)),
        ply: 1,
        status: next.status().code(),
        history: chessref_core::chain::after(history, &next),
        clock: clock | (U256::from(1u64) << 136usize),
        state: Bytes::copy_from_slice(next.as_bytes()),
    }
}

fn fold_move(event: R::MovePlayed) -> GameLog {
    let (mut game, _, _) = started();
    game.apply(&RefereeLog {
        place: place(3),
        event: R::ChessRefereeEvents::MovePlayed(event),
    });
    game
}

#[test]
fn an_honest_move_folds_without_divergence() {
    let (_, history, clock) = started();
    let game = fold_move(honest_move("e2e4", history, clock));
    assert!(game.divergences.is_empty(), "{:?}", game.divergences);
    assert_eq!(game.moves[0].san.as_deref(), Some("e4"));
    assert_eq!(game.ply(), 1);
}

#[test]
fn a_move_the_rules_refuse_is_a_divergence() {
    let (_, history, clock) = started();
    let mut event = honest_move("e2e4", history, clock);
    event.r#move = U24::from(packed("e2e5"));
    let game = fold_move(event);
    let whats: Vec<_> = game.divergences.iter().map(|d| d.what).collect();
    assert_eq!(whats, ["move"], "{:?}", game.divergences);
    assert!(game.divergences[0].found.contains("0x"));
    assert_eq!(game.moves[0].san, None, "no SAN for a refused move");
    assert_eq!(game.divergences[0].event, "MovePlayed");
}

#[test]
fn a_wrong_state_history_status_or_ply_is_a_divergence() {
    let (_, history, clock) = started();
    let honest = honest_move("e2e4", history, clock);

    let mut state = honest.clone();
    let mut bytes = state.state.to_vec();
    bytes[0x10] ^= 0x01;
    state.state = bytes.into();
    assert!(
        fold_move(state)
            .divergences
            .iter()
            .any(|d| d.what == "state")
    );

    let mut wrong_history = honest.clone();
    wrong_history.history = B256::repeat_byte(9);
    assert!(
        fold_move(wrong_history)
            .divergences
            .iter()
            .any(|d| d.what == "history")
    );

    let mut status = honest.clone();
    status.status = 1;
    assert!(
        fold_move(status)
            .divergences
            .iter()
            .any(|d| d.what == "status")
    );

    let mut ply = honest;
    ply.ply = 2;
    assert!(fold_move(ply).divergences.iter().any(|d| d.what == "ply"));
}

#[test]
fn an_ending_the_position_does_not_justify_is_a_divergence() {
    let (mut game, _, _) = started();
    game.apply(&RefereeLog {
        place: place(3),
        event: R::ChessRefereeEvents::GameEnded(R::GameEnded {
            gameId: U256::from(7),
            result: EndResult::WhiteWins.code(),
            reason: EndReason::Checkmate.code(),
        }),
    });
    assert_eq!(game.phase, Phase::Ended);
    assert_eq!(game.divergences.len(), 1, "{:?}", game.divergences);
    assert_eq!(game.divergences[0].what, "ending");
    // A move after the end is one too.
    game.apply(&RefereeLog {
        place: place(4),
        event: R::ChessRefereeEvents::MovePlayed(honest_move(
            "e2e4",
            chessref_core::chain::of_start(&State::initial()),
            U256::ZERO,
        )),
    });
    assert!(game.divergences.iter().any(|d| d.what == "phase"));
}

#[test]
fn an_event_of_an_unknown_game_or_out_of_order_is_refused() {
    let (game, _, _) = started();
    let mut games = Games::new();
    let ended = RefereeLog {
        place: place(5),
        event: R::ChessRefereeEvents::GameCancelled(R::GameCancelled { gameId: game.id }),
    };
    let error = games.apply(&ended).unwrap_err();
    assert!(
        error.to_string().contains("whose GameCreated was not seen"),
        "{error}"
    );
    let earlier = RefereeLog {
        place: place(4),
        ..ended.clone()
    };
    let error = games.apply(&earlier).unwrap_err();
    assert!(error.to_string().contains("chain order"), "{error}");
    // A log that is not a referee event.
    let junk = alloy_primitives::Log::new_unchecked(
        Address::ZERO,
        vec![R::GameCancelled::SIGNATURE_HASH],
        Bytes::new(),
    );
    assert!(RefereeLog::decode(place(6), &junk).is_err());
}
