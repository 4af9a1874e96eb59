//! The indexer against anvil: back-fill then live on games played for real, reorgs
//! made with anvil's own methods rolled back, a lying contract's move recorded as
//! a divergence, and the players' ratings across a rollback.

mod common;

use std::time::Duration;

use alloy_primitives::{Address, U256};
use chessref_evm::{Chain, RpcChain, anvil::Anvil};
use chessref_index::db::SqliteRef;
use chessref_index::ratings::{Outcome, RatedGame, Ratings, from_index, kept, rate};
use chessref_index::{Indexer, Options, Step, Store};
use common::{SHORT_GAMES, count, deploy, games, indexed, lie, play, referee, temp_db};
use serde_json::json;

fn options(confirmations: u64, batch_blocks: u64) -> Options {
    Options {
        confirmations,
        batch_blocks,
        poll: Duration::from_millis(5),
    }
}

fn indexer(anvil: &Anvil, db: &str, referee: Address, options: Options) -> Indexer {
    let chain = RpcChain::connect_read_only(anvil.url()).unwrap();
    Indexer::new(
        chain,
        Store::open(&temp_db(db)).unwrap(),
        referee,
        0,
        options,
    )
    .unwrap()
}

/// Steps until the head is reached; returns every step.
fn catch_up(indexer: &mut Indexer) -> Vec<Step> {
    let mut steps = Vec::new();
    for _ in 0..10_000 {
        let step = indexer.step().expect("index step");
        let done = step.caught_up;
        steps.push(step);
        if done {
            return steps;
        }
    }
    panic!("the indexer never caught up");
}

fn mine(chain: &RpcChain, blocks: u64) {
    for _ in 0..blocks {
        chain.raw_request("evm_mine", json!([])).unwrap();
    }
}

#[test]
fn test_backfill_then_live_matches_the_chain_and_finalises() {
    let anvil = Anvil::spawn().unwrap();
    let mut replayer = deploy(&anvil);
    let all = games(SHORT_GAMES, 4);
    let mut played = play(&mut replayer, &all[..2]);
    let address = referee(&mut replayer);
    let mut indexer = indexer(&anvil, "backfill", address, options(2, 5));
    let steps = catch_up(&mut indexer);
    assert!(steps.len() > 3, "small ranges: {} steps", steps.len());
    assert_eq!(indexed(indexer.store().connection()), played);
    // Live: more games, indexed as they come.
    played.extend(play(&mut replayer, &all[2..]));
    catch_up(&mut indexer);
    let conn = indexer.store().connection();
    assert_eq!(indexed(conn), played);
    assert_eq!(count(conn, "games WHERE phase = 'ended'"), 4);
    // The last game's last event is within two blocks of the head: pending until final.
    assert_eq!(count(conn, "games WHERE pending = 1"), 1);
    mine(&RpcChain::connect(anvil.url()).unwrap(), 3);
    catch_up(&mut indexer);
    let conn = indexer.store().connection();
    assert_eq!(count(conn, "games WHERE pending = 1"), 0);
    // Only games that were pending become final (back-filled ones were final at once).
    assert!(count(conn, "changes WHERE kind = 'final'") >= 1);
    // One `move` change per move, a `created`, `joined` and `ended` per game.
    let plies: usize = played.iter().map(|p| p.moves.len()).sum();
    assert_eq!(count(conn, "changes WHERE kind = 'move'") as usize, plies);
    for kind in ["created", "joined", "ended"] {
        assert_eq!(
            count(conn, &format!("changes WHERE kind = '{kind}'")),
            4,
            "{kind}"
        );
    }
    assert_eq!(count(conn, "divergences"), 0);
    // The index is at the head and remembers only the non-final blocks.
    let cursor = indexer.store_mut().cursor().unwrap();
    assert_eq!(cursor.next_block, cursor.head + 1);
    assert_eq!(indexer.store_mut().recent_blocks().unwrap().len(), 3);
}

#[test]
fn test_snapshot_revert_reorg_serves_the_canonical_game() {
    let anvil = Anvil::spawn().unwrap();
    let mut replayer = deploy(&anvil);
    let all = games(SHORT_GAMES, 4);
    let first = play(&mut replayer, &all[..1]);
    let node = RpcChain::connect(anvil.url()).unwrap();
    let snapshot = node.raw_request("evm_snapshot", json!([])).unwrap();
    let orphaned = play(&mut replayer, &all[1..2]);
    let address = referee(&mut replayer);
    let mut indexer = indexer(&anvil, "revert", address, options(50, 2_000));
    catch_up(&mut indexer);
    let orphaned_view = [first.clone(), orphaned].concat();
    assert_eq!(indexed(indexer.store().connection()), orphaned_view);
    // The chain forgets the second game and plays another one in its place (same id).
    assert_eq!(
        node.raw_request("evm_revert", json!([snapshot])).unwrap(),
        json!(true)
    );
    // A new client: the old one's cached nonces are from the forgotten branch.
    let mut replayer = common::replayer_at(&anvil, address);
    let canonical = [first, play(&mut replayer, &all[2..3])].concat();
    let steps = catch_up(&mut indexer);
    let rolled_back: Vec<u64> = steps.iter().filter_map(|s| s.rolled_back_to).collect();
    assert_eq!(rolled_back.len(), 1, "{steps:?}");
    let conn = indexer.store().connection();
    assert_eq!(indexed(conn), canonical);
    assert_eq!(count(conn, "changes WHERE kind = 'rollback'"), 1);
    assert_eq!(count(conn, "games WHERE pending = 1"), 2);
}

