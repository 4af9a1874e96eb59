//! The watchtower on anvil: channel games whose signed messages a relay holds (written
//! to the index file as the relay writes them), a cheater's registration on-chain, and
//! one round of the watchtower answering it from its own account.

mod common;
#[path = "common/watch.rs"]
mod watch;

use chessref_core::Move;
use chessref_index::RelayStore;
use chessref_index::db::Sql;
use watch::{Setup, now, play, registration};

/// Each test on both backends: `NAME::sqlite` and `NAME::postgres`.
macro_rules! on_both {
    ($($test:ident),* $(,)?) => {$(
        mod $test {
            #[test]
            fn sqlite() {
                super::$test(super::Setup::new(stringify!($test)));
            }

            #[test]
            fn postgres() {
                super::$test(super::Setup::postgres());
            }
        }
    )*};
}

on_both!(
    test_a_stale_registration_is_overtaken_with_the_latest_pair,
    test_a_contradicting_registration_is_proved_an_equivocation,
    test_a_decided_registration_nobody_answers_is_finished_after_its_window,
    test_an_unacknowledged_relayed_move_is_announced_once_and_overtakes_the_position_before,
);

fn test_a_stale_registration_is_overtaken_with_the_latest_pair(mut s: Setup) {
    let mut g = s.game();
    play(&mut g, &["e2e4", "e7e5", "g1f3", "b8c6"]);
    let held = g.transcript();
    s.relay(&held);
    // White registers ply 2, hiding plies 3 and 4.
    let white = g.game.white;
    let stale = registration(&held, 2);
    s.referee.send_channel(white, &stale).unwrap();
    let id = g.game.game_id;
    assert_eq!(s.referee.channel_status(id).unwrap().registeredPly, 2);
    let snapshot = s
        .referee
        .chain()
        .raw_request("evm_snapshot", serde_json::json!([]))
        .unwrap();

    let mut tower = s.watchtower();
    let actions = tower.round().unwrap();
    assert_eq!(actions.len(), 1, "{actions:?}");
    assert_eq!(actions[0].call, "register");
    assert!(actions[0].outcome.is_ok(), "{}", actions[0]);
    assert_eq!(s.referee.channel_status(id).unwrap().registeredPly, 4);
    // Nothing more to do: the registration is the latest pair held.
    assert_eq!(tower.round().unwrap(), []);

    // A reorg drops the overtaking transaction: the next round, and a restarted
    // watchtower alike, answer again.
    s.referee
        .chain()
        .raw_request("evm_revert", serde_json::json!([snapshot]))
        .unwrap();
    assert_eq!(s.referee.channel_status(id).unwrap().registeredPly, 2);
    drop(tower);
    let mut restarted = s.watchtower();
    let actions = restarted.round().unwrap();
    assert_eq!(actions.len(), 1, "{actions:?}");
    assert!(actions[0].outcome.is_ok(), "{}", actions[0]);
    assert_eq!(s.referee.channel_status(id).unwrap().registeredPly, 4);
    let logged = RelayStore::open_target(&s.db)
        .unwrap()
        .db()
        .query_one(
            "SELECT count(*) FROM watch_actions WHERE tx_hash IS NOT NULL",
            &[],
            "counting watch actions",
            |row| row.get::<i64>(0),
        )
        .unwrap();
    assert_eq!(logged, 2, "both attempts recorded");
}

fn test_a_contradicting_registration_is_proved_an_equivocation(mut s: Setup) {
    let mut g = s.game();
    play(&mut g, &["e2e4", "e7e5", "g1f3", "b8c6"]);
    s.relay(&g.transcript());
    // White signs another third move and registers it (fresh, so no receipt needed).
    let mut cheat = g.clone();
    cheat.moves.truncate(3);
    cheat.receipts.retain(|ply, _| *ply < 3);
    cheat.play(Move::from_uci("f1c4").unwrap(), now()).unwrap();
    let white = g.game.white;
    s.referee
        .send_channel(white, &registration(&cheat.transcript(), 3))
        .unwrap();

    let actions = s.watchtower().round().unwrap();
    assert_eq!(actions.len(), 1, "{actions:?}");
    assert_eq!(actions[0].call, "proveEquivocation");
    assert!(actions[0].outcome.is_ok(), "{}", actions[0]);
    let info = s.referee.game(g.game.game_id).unwrap();
    assert_eq!(
        (info.phase, info.result, info.reason),
        (3, 2, 12),
        "black wins"
    );
}

fn test_a_decided_registration_nobody_answers_is_finished_after_its_window(mut s: Setup) {
    let mut g = s.game();
    play(
        &mut g,
        &["e2e4", "e7e5", "f1c4", "b8c6", "d1h5", "g8f6", "h5f7"],
    );
    let held = g.transcript();
    s.relay(&held);
    let white = g.game.white;
    s.referee
        .send_channel(white, &registration(&held, 7))
        .unwrap();
    let mut tower = s.watchtower();
    assert_eq!(tower.round().unwrap(), [], "nothing before the window ends");
    let chain = s.referee.chain();
    chain
        .raw_request("evm_increaseTime", serde_json::json!([601]))
        .unwrap();
    chain
        .raw_request("evm_mine", serde_json::json!([]))
        .unwrap();
    let actions = tower.round().unwrap();
    assert_eq!(actions.len(), 1, "{actions:?}");
    assert_eq!(actions[0].call, "finishRegistered");
    let info = s.referee.game(g.game.game_id).unwrap();
    assert_eq!(
        (info.phase, info.result, info.reason),
        (3, 1, 1),
        "white mates"
    );
}

fn test_an_unacknowledged_relayed_move_is_announced_once_and_overtakes_the_position_before(
    mut s: Setup,
) {
    use chessref_channel::messages::Message;
    use chessref_core::Color;
    use chessref_evm::clock_word::{ClockWord, GRACE_PERIOD};

    let mut g = s.game();
    play(&mut g, &["e2e4", "e7e5"]);
    // White plays Nf3 and goes offline; black holds it and never acknowledges it.
    g.play(Move::from_uci("g1f3").unwrap(), now()).unwrap();
    let held = g.transcript();
    let nf3 = held.message(2);
    s.relay(&held);
    let relayed_at = now();
    let id = g.game.game_id;
    let mut tower = s.watchtower();
    assert_eq!(
        tower.round().unwrap(),
        [],
        "not before 10 s without a receipt"
    );
    while now() < relayed_at + chessref_client::watchtower::ANNOUNCE_AFTER {
        std::thread::sleep(std::time::Duration::from_millis(200));
    }
    let actions = tower.round().unwrap();
    assert_eq!(actions.len(), 1, "{actions:?}");
    assert_eq!(
        (actions[0].call, actions[0].registered_ply),
        ("announce", 3)
    );
    let (tx, _) = actions[0].outcome.clone().expect("announced");
    let announced = chessref_client::shown::announced_at(&mut s.referee, nf3.hash()).unwrap();
    assert!(announced >= relayed_at + 10, "shown at {announced}");
    let sent = s
        .referee
        .chain()
        .raw_request("eth_getTransactionByHash", serde_json::json!([tx]))
        .unwrap();
    let tip = u128::from_str_radix(
        sent["maxPriorityFeePerGas"]
            .as_str()
            .unwrap()
            .trim_start_matches("0x"),
        16,
    )
    .unwrap();
    assert!(tip >= chessref_channel::AUTO_REGISTER_TIP, "{sent}");
    // Once per move: the chain shows it.
    assert_eq!(tower.round().unwrap(), []);
    assert_eq!(
        s.referee.channel_status(id).unwrap().windowEnd,
        0,
        "not frozen"
    );

    // Black registers the position before Nf3 (with white's receipt of e5), so that
    // white's clock runs from that receipt: the watchtower overtakes with Nf3 as the
    // direct reply, naming the frozen position, and white keeps its signed time, counted
    // from the announcement.
    s.referee
        .send_channel(g.game.black, &registration(&held, 2))
        .unwrap();
    let actions = tower.round().unwrap();
    assert_eq!(actions.len(), 1, "{actions:?}");
    assert_eq!(
        (actions[0].call, actions[0].registered_ply),
        ("register", 2)
    );
    assert!(actions[0].outcome.is_ok(), "{}", actions[0]);
    let (_, registered) = s
        .referee
        .latest_registration_at(id, 1_000)
        .unwrap()
        .expect("registered");
    assert_eq!(registered.ply, 3);
    assert_eq!(
        ClockWord(registered.position.clock).budget(Color::White),
        u64::from(nf3.whiteTime) + GRACE_PERIOD
    );
    assert_eq!(
        tower.round().unwrap(),
        [],
        "the registration is the latest pair"
    );
}

#[test]
fn test_one_watchtower_acts_per_postgres_database_and_a_standby_takes_over() {
    use chessref_index::IndexError;
    use chessref_index::db::{PgWriterLock, Role};

    let mut s = Setup::postgres();
    let mut g = s.game();
    play(&mut g, &["e2e4", "e7e5", "g1f3", "b8c6"]);
    let held = g.transcript();
    s.relay(&held);
    let white = g.game.white;
    s.referee
        .send_channel(white, &registration(&held, 2))
        .unwrap();
    let pg = match &s.db {
        chessref_index::db::DbTarget::Postgres(pg) => pg.clone(),
        other => panic!("{other}"),
    };
    let first = PgWriterLock::try_acquire(&pg, Role::Watchtower, "tower one").unwrap();
    let mut tower = s.watchtower().holding(first).unwrap();
    // A second one is refused, naming the first; the indexer's lock is another's.
    let err = PgWriterLock::try_acquire(&pg, Role::Watchtower, "tower two").unwrap_err();
    assert!(
        matches!(&err, IndexError::HeldPg { holder, .. } if holder.starts_with("tower one")),
        "{err}"
    );
    let indexer = PgWriterLock::try_acquire(&pg, Role::Indexer, "an indexer").unwrap();
    assert!(s.watchtower().holding(indexer).is_err());
    // The first one's session ends (its process killed, its connection cut): it sends
    // and records nothing more, and the standby, waiting, takes over.
    let standby = {
        let pg = pg.clone();
        std::thread::spawn(move || {
            PgWriterLock::acquire_waiting(
                &pg,
                Role::Watchtower,
                "tower two",
                std::time::Duration::from_millis(50),
                Some(std::time::Duration::from_secs(20)),
            )
        })
    };
    let mut admin = postgres::Client::connect(&s.db.to_string(), postgres::NoTls).unwrap();
    let ended = admin
        .execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity \
             WHERE application_name = 'tower one'",
            &[],
        )
        .unwrap();
    assert_eq!(ended, 1);
    let err = tower.round().unwrap_err();
    assert!(matches!(err, IndexError::LockLost { .. }), "{err}");
    let id = g.game.game_id;
    assert_eq!(s.referee.channel_status(id).unwrap().registeredPly, 2);
    let mut successor = s
        .watchtower()
        .holding(standby.join().unwrap().unwrap())
        .unwrap();
    let actions = successor.round().unwrap();
    assert_eq!(actions.len(), 1, "{actions:?}");
    assert!(actions[0].outcome.is_ok(), "{}", actions[0]);
    assert_eq!(s.referee.channel_status(id).unwrap().registeredPly, 4);
}