#[test]
fn test_anvil_reorg_drops_the_replaced_moves() {
    let anvil = Anvil::spawn().unwrap();
    let mut replayer = deploy(&anvil);
    let played = play(&mut replayer, &games(SHORT_GAMES, 1));
    let address = referee(&mut replayer);
    let mut indexer = indexer(&anvil, "anvil-reorg", address, options(10, 2_000));
    catch_up(&mut indexer);
    assert_eq!(indexed(indexer.store().connection()), played);
    // The game was over before the indexer started: back-filled, its feed still has
    // every step in chain order, its join included.
    let kinds: Vec<String> = indexer
        .store()
        .connection()
        .prepare("SELECT kind FROM changes ORDER BY seq")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(kinds[..2], ["created", "joined"], "{kinds:?}");
    // `created` carries the creation's block, which is before the last move's.
    let (created, last): (i64, i64) = indexer
        .store()
        .connection()
        .query_row(
            "SELECT (SELECT block_number FROM changes WHERE kind = 'created'),
                    (SELECT max(block_number) FROM changes WHERE kind = 'move')",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    assert!(
        created < last,
        "created at block {created}, last move at {last}"
    );
    assert_eq!(
        kinds.iter().filter(|k| *k == "move").count(),
        4,
        "{kinds:?}"
    );
    assert_eq!(kinds[6], "ended", "after the moves: {kinds:?}");
    let before: i64 = indexer
        .store()
        .connection()
        .query_row("SELECT max(seq) FROM changes", [], |r| r.get(0))
        .unwrap();
    // Replace the last two blocks (g4 and the mating Qh4, one transaction each) by
    // empty ones: the game is running again after two plies.
    let node = RpcChain::connect(anvil.url()).unwrap();
    let head = node.head().unwrap();
    node.raw_request("anvil_reorg", json!([2, []])).unwrap();
    assert_eq!(node.head().unwrap(), head);
    let steps = catch_up(&mut indexer);
    assert_eq!(
        steps
            .iter()
            .filter_map(|s| s.rolled_back_to)
            .collect::<Vec<_>>(),
        [head - 2]
    );
    let conn = indexer.store().connection();
    let game = &indexed(conn)[0];
    assert_eq!(game.moves, played[0].moves[..2]);
    assert_eq!(game.ending, None);
    assert_eq!(count(conn, "games WHERE phase = 'running' AND ply = 2"), 1);
    // The feed says it once: the game is kept to ply 2; the moves it kept are not
    // announced again (docs/INDEX.md, "The event feed").
    let after: Vec<(String, i64)> = conn
        .prepare("SELECT kind, ply FROM changes WHERE seq > ?1 ORDER BY seq")
        .unwrap()
        .query_map([before], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(after, [("rollback".to_owned(), 2)]);
}

#[test]
fn test_a_move_the_rules_refuse_is_recorded_as_a_divergence() {
    let anvil = Anvil::spawn().unwrap();
    let address = lie(&anvil);
    let mut indexer = indexer(&anvil, "divergence", address, options(0, 2_000));
    let steps = catch_up(&mut indexer);
    let found: Vec<_> = steps
        .iter()
        .flat_map(|s| s.committed.refolded.divergences.clone())
        .collect();
    assert_eq!(found.len(), 1, "{found:?}");
    let printed = found[0].to_string();
    assert!(
        printed.starts_with("DIVERGENCE game 7 MovePlayed"),
        "{printed}"
    );
    assert!(printed.contains("move expected a legal move"), "{printed}");
    let conn = indexer.store().connection();
    let (what, block, topics): (String, i64, String) = conn
        .query_row(
            "SELECT what, block_number, raw_topics FROM divergences WHERE game_id = '7'",
            [],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )
        .unwrap();
    assert_eq!(what, "move");
    assert!(block > 0);
    assert_eq!(topics.len(), 2 + 2 * 64, "signature and game id: {topics}");
    assert_eq!(count(conn, "games WHERE id = '7' AND divergent = 1"), 1);
    // Indexing again from scratch finds it again; a refold keeps one row of evidence.
    // (One indexer per file: the first one stops.)
    drop(indexer);
    let mut again = indexer_at(&anvil, "divergence", address);
    catch_up(&mut again);
    assert_eq!(count(again.store().connection(), "divergences"), 1);
}

/// A second indexer on an existing database file (resumes at its cursor).
fn indexer_at(anvil: &Anvil, db: &str, referee: Address) -> Indexer {
    let path = std::env::temp_dir()
        .join(format!("chessref-index-tests-{}", std::process::id()))
        .join(format!("{db}.sqlite"));
    let chain = RpcChain::connect_read_only(anvil.url()).unwrap();
    Indexer::new(
        chain,
        Store::open(&path).unwrap(),
        referee,
        0,
        options(0, 2_000),
    )
    .unwrap()
}

/// The ratings of games between `white` and `black` (always those colours), in order.
fn rated(white: Address, black: Address, outcomes: &[Outcome]) -> Ratings {
    rate(outcomes.iter().enumerate().map(|(i, &outcome)| RatedGame {
        id: U256::from(i),
        white,
        black,
        outcome,
        ended_at: (i as u64, 0),
    }))
}

#[test]
fn test_ratings_count_final_games_and_are_recomputed_after_a_rollback() {
    let anvil = Anvil::spawn().unwrap();
    let mut replayer = deploy(&anvil);
    let node = RpcChain::connect(anvil.url()).unwrap();
    let (white, black) = (node.accounts()[0], node.accounts()[1]);
    let all = games(SHORT_GAMES, 4);
    // Fool's mate (0-1) and scholar's mate (1-0), buried under 21 blocks: final.
    play(&mut replayer, &all[..2]);
    mine(&node, 21);
    let snapshot = node.raw_request("evm_snapshot", json!([])).unwrap();
    // The resignation (0-1), on a branch the chain will forget: pending while indexed.
    play(&mut replayer, &all[2..3]);
    let address = referee(&mut replayer);
    let mut follower = indexer(&anvil, "ratings", address, options(20, 2_000));
    catch_up(&mut follower);
    let conn = follower.store().connection();
    assert_eq!(count(conn, "games WHERE phase = 'ended'"), 3);
    assert_eq!(count(conn, "games WHERE pending = 1"), 1);
    let two = rated(white, black, &[Outcome::BlackWins, Outcome::WhiteWins]);
    assert_eq!(
        from_index(&mut SqliteRef::new("index", conn)).unwrap(),
        two,
        "the pending game does not count"
    );
    assert_eq!(
        kept(&mut SqliteRef::new("index", conn)).unwrap(),
        two,
        "kept as recomputed"
    );
    // The chain forgets the resignation; an agreed draw is played in its place.
    assert_eq!(
        node.raw_request("evm_revert", json!([snapshot])).unwrap(),
        json!(true)
    );
    let mut replayer = common::replayer_at(&anvil, address);
    play(&mut replayer, &all[3..4]);
    let steps = catch_up(&mut follower);
    assert_eq!(
        steps.iter().filter(|s| s.rolled_back_to.is_some()).count(),
        1
    );
    assert_eq!(
        from_index(&mut SqliteRef::new("index", follower.store().connection())).unwrap(),
        two
    );
    assert_eq!(
        kept(&mut SqliteRef::new("index", follower.store().connection())).unwrap(),
        two
    );
    // Final: the draw counts, the forgotten resignation never did.
    mine(&node, 21);
    catch_up(&mut follower);
    let conn = follower.store().connection();
    assert_eq!(count(conn, "games WHERE pending = 1"), 0);
    let three = rated(
        white,
        black,
        &[Outcome::BlackWins, Outcome::WhiteWins, Outcome::Draw],
    );
    assert_eq!(
        from_index(&mut SqliteRef::new("index", conn)).unwrap(),
        three
    );
    assert_eq!(kept(&mut SqliteRef::new("index", conn)).unwrap(), three);
    // The hand computation (tests/fixtures/glicko2.py, "index test"): one win, one
    // draw, one loss each.
    for (who, rating) in [(white, 1533.644528), (black, 1466.355472)] {
        let r = three.of(who);
        assert!((r.rating - rating).abs() < 1e-6, "{r:?}");
        assert!((r.deviation - 228.068715).abs() < 1e-6, "{r:?}");
        assert_eq!((r.wins, r.draws, r.losses), (1, 1, 1));
    }
    // What the server reads, and a fresh index of the same chain: the same numbers.
    let path = std::env::temp_dir()
        .join(format!("chessref-index-tests-{}", std::process::id()))
        .join("ratings.sqlite");
    let served = chessref_index::read::open(&chessref_index::db::DbTarget::Sqlite(path))
        .unwrap()
        .player(white)
        .unwrap();
    assert_eq!(
        (served.rating, served.deviation, served.games),
        (1533.64, 228.07, 3)
    );
    let mut again = indexer(&anvil, "ratings-again", address, options(20, 2_000));
    catch_up(&mut again);
    assert_eq!(
        from_index(&mut SqliteRef::new("index", again.store().connection())).unwrap(),
        three
    );
    assert_eq!(
        kept(&mut SqliteRef::new("index", again.store().connection())).unwrap(),
        three
    );
}
